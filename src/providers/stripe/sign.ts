/**
 * Stripe's webhook signature (docs, "Check the webhook signatures"; stripe-node src/Webhooks.ts), pure:
 * `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each v1 the lowercase hex
 * HMAC-SHA256(endpoint secret, "<t>.<raw body>"). While a secret is being rolled Stripe signs with
 * both, so several v1 are normal: any one matching any of our secrets is enough. The timestamp
 * must be within the tolerance of our clock (replays), and everything fails closed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { SIGNATURE_TOLERANCE_SEC } from './constants.js'

const HEX64 = /^[0-9a-f]{64}$/

export function signPayload(secret: string, timestamp: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')
}

/** The secrets a configuration holds: one, or several (a rotation) separated by spaces or commas. */
export const secretsOf = (configured: string | undefined) => (configured ?? '').split(/[\s,]+/).filter(Boolean)

export type WebhookCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'no_secret' | 'no_signature' | 'malformed_signature' | 'too_old' | 'mismatch' }

/** Parses the header: its timestamp and every v1 (v0, test-mode legacy, and unknown schemes are ignored). */
export function parseHeader(header: string): { timestamp: number | null; v1: string[] } {
  let timestamp: number | null = null
  const v1: string[] = []
  for (const part of header.split(',')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    const k = part.slice(0, eq).trim()
    const v = part.slice(eq + 1).trim()
    if (k === 't' && /^\d{1,12}$/.test(v)) timestamp = Number(v)
    else if (k === 'v1') v1.push(v.toLowerCase())
  }
  return { timestamp, v1 }
}

/** Checks the raw body against the header before anything is parsed; `nowSec` is our clock. */
export function verifyWebhook(secrets: string[], body: Buffer, header: string | string[] | undefined, nowSec: number, toleranceSec = SIGNATURE_TOLERANCE_SEC): WebhookCheck {
  if (secrets.length === 0) return { ok: false, reason: 'no_secret' }
  const given = Array.isArray(header) ? header[0] : header
  if (!given) return { ok: false, reason: 'no_signature' }
  const { timestamp, v1 } = parseHeader(given)
  const wellFormed = v1.filter((s) => HEX64.test(s))
  if (timestamp === null || wellFormed.length === 0) return { ok: false, reason: 'malformed_signature' }
  if (Math.abs(nowSec - timestamp) > toleranceSec) return { ok: false, reason: 'too_old' }
  for (const secret of secrets) {
    const expected = Buffer.from(signPayload(secret, timestamp, body))
    // Every candidate compared, none skipped early: the time taken says nothing about which matched.
    let match = false
    for (const s of wellFormed) match = timingSafeEqual(expected, Buffer.from(s)) || match
    if (match) return { ok: true, timestamp }
  }
  return { ok: false, reason: 'mismatch' }
}
