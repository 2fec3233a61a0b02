/**
 * The statement knobs every fake has (docs/providers.md#statements): per day, what the fake's own
 * statement of that day gets wrong on purpose, so reconciliation can be shown finding each kind of
 * mismatch. Each fake builds its statement lines from its own orders and refunds, in its provider's
 * format, and passes them through applyStatementKnobs before writing them out.
 */
import type { FastifyInstance } from 'fastify'
import type { KnobCall } from './knob-client.js'
import { bad, bodyOf, type Body } from './knobs.js'

export type LineKind = 'payment' | 'refund'

/** A line of a fake's statement, before its provider's format: what the knobs can change. */
export interface KnobbableLine {
  kind: LineKind
  /** Every id a test may name the line by (our id, the provider's id). */
  ids: string[]
  /** Minor units of `currency`. */
  amount: number
  currency: string
  /** A refund line's status, in the provider's own words. */
  refundStatus?: string
}

export interface UnknownPayment {
  /** The merchant-side id the line shows (one Till never made). */
  ref: string
  /** The provider's id of it. */
  providerRef: string
  amount: number
  currency?: string
}

export interface StatementKnobs {
  /** Keys `payment:<id>`, `refund:<id>` or `any:<id>`. */
  drop: Set<string>
  amounts: Map<string, number>
  currencies: Map<string, string>
  refundStatuses: Map<string, string>
  unknown: UnknownPayment[]
  /** Not published until released (a statement that comes late). */
  held: boolean
  /** How many of the next downloads of the day come back damaged. */
  corrupt: number
}

const newKnobs = (): StatementKnobs => ({ drop: new Set(), amounts: new Map(), currencies: new Map(), refundStatuses: new Map(), unknown: [], held: false, corrupt: 0 })

/** The knobs per day (YYYY-MM-DD in the provider's zone). */
export class StatementKnobBook {
  private readonly days = new Map<string, StatementKnobs>()
  of(day: string): StatementKnobs {
    let k = this.days.get(day)
    if (!k) this.days.set(day, (k = newKnobs()))
    return k
  }
  peek = (day: string) => this.days.get(day)
  entries = () => this.days.entries()
  reset(day?: string) {
    if (day === undefined) this.days.clear()
    else this.days.delete(day)
  }
  /** Uses up one damaged download of the day, if any is left. */
  takeCorrupt(day: string): boolean {
    const k = this.days.get(day)
    if (!k || k.corrupt <= 0) return false
    k.corrupt--
    return true
  }
}

const keysOf = (line: KnobbableLine) => line.ids.flatMap((id) => [`${line.kind}:${id}`, `any:${id}`])

function lookup<T>(m: Map<string, T>, line: KnobbableLine): T | undefined {
  for (const key of keysOf(line)) if (m.has(key)) return m.get(key)
  return undefined
}

/** The day's lines as the knobs say the statement shows them, unknown payments last. */
export function applyStatementKnobs<L extends KnobbableLine>(lines: L[], k: StatementKnobs | undefined, unknownLine: (u: UnknownPayment) => L): L[] {
  if (!k) return lines
  const out: L[] = []
  for (const line of lines) {
    if (keysOf(line).some((key) => k.drop.has(key))) continue
    out.push({
      ...line,
      amount: lookup(k.amounts, line) ?? line.amount,
      currency: lookup(k.currencies, line) ?? line.currency,
      ...(line.kind === 'refund' ? { refundStatus: lookup(k.refundStatuses, line) ?? line.refundStatus } : {}),
    })
  }
  return [...out, ...k.unknown.map(unknownLine)]
}

const DAY = /^\d{4}-\d{2}-\d{2}$/
const KINDS = ['payment', 'refund', 'any']

export interface StatementKnobOptions {
  /** The refund statuses the provider's statement can show. */
  refundStatuses: readonly string[]
  /** A new provider id for an unknown payment. */
  newProviderRef: () => string
  /** A new merchant-side id for an unknown payment, when the test names none. */
  newRef: () => string
  /** The currencies the provider's format can write (amounts in major units need each one's decimals); any by default. */
  currencies?: readonly string[]
}

