import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Uniform base62 from a CSPRNG: bytes >= 248 are rejected so no character is favoured. */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += ALPHABET[b % 62]
      if (out.length === length) break
    }
  }
  return out
}

export type IdPrefix = 'sess' | 'rec' | 'ref' | 'evt' | 'we' | 'pc' | 'mer' | 'key' | 'att'

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`

export const ID_PATTERN = (prefix: IdPrefix) => new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`)
