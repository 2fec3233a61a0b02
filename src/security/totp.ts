/**
 * TOTP (RFC 6238) as authenticator apps use it: SHA-1, 6 digits, 30-second steps, through the
 * `otpauth` library. A code is matched to its time step so that the caller can refuse a step already
 * used (replay); one step of clock drift either way is accepted.
 */
import { Secret, TOTP } from 'otpauth'

export const PERIOD_S = 30
export const DIGITS = 6
/** Steps of drift accepted either way. */
export const DRIFT_STEPS = 1

const totp = (secret: string, label = '', issuer = '') =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, label, issuer })

/** A new 160-bit secret, in base32 as apps show and take it. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32

/** The otpauth:// URI an app reads from the QR code. */
export const totpUri = (secret: string, label: string, issuer: string) => totp(secret, label, issuer).toString()

/** The time step of `at`. */
export const stepAt = (at: Date) => Math.floor(at.getTime() / 1000 / PERIOD_S)

/** The time step `code` was made for, within the drift allowed around `at`; null if it matches none. */
export function matchTotpStep(secret: string, code: string, at: Date): number | null {
  const token = code.replace(/\s/g, '')
  if (!new RegExp(`^\\d{${DIGITS}}$`).test(token)) return null
  const delta = totp(secret).validate({ token, timestamp: at.getTime(), window: DRIFT_STEPS })
  return delta === null ? null : stepAt(at) + delta
}
