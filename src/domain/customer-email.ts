/**
 * A buyer's email address, as a session (and a payment link's page) takes it: one plain address,
 * nothing a mail header could be split or extended with (no display name, quotes, angle brackets,
 * commas, spaces or line breaks), at most 254 characters (RFC 5321's path limit).
 */
import { InvalidField } from './errors.js'

const ADDRESS = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/
export const MAX_EMAIL_LENGTH = 254

export const isEmailAddress = (v: string) => v.length <= MAX_EMAIL_LENGTH && ADDRESS.test(v) && !v.startsWith('.') && !v.includes('..')

/** The address to keep (trimmed), null when none was given; InvalidField on `param` when it is not one address. */
export function checkCustomerEmail(value: string | null | undefined, param = 'customerEmail'): string | null {
  if (value === undefined || value === null) return null
  const v = value.trim()
  if (!isEmailAddress(v)) throw new InvalidField(param, 'must be one email address such as buyer@example.com')
  return v
}
