/**
 * How the fake writes and reads Alipay's wire formats: Beijing-time timestamps, yuan amounts, and
 * signed JSON answers whose signature covers the exact text of the `…_response` value.
 */
import { fromDecimalText, toDecimalText } from '../../../domain/money.js'
import { signRsa2 } from '../sign.js'
import type { FakeApp, FakeStore } from './store.js'

const BEIJING_MS = 8 * 3600_000

/** `yyyy-MM-dd HH:mm:ss` in Beijing time, as every Alipay timestamp is written. */
export const beijingText = (ms: number) => new Date(ms + BEIJING_MS).toISOString().slice(0, 19).replace('T', ' ')

/** A `yyyy-MM-dd HH:mm:ss` Beijing time as epoch milliseconds; null when malformed or not a real date. */
export function parseBeijing(text: unknown): number | null {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return null
  const ms = Date.parse(`${text.replace(' ', 'T')}+08:00`)
  return Number.isNaN(ms) || beijingText(ms) !== text ? null : ms
}

/** Fen as Alipay writes yuan: two decimals. */
export const yuan = (fen: number) => toDecimalText(fen, 'CNY')

/**
 * A yuan amount as Alipay takes it (a string or a JSON number, at most two decimals) in fen; null
 * when it is not one. Strict: only strings with exactly two decimals.
 */
export function parseYuan(v: unknown, strict: boolean): number | null {
  if (strict) return typeof v === 'string' && /^\d+\.\d{2}$/.test(v) ? fromDecimalText(v, 'CNY') : null
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return fromDecimalText(String(v), 'CNY')
  return typeof v === 'string' ? fromDecimalText(v, 'CNY') : null
}

export const CODE_MSG: Record<string, string> = {
  '10000': 'Success',
  '20000': 'Service Currently Unavailable',
  '40001': 'Missing Required Arguments',
  '40002': 'Invalid Arguments',
  '40003': 'Insufficient Conditions',
  '40004': 'Business Failed',
  '40006': 'Insufficient Permissions',
}

/** code and msg first, as Alipay writes them, then the rest. */
export const success = (fields: Record<string, string | undefined>) => ({ code: '10000', msg: 'Success', ...fields })

/**
 * The answer's body: `{"<key>":<text>,["alipay_cert_sn":"…",]"sign":"…"}` with the signature over
 * `<text>` exactly. Slashes are escaped (`https:\/\/…`) as Alipay's JSON writer does, so a client
 * that re-serialises the value instead of cutting it out of the body fails here as it would there.
 */
export function answerBody(store: FakeStore, app: FakeApp | null, key: string, inner: Record<string, unknown>, signed = true): string {
  const text = JSON.stringify(inner).replace(/\//g, '\\/')
  if (!signed || !app) return `{"${key}":${text}}`
  const sign = signRsa2(text, store.alipayKey.privateKey)
  const certSn = app.mode === 'cert' ? `,"alipay_cert_sn":"${store.pki.alipayCertSn}"` : ''
  return `{"${key}":${text}${certSn},"sign":"${sign}"}`
}
