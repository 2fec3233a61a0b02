/** Webhooks to merchants (docs/integrate.md#webhooks): the body, its signature and the retry schedule. Pure, no I/O. */
import { createHmac } from 'node:crypto'
import type { Mode } from './checkout-rules.js'
import type { EventType } from './events.js'

export const SIGNATURE_HEADER = 'X-Service-Signature'
export const EVENT_ID_HEADER = 'X-Service-Event-Id'
export const EVENT_TYPE_HEADER = 'X-Service-Event-Type'
export const USER_AGENT = 'Till-Webhooks/1.0'

/** 2xx within this is delivered; anything slower is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** The old secret keeps signing beside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000
/** The first KiB of an answer is kept with its attempt. */
export const RESPONSE_SNIPPET_BYTES = 1024

/** Waits after the 1st, 2nd, … failed attempt; after the last one the delivery is marked failed. */
export const RETRY_DELAYS_MS = [
  60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000, 24 * 3600_000, 24 * 3600_000,
]
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
/** Spreads retries of many deliveries that failed together (an outage) by ±10 %. */
export const JITTER = 0.1
/** A Retry-After longer than this is not believed. */
const MAX_RETRY_AFTER_MS = 24 * 3600_000

export interface EventRow {
  id: string
  type: EventType | string
  mode: Mode
  data: Record<string, unknown>
  createdAt: Date
}

/** The event as the events API shows it, serialised once when the event is written. */
export function eventPayload(e: EventRow): string {
  return JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt.toISOString(), mode: e.mode, data: e.data })
}

/**
 * The body of one delivery attempt: the stored event with `createdAt` set to the moment this
 * attempt is signed. Receivers reject bodies older than a tolerance (5 min by default in the
 * clients) to stop replays, so a retry an hour later must carry a fresh time, like Stripe's `t=`.
 * The event's own time stays in the events API; `data` carries the business times (`paidAt`).
 */
export function deliveryBody(payload: string, signedAt: Date): string {
  return JSON.stringify({ ...JSON.parse(payload), createdAt: signedAt.toISOString() })
}

/** Lowercase hex HMAC-SHA256 of the raw body bytes; the key is the whole `whsec_…` string as UTF-8. */
export const sign = (secret: string, body: string | Buffer) => createHmac('sha256', secret).update(body).digest('hex')

/** The header value: the current secret's signature, then those of the replaced secrets still signing. */
export const signatureHeader = (secrets: string[], body: string | Buffer) => secrets.map((s) => sign(s, body)).join(',')

/** Retry-After as seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const v = Array.isArray(value) ? value[0] : value
  if (!v) return null
  const s = v.trim()
  if (/^\d+$/.test(s)) return Number(s) * 1000
  // An HTTP date names a weekday and month; Date.parse alone would read "-5" as a year.
  const at = /[A-Za-z]{3}/.test(s) ? Date.parse(s) : NaN
  if (Number.isNaN(at)) return null
  return Math.max(0, at - now.getTime())
}

/**
 * When to try again after failed attempt number `attempt` (1-based), or null once the schedule is
 * spent. The step gets ±10 % jitter; a longer Retry-After (capped at 24 h) wins.
 */
export function nextAttemptAt(now: Date, attempt: number, retryAfterMs: number | null, random: () => number = Math.random): Date | null {
  if (attempt >= MAX_ATTEMPTS) return null
  const step = RETRY_DELAYS_MS[attempt - 1]
  const jittered = Math.round(step * (1 - JITTER + 2 * JITTER * random()))
  const wait = retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS))
  return new Date(now.getTime() + wait)
}

export const isDelivered = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300

/** An endpoint's recent success rate covers the current hour and the 23 before it (hourly counts). */
export const RECENT_HOURS = 24

/** The first hour the recent window counts. */
export function recentWindowStart(now: Date): Date {
  const hour = Math.floor(now.getTime() / 3600_000) * 3600_000
  return new Date(hour - (RECENT_HOURS - 1) * 3600_000)
}

/** Delivered over attempted, to 4 decimals; null without attempts. */
export const successRate = (delivered: number, failed: number) =>
  delivered + failed === 0 ? null : Math.round((delivered / (delivered + failed)) * 10_000) / 10_000
