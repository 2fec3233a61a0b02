/** Secret keys: `sk_test_`/`sk_live_` + 32 base62, stored only as SHA-256 plus the last 4 characters. */
import { hash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { randomBase62 } from '../domain/ids.js'
import type { Mode } from '../domain/checkout-rules.js'

const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/

export function generateApiKey(mode: Mode) {
  const key = `sk_${mode}_${randomBase62(32)}`
  return { key, hash: hashApiKey(key), last4: key.slice(-4) }
}

/**
 * Every API request hashes its key: `crypto.hash`, one call with no Hash object, each of which holds a
 * weak handle that young collections must process (0.3 ms of each pause under load, docs/benchmarks.md).
 */
export const hashApiKey = (key: string) => hash('sha256', key)

/** The mode a well-formed key selects, or null for anything malformed (answered 401 without a lookup). */
export function apiKeyMode(key: string): Mode | null {
  const m = KEY_PATTERN.exec(key)
  return m ? (m[1] as Mode) : null
}

export const generateWebhookSecret = () => `whsec_${randomBase62(32)}`

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>
const SCRYPT = { N: 16384, r: 8, p: 1 }

/** scrypt with its parameters stored beside the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(password, salt, 32, SCRYPT)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: +N, r: +r, p: +p })
  return timingSafeEqual(actual, expected)
}
