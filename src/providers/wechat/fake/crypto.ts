/**
 * The fake's own cryptography, written from docs/providers.md#wechat-pay-wechat without importing the adapter's
 * sign.ts or wire.ts: a bug shared by both sides would otherwise pass every contract test. The
 * known-answer vectors check this file too (sign.test.ts).
 */
import { createCipheriv, randomBytes, randomUUID, sign, verify, type KeyObject } from 'node:crypto'
import { SIGN_SCHEME } from '../constants.js'

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export function randomAlnum(n: number): string {
  const bytes = randomBytes(n)
  let s = ''
  for (let i = 0; i < n; i++) s += LETTERS[bytes[i] % 62] // the bias is irrelevant for a fake
  return s
}

export const randomDigits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('')
export const uuid = () => randomUUID()

/** The five lines a merchant signs: method, target, timestamp, nonce, body, each followed by LF. */
export function merchantSigningString(method: string, target: string, ts: string, nonce: string, body: Buffer | string): Buffer {
  const head = Buffer.from([method, target, ts, nonce].join('\n') + '\n', 'utf8')
  return Buffer.concat([head, Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), Buffer.from('\n')])
}

/** The three lines WeChat signs on responses and notifications. */
export const wechatSigningString = (ts: string, nonce: string, body: string) => Buffer.from([ts, nonce, body].join('\n') + '\n', 'utf8')

/** The four lines of a JSAPI paySign. */
export const paySignString = (appId: string, ts: string, nonce: string, pkg: string) => Buffer.from([appId, ts, nonce, pkg, ''].join('\n'), 'utf8')

export const signB64 = (key: KeyObject, data: Buffer) => sign('sha256', data, key).toString('base64')

export function verifyB64(key: KeyObject, data: Buffer, signature: string): boolean {
  try {
    return verify('sha256', data, key, Buffer.from(signature, 'base64'))
  } catch {
    return false
  }
}

export interface ParsedAuthorization {
  scheme: string
  fields: Record<string, string>
}

/** `SCHEME k="v",k="v"…` with the pairs in any order (the SDKs disagree on it). Null when malformed. */
export function parseAuthorization(header: string | undefined): ParsedAuthorization | null {
  if (!header) return null
  const space = header.indexOf(' ')
  if (space < 0) return null
  const scheme = header.slice(0, space)
  const rest = header.slice(space + 1)
  const fields: Record<string, string> = {}
  const re = /\s*([a-z_]+)="([^"]*)"\s*(,|$)/gy
  let m: RegExpExecArray | null
  let consumed = 0
  while ((m = re.exec(rest)) !== null) {
    fields[m[1]] = m[2]
    consumed = re.lastIndex
    if (consumed >= rest.length) break
  }
  if (consumed !== rest.length) return null
  return { scheme, fields }
}

export const isOurScheme = (p: ParsedAuthorization) => p.scheme === SIGN_SCHEME

/** AEAD_AES_256_GCM as WeChat does it: base64(ciphertext ‖ tag). */
export function gcmSeal(apiV3Key: string, nonce: string, aad: string, plaintext: string): string {
  const c = createCipheriv('aes-256-gcm', Buffer.from(apiV3Key), Buffer.from(nonce))
  c.setAAD(Buffer.from(aad))
  const body = c.update(Buffer.from(plaintext))
  const tail = c.final()
  return Buffer.concat([body, tail, c.getAuthTag()]).toString('base64')
}

/** `2026-05-20T13:29:35+08:00`: Beijing time, the zone WeChat writes every timestamp in. */
export function beijing(ms: number): string {
  const iso = new Date(ms + 8 * 3600_000).toISOString() // shifted so the UTC fields read as Beijing time
  return `${iso.slice(0, 19)}+08:00`
}

/** RFC 3339 with a mandatory offset or Z, as time_expire is documented. */
export function parseRfc3339(s: unknown): number | null {
  if (typeof s !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(s)) return null
  const ms = Date.parse(s)
  return Number.isNaN(ms) ? null : ms
}
