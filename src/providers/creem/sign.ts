/**
 * Creem's two signatures (docs/providers.md#creem-creem), pure functions:
 * - webhooks: `creem-signature` = lowercase hex HMAC-SHA256(webhook secret, raw body bytes);
 * - the success redirect: hex SHA-256 of `k=v|…|salt=<API key>` over the parameters in URL order,
 *   `signature` and empty values left out. A salted hash, not an HMAC (creemPR72).
 * Both compare in constant time and fail closed on a missing secret or header.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { RETURN_SALT_KEY, RETURN_SIGNATURE_PARAM } from './constants.js'

const HEX64 = /^[0-9a-f]{64}$/

export function webhookSignature(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export type WebhookCheck = { ok: true } | { ok: false; reason: 'no_secret' | 'no_signature' | 'malformed_signature' | 'mismatch' }

/** Verifies the raw body against the header value, before anything is parsed. */
export function verifyWebhook(secret: string | undefined, body: Buffer, header: string | string[] | undefined): WebhookCheck {
  if (!secret) return { ok: false, reason: 'no_secret' }
  const given = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase()
  if (!given) return { ok: false, reason: 'no_signature' }
  if (!HEX64.test(given)) return { ok: false, reason: 'malformed_signature' }
  return sameHex(webhookSignature(secret, body), given) ? { ok: true } : { ok: false, reason: 'mismatch' }
}

/**
 * The string the redirect signature covers. Creem's own verifiers (checkout-api.mdx) skip empty
 * values and the literal `null`, which is how a missing id would otherwise be rendered.
 */
export function returnCanonical(query: URLSearchParams, apiKey: string): string {
  const parts: string[] = []
  for (const [k, v] of query) {
    if (k === RETURN_SIGNATURE_PARAM || v === '' || v === 'null') continue
    parts.push(`${k}=${v}`)
  }
  parts.push(`${RETURN_SALT_KEY}=${apiKey}`)
  return parts.join('|')
}

export function returnSignature(query: URLSearchParams, apiKey: string): string {
  return createHash('sha256').update(returnCanonical(query, apiKey)).digest('hex')
}

export type ReturnCheck = { ok: true } | { ok: false; reason: 'no_key' | 'no_signature' | 'duplicate_signature' | 'mismatch' }

export function verifyReturnSignature(query: URLSearchParams, apiKey: string | undefined): ReturnCheck {
  if (!apiKey) return { ok: false, reason: 'no_key' }
  const given = query.getAll(RETURN_SIGNATURE_PARAM)
  if (given.length === 0) return { ok: false, reason: 'no_signature' }
  // Two signatures would let a forger pick which one a lenient reader takes.
  if (given.length > 1) return { ok: false, reason: 'duplicate_signature' }
  const sig = given[0].toLowerCase()
  return HEX64.test(sig) && sameHex(returnSignature(query, apiKey), sig) ? { ok: true } : { ok: false, reason: 'mismatch' }
}
