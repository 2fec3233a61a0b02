/** The customer-facing pages' form tokens and the origin their forms may lead to (headers: web/security.ts). */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The origin of a merchant's successUrl, for form-action; null when there is none (or it is unusable). */
export function originOf(url: string | null): string | null {
  if (!url) return null
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? null : origin
  } catch {
    return null
  }
}

/**
 * Forms carry an HMAC of the session id under a key derived from the secrets key: a post made by
 * another site without our page's token is refused. The customer has no login to protect, but a
 * stray cross-site form must not be able to pay, fail or cancel a session.
 */
export function formToken(key: Buffer, sessionId: string): string {
  return createHmac('sha256', key).update(`checkout-form:${sessionId}`).digest('base64url')
}

export function checkFormToken(key: Buffer, sessionId: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  const expected = Buffer.from(formToken(key, sessionId))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/**
 * The `state` of a provider's OAuth redirect (a browser step): an HMAC of the session id under the
 * step's scope, so a return that did not start from this session's page is refused. Hex, because
 * WeChat allows only [a-zA-Z0-9] (≤128).
 */
export function oauthState(key: Buffer, scope: string, sessionId: string): string {
  return createHmac('sha256', key).update(`${scope}:${sessionId}`).digest('hex')
}

export function checkOauthState(key: Buffer, scope: string, sessionId: string, given: unknown): boolean {
  if (typeof given !== 'string') return false
  const expected = Buffer.from(oauthState(key, scope, sessionId))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
