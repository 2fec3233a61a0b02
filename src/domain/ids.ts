import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

// CSPRNG bytes drawn 4 KiB at a time: every request takes an id or two, and one randomBytes call per
// id cost more than the rest of making it. Each byte is used once.
let pool = Buffer.alloc(0)
let used = 0

/** Uniform base62 from a CSPRNG: bytes >= 248 are rejected so no character is favoured. */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    if (used === pool.length) {
      pool = randomBytes(4096)
      used = 0
    }
    const b = pool[used++]
    if (b < 248) out += ALPHABET[b % 62]
  }
  return out
}

export type IdPrefix = 'sess' | 'rec' | 'ref' | 'evt' | 'we' | 'pc' | 'mer' | 'key' | 'att' | 'dsc' | 'stm' | 'rci' | 'mem' | 'eml' | 'dsp' | 'plink'

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`

export const ID_PATTERN = (prefix: IdPrefix) => new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`)