/** The control routes, under the fake's prefix: POST …/statements/<knob> with `{date, …}`. */
export function registerStatementKnobs(app: FastifyInstance, prefix: string, book: StatementKnobBook, o: StatementKnobOptions) {
  const P = `${prefix}/statements`
  const route = (knob: string, fn: (b: Body, k: StatementKnobs) => unknown) =>
    app.post(`${P}/${knob}`, async (req, reply) => {
      const b = bodyOf(req.body)
      if (typeof b.date !== 'string' || !DAY.test(b.date)) return bad(reply, 400, 'date must be YYYY-MM-DD')
      if (b.kind !== undefined && !KINDS.includes(b.kind)) return bad(reply, 400, `kind must be one of ${KINDS.join(', ')}`)
      if (['drop', 'amount', 'currency', 'refund-status'].includes(knob) && (typeof b.ref !== 'string' || !b.ref)) return bad(reply, 400, 'ref names the line (our id or the provider\'s)')
      const problem = fn(b, book.of(b.date))
      if (typeof problem === 'string') return bad(reply, 400, problem)
      return { ok: true, ...(problem && typeof problem === 'object' ? problem : {}) }
    })
  const key = (b: Body, kind = b.kind ?? 'any') => `${kind}:${b.ref}`
  const isAmount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

  route('drop', (b, k) => void k.drop.add(key(b)))
  route('amount', (b, k) => (isAmount(b.amount) ? void k.amounts.set(key(b), b.amount) : 'amount must be minor units'))
  const isCurrency = (c: unknown): c is string => typeof c === 'string' && /^[A-Z]{3}$/.test(c) && (!o.currencies || o.currencies.includes(c))
  const currencyProblem = `currency must be ${o.currencies ? `one of ${o.currencies.join(', ')}` : '3 capital letters'}`
  route('currency', (b, k) => (isCurrency(b.currency) ? void k.currencies.set(key(b), b.currency) : currencyProblem))
  route('refund-status', (b, k) =>
    o.refundStatuses.includes(b.status) ? void k.refundStatuses.set(key(b, 'refund'), b.status) : `status must be one of ${o.refundStatuses.join(', ')}`)
  route('unknown-payment', (b, k) => {
    if (!isAmount(b.amount) || b.amount === 0) return 'amount must be minor units'
    if (b.currency !== undefined && !isCurrency(b.currency)) return currencyProblem
    const u: UnknownPayment = { ref: typeof b.ref === 'string' && b.ref ? b.ref : o.newRef(), providerRef: o.newProviderRef(), amount: b.amount, currency: b.currency }
    k.unknown.push(u)
    return { ref: u.ref, providerRef: u.providerRef }
  })
  route('hold', (_b, k) => void (k.held = true))
  route('release', (_b, k) => void (k.held = false))
  route('corrupt', (b, k) => void (k.corrupt += b.times === undefined ? 1 : Number(b.times)))
  app.delete(P, async (req) => {
    const q = (req.query ?? {}) as Record<string, string | undefined>
    book.reset(q.date)
    return { ok: true }
  })
}

export type StatementLineRef = { ref: string; kind?: LineKind }

/** The client's calls for those routes (each fake's client.ts spreads them in). */
export function statementKnobCalls(call: KnobCall) {
  const knob = (name: string, date: string, body: Record<string, unknown> = {}) => call('POST', `/statements/${name}`, { date, ...body })
  return {
    /** The line is left out of the day's statement. */
    statementDrop: (date: string, line: StatementLineRef) => knob('drop', date, line),
    /** The line shows this amount (minor units) instead. */
    statementAmount: (date: string, line: StatementLineRef, amount: number) => knob('amount', date, { ...line, amount }),
    statementCurrency: (date: string, line: StatementLineRef, currency: string) => knob('currency', date, { ...line, currency }),
    /** The refund line shows this status, in the provider's words. */
    statementRefundStatus: (date: string, ref: string, status: string) => knob('refund-status', date, { ref, status }),
    /** A payment Till never made is on the statement; answers its ids. */
    statementUnknownPayment: (date: string, p: { amount: number; currency?: string; ref?: string }) =>
      knob('unknown-payment', date, p) as Promise<{ ok: true; ref: string; providerRef: string }>,
    /** Not published until statementRelease. */
    statementHold: (date: string) => knob('hold', date),
    statementRelease: (date: string) => knob('release', date),
    /** The next `times` downloads of the day come back damaged (their hash does not match). */
    statementCorrupt: (date: string, times = 1) => knob('corrupt', date, { times }),
    statementReset: (date?: string) => call('DELETE', `/statements${date ? `?date=${date}` : ''}`),
  }
}
