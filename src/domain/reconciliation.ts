/**
 * Reconciliation against a provider's statement (docs/reconciliation.md): what one pair or orphan of
 * a day is, the provider's day, and when to ask for a statement again. Pure, no I/O.
 */
import { createHash } from 'node:crypto'

export const ITEM_CATEGORIES = [
  'matched',
  'expected',
  'missing_in_till',
  'missing_at_provider',
  'amount_differs',
  'currency_differs',
  'status_differs',
] as const
export type ItemCategory = (typeof ITEM_CATEGORIES)[number]

/** What someone must look at: every category but `matched` and `expected` (in flight, not yet a mismatch). */
export const MISMATCH_CATEGORIES = ITEM_CATEGORIES.filter((c) => c !== 'matched' && c !== 'expected')
export const isMismatch = (c: ItemCategory) => c !== 'matched' && c !== 'expected'

export type StatementState = 'waiting' | 'failed' | 'fetched' | 'reconciled'

/** How long a payment or refund may stay in flight (one side has it, the other not yet) before it is a mismatch. */
export const GRACE_MS = 48 * 3600_000
/** Within this of the day's start or end, a payment or refund may be on the neighbouring day's statement. */
export const BOUNDARY_MS = 3600_000

export type Status = 'succeeded' | 'pending' | 'failed'

/** The statement's side of a pair. */
export interface LineSide {
  kind: 'payment' | 'refund'
  amount: number
  currency: string
  status: Status
  at: Date
}

/** Till's side: a record (always `succeeded`: the payment was captured) or a refund. */
export interface TillSide {
  kind: 'payment' | 'refund'
  amount: number
  currency: string
  status: Status
  at: Date
  /** What the customer was charged when the provider converted (WeChat Pay Global): a statement may show that. */
  charged?: { amount: number; currency: string } | null
}

export interface PairInput {
  line: LineSide | null
  till: TillSide | null
  /** A payment line without a record: the state of the attempt it names, when Till has one. */
  attempt?: 'processing' | 'succeeded' | 'failed' | 'closed' | null
  /** The day's bounds in the provider's zone. */
  day: { start: Date; end: Date }
  now: Date
}

export interface Difference {
  field: 'amount' | 'currency' | 'status'
  till: string | number
  statement: string | number
}

export interface Sums { count: number; amount: number }
/** A day's totals in one currency, as the report shows them. */
export interface CurrencyTotals {
  currency: string
  /** The statement's own summary for the currency, when it has one. */
  statement: { payments: Sums; refunds: Sums; fees: number } | null
  /** The sum of the statement's lines. */
  lines: { payments: Sums; refunds: Sums; fees: number }
  /** Till's payments of the day, and its refunds that were not refused. */
  till: { payments: Sums; refunds: Sums }
  /** Whether the summary agrees with the lines (null: the statement gave no summary for the currency). */
  agrees: boolean | null
}

export interface Classification {
  category: ItemCategory
  differences: Difference[]
  /** For `expected`: when it becomes a mismatch unless its counterpart arrives. */
  expectedUntil: Date | null
}

const result = (category: ItemCategory, differences: Difference[] = [], expectedUntil: Date | null = null): Classification =>
  ({ category, differences, expectedUntil })

/** `expected` until the grace after `since` ends, then `otherwise`. */
function inFlight(since: Date, now: Date, otherwise: Classification): Classification {
  const until = new Date(since.getTime() + GRACE_MS)
  return until > now ? result('expected', [], until) : otherwise
}

/** One pair or orphan of a day: its category, what differs, and how long it may stay in flight. */
export function classify(p: PairInput): Classification {
  if (p.line && p.till) return pair(p.line, p.till, p.now)
  if (p.line) return lineOnly(p.line, p.attempt ?? null, p.now)
  if (p.till) return tillOnly(p.till, p.day, p.now)
  throw new Error('a reconciliation item has at least one side')
}

function pair(line: LineSide, till: TillSide, now: Date): Classification {
  // A converted payment (WeChat Pay Global) may be stated in what the customer was charged.
  const side = line.currency !== till.currency && till.charged?.currency === line.currency ? till.charged : till
  if (line.currency !== side.currency) return result('currency_differs', [{ field: 'currency', till: side.currency, statement: line.currency }])
  if (line.amount !== side.amount) return result('amount_differs', [{ field: 'amount', till: side.amount, statement: line.amount }])
  const differs = result('status_differs', [{ field: 'status', till: till.status, statement: line.status }])
  // Till has not settled it yet (its own reconciliation asks the provider): in flight for a while.
  if (till.status === 'pending') return inFlight(till.at, now, differs)
  // A statement's row is a snapshot taken when the provider accepted it (WeChat's refunds): Till knows the end.
  if (line.status === 'pending') return result('matched')
  return line.status === till.status ? result('matched') : differs
}

