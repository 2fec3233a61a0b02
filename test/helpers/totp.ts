/**
 * TOTP codes computed independently of the `otpauth` library Till uses: RFC 4226's HOTP (HMAC-SHA1
 * and dynamic truncation) on RFC 6238's time steps, written from the RFCs with node:crypto.
 */
import { createHmac } from 'node:crypto'

export function base32Decode(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const ch of s.replace(/=+$/, '').toUpperCase()) {
    const v = alphabet.indexOf(ch)
    if (v < 0) throw new Error(`not base32: ${ch}`)
    bits += v.toString(2).padStart(5, '0')
  }
  const bytes = []
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2))
  return Buffer.from(bytes)
}

export function hotp(key: Buffer, counter: number, digits = 6) {
  const msg = Buffer.alloc(8)
  msg.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac('sha1', key).update(msg).digest()
  const offset = mac[mac.length - 1] & 0x0f
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3]
  return String(binary % 10 ** digits).padStart(digits, '0')
}

/** The code for the time step `steps` away from `at` (30-second steps). */
export const totpAt = (base32Secret: string, at: Date, steps = 0, digits = 6) =>
  hotp(base32Decode(base32Secret), Math.floor(at.getTime() / 30_000) + steps, digits)
