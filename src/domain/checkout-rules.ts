import { InvalidField } from './errors.js'
import { EXPIRY_DEFAULT_SECONDS, EXPIRY_MAX_SECONDS, EXPIRY_MIN_SECONDS } from './session-machine.js'

export type Mode = 'test' | 'live'

export const METADATA_MAX_KEYS = 50
export const METADATA_MAX_KEY_LENGTH = 40
export const METADATA_MAX_VALUE_LENGTH = 500
export const SUCCESS_URL_MAX_LENGTH = 2048

/** Length in characters (code points), as the request schema counts description: an emoji is one character. */
const chars = (s: string) => [...s].length

/** metadata: at most 50 keys, keys ≤ 40 characters, values strings ≤ 500 characters (docs/integrate.md#create-a-session). */
export function checkMetadata(metadata: unknown): Record<string, string> {
  if (metadata === undefined) return {}
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new InvalidField('metadata', 'must be an object of string values')
  }
  const entries = Object.entries(metadata)
  if (entries.length > METADATA_MAX_KEYS) throw new InvalidField('metadata', `must have at most ${METADATA_MAX_KEYS} keys`)
  for (const [key, value] of entries) {
    if (key.length === 0 || chars(key) > METADATA_MAX_KEY_LENGTH) {
      throw new InvalidField('metadata', `keys must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`)
    }
    if (typeof value !== 'string') throw new InvalidField(`metadata.${key}`, 'must be a string')
    if (chars(value) > METADATA_MAX_VALUE_LENGTH) {
      throw new InvalidField(`metadata.${key}`, `must be at most ${METADATA_MAX_VALUE_LENGTH} characters`)
    }
  }
  return metadata as Record<string, string>
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * successUrl and cancelUrl, where the customer is sent back to: absolute http(s), ≤ 2048 characters;
 * https only in live mode, except localhost in test mode. Kept as the parsed URL's href.
 */
function checkReturnUrl(field: 'successUrl' | 'cancelUrl', value: string | undefined, mode: Mode): string | null {
  if (value === undefined) return null
  if (chars(value) > SUCCESS_URL_MAX_LENGTH) {
    throw new InvalidField(field, `must be at most ${SUCCESS_URL_MAX_LENGTH} characters`)
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidField(field, 'must be an absolute http or https URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidField(field, 'must be an absolute http or https URL')
  }
  if (url.protocol === 'http:' && !(mode === 'test' && LOCAL_HOSTS.has(url.hostname))) {
    throw new InvalidField(field, mode === 'live' ? 'must use https in live mode' : 'must use https (http only for localhost in test mode)')
  }
  // What the parser read, never the raw text: it drops the tabs, CR and LF a Location header must not carry.
  if (chars(url.href) > SUCCESS_URL_MAX_LENGTH) throw new InvalidField(field, `must be at most ${SUCCESS_URL_MAX_LENGTH} characters`)
  return url.href
}

export const checkSuccessUrl = (value: string | undefined, mode: Mode) => checkReturnUrl('successUrl', value, mode)

/** cancelUrl: where a customer who did not pay goes back to (docs/integrate.md#the-way-back-canceled-failed-expired). */
export const checkCancelUrl = (value: string | undefined, mode: Mode) => checkReturnUrl('cancelUrl', value, mode)

export function expirySeconds(value: number | undefined): number {
  if (value === undefined) return EXPIRY_DEFAULT_SECONDS
  if (value < EXPIRY_MIN_SECONDS) throw new InvalidField('expiresInSeconds', `must be at least ${EXPIRY_MIN_SECONDS}`)
  if (value > EXPIRY_MAX_SECONDS) throw new InvalidField('expiresInSeconds', `must be at most ${EXPIRY_MAX_SECONDS}`)
  return value
}