function lineOnly(line: LineSide, attempt: PairInput['attempt'], now: Date): Classification {
  const missing = result('missing_in_till')
  if (line.kind === 'payment' && attempt) {
    // Till's attempt is still open: its reconciliation will learn of the payment.
    if (line.status === 'succeeded') return attempt === 'processing' ? inFlight(line.at, now, missing) : missing
    // Neither side says money moved.
    return result('matched')
  }
  return missing
}

function tillOnly(till: TillSide, day: PairInput['day'], now: Date): Classification {
  // A refund the provider refused: no money moved on either side.
  if (till.status === 'failed') return result('matched')
  const missing = result('missing_at_provider')
  if (till.status === 'pending') return inFlight(till.at, now, missing)
  const nearEdge = till.at.getTime() - day.start.getTime() < BOUNDARY_MS || day.end.getTime() - till.at.getTime() <= BOUNDARY_MS
  return nearEdge ? inFlight(till.at, now, missing) : missing
}

/** A record's refunds, summed by status: Till's side of a per-payment refund line (Creem's). */
export interface PaymentRefunds {
  currency: string
  succeeded: number
  pending: number
  failed: number
  /** The latest refund's time, and the latest pending one's. */
  lastAt: Date
  pendingAt: Date | null
}

/**
 * A record's refunds as one Till side, to classify against a line stating all its payment's settled
 * refunds as one amount. One still pending may be on the line already or not yet: in flight either way.
 * All refused: what Till tried, refused, against the provider's word.
 */
export function paymentRefundsSide(r: PaymentRefunds, lineAmount: number): TillSide {
  const side = { kind: 'refund' as const, currency: r.currency }
  if (r.pending > 0) return { ...side, status: 'pending', amount: lineAmount === r.succeeded ? r.succeeded : r.succeeded + r.pending, at: r.pendingAt ?? r.lastAt }
  if (r.succeeded > 0) return { ...side, status: 'succeeded', amount: r.succeeded, at: r.lastAt }
  return { ...side, status: 'failed', amount: r.failed, at: r.lastAt }
}

/**
 * What an item is, for telling a changed one from the same one: an acknowledgement holds while the
 * fingerprint does. Over the category and both sides' money facts, not over times or run ids.
 */
export function itemFingerprint(category: ItemCategory, till: Omit<TillSide, 'at'> | null, line: Omit<LineSide, 'at'> | null): string {
  const t = till && [till.kind, till.amount, till.currency, till.status]
  const l = line && [line.kind, line.amount, line.currency, line.status]
  return createHash('sha256').update(JSON.stringify([category, t, l])).digest('base64url').slice(0, 22)
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** Whether `s` is a calendar day written YYYY-MM-DD. */
export function isDay(s: string): boolean {
  const m = DAY.exec(s)
  if (!m) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.toISOString().slice(0, 10) === s
}

/** The day (YYYY-MM-DD) an instant falls on in an IANA zone. */
export function dayIn(at: Date, zone: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at)
}

/** `day` moved by `n` calendar days. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number)
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10)
}

/** The days the daily job looks at: the last `lookback` days up to yesterday in the zone, not before `since`, oldest first. */
export function daysToReconcile(now: Date, zone: string, since: string, lookback: number): string[] {
  const yesterday = addDays(dayIn(now, zone), -1)
  const days: string[] = []
  for (let i = lookback - 1; i >= 0; i--) {
    const d = addDays(yesterday, -i)
    if (d >= since) days.push(d)
  }
  return days
}

/** Waits after the 1st, 2nd, … fetch that gave no statement (not published yet, a refused download, a failure). */
export const STATEMENT_RETRY_MS = [15 * 60_000, 30 * 60_000, 3600_000, 2 * 3600_000, 4 * 3600_000, 6 * 3600_000]
const MAX_RETRY_AFTER_MS = 24 * 3600_000

/** When to ask again after try number `tries` (1-based); the provider's own Retry-After (capped at 24 h) wins when longer. */
export function nextStatementTry(now: Date, tries: number, retryAfterS?: number): Date {
  const step = STATEMENT_RETRY_MS[Math.min(tries, STATEMENT_RETRY_MS.length) - 1]
  const asked = retryAfterS !== undefined && retryAfterS > 0 ? Math.min(retryAfterS * 1000, MAX_RETRY_AFTER_MS) : 0
  return new Date(now.getTime() + Math.max(step, asked))
}
