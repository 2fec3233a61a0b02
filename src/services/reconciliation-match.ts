/**
 * Matching one day (docs/reconciliation.md#what-is-matched), inside the caller's transaction: the
 * statement's files parsed into lines written 2,000 at a time, the day's pairs made in SQL and read
 * through a cursor 2,000 at a time, each classified by domain/reconciliation.ts and written as an
 * item; the totals per currency. A run holds one batch at a time, never the whole day.
 */
import { newId } from '../domain/ids.js'
import { unstorableCharacter } from '../domain/reasons.js'
import {
  classify, itemFingerprint, ITEM_CATEGORIES, paymentRefundsSide, type CurrencyTotals, type ItemCategory, type LineSide, type Sums, type TillSide,
} from '../domain/reconciliation.js'
import { hashChecked, inPieces } from '../providers/statement-stream.js'
import type { StatementFile, StatementLine, StatementSource, StatementTotal } from '../providers/statements.js'
import type { Tx } from '../store/db.js'
import * as repo from '../store/repos/reconciliation.js'
import type { Deps } from './deps.js'

/** Lines written per statement, and pairs read per fetch: what one run holds in memory at a time. */
export const BATCH = 2000
/** A kept file reaches its parser in pieces this large, the event loop let through between them. */
const PARSE_PIECE_BYTES = 64 * 1024

const zero = (): Sums => ({ count: 0, amount: 0 })
const sameSums = (a: Sums, b: Sums) => a.count === b.count && a.amount === b.amount

function totalsOf(map: Map<string, CurrencyTotals>, currency: string): CurrencyTotals {
  let t = map.get(currency)
  if (!t) map.set(currency, t = { currency, statement: null, lines: { payments: zero(), refunds: zero(), fees: 0 }, till: { payments: zero(), refunds: zero() }, agrees: null })
  return t
}

function addSummary(map: Map<string, CurrencyTotals>, s: StatementTotal) {
  const t = totalsOf(map, s.currency)
  // A statement of several files may state a currency more than once: its summaries add up.
  const prev = t.statement ?? { payments: zero(), refunds: zero(), fees: 0 }
  t.statement = {
    payments: { count: prev.payments.count + s.payments.count, amount: prev.payments.amount + s.payments.amount },
    refunds: { count: prev.refunds.count + s.refunds.count, amount: prev.refunds.amount + s.refunds.amount },
    fees: prev.fees + s.fees,
  }
}

function addLine(map: Map<string, CurrencyTotals>, l: StatementLine) {
  const t = totalsOf(map, l.currency)
  const sums = l.kind === 'payment' ? t.lines.payments : t.lines.refunds
  sums.count++
  sums.amount += l.amount
  t.lines.fees += l.fee ?? 0
}

/** A parser's line, checked: a line that breaks the interface's promises stops the run rather than being matched wrongly. */
function checked(l: StatementLine): StatementLine {
  const ok = (l.kind === 'payment' || l.kind === 'refund') && Number.isSafeInteger(l.amount) && typeof l.currency === 'string'
    && ['succeeded', 'pending', 'failed'].includes(l.status) && l.at instanceof Date && !Number.isNaN(l.at.getTime())
    && (l.fee === null || Number.isSafeInteger(l.fee)) && Number.isInteger(l.source?.line) && typeof l.source?.file === 'string'
  if (!ok) throw new StatementFormatError(`line ${l.source?.line ?? '?'} of ${l.source?.file ?? '?'} is not a statement line`)
  // A NUL in a cell would fail the whole batch's insert: named here, with its line, instead.
  const texts = [l.tillRef, l.providerRef, l.paymentTillRef, l.paymentProviderRef, l.currency, ...Object.entries(l.source.fields ?? {}).flat()]
  for (const t of texts) {
    const bad = typeof t === 'string' ? unstorableCharacter(t) : null
    if (bad) throw new StatementFormatError(`line ${l.source.line} of ${l.source.file} holds a character that cannot be stored (${bad})`)
  }
  return l
}

/** The statement cannot be read as the provider's format says: the day fails with this reason, and is tried again later. */
export class StatementFormatError extends Error {}

const tillSide = (r: repo.PairRow): TillSide & { id: string; ref: string | null } => ({
  id: r.t_id!, ref: r.t_ref, kind: r.kind, amount: Number(r.t_amount), currency: r.t_currency!, status: r.t_status!, at: new Date(Number(r.t_at)),
  charged: r.t_charged && typeof r.t_charged === 'object' ? { amount: Number(r.t_charged.amount), currency: String(r.t_charged.currency) } : null,
})

/** Till's side of a per-payment refund line: the record's refunds as one, named by the first and listing all. */
function refundsSide(r: repo.PairRow, lineAmount: number) {
  const ids = r.g_ids!
  const side = paymentRefundsSide({
    currency: r.g_currency!, succeeded: Number(r.g_succeeded), pending: Number(r.g_pending), failed: Number(r.g_failed),
    lastAt: new Date(Number(r.g_last_at)), pendingAt: r.g_pending_at === null ? null : new Date(Number(r.g_pending_at)),
  }, lineAmount)
  return { ...side, id: ids[0], ref: ids[0], refunds: ids }
}

const lineSide = (r: repo.PairRow, day: string): LineSide & { statementId: string; day: string; file: string; line: number; tillRef: string | null; providerRef: string | null; fee: number | null } => ({
  statementId: r.l_statement!, day: r.l_day ?? day, file: r.l_file!, line: Number(r.l_line), tillRef: r.l_till_ref, providerRef: r.l_provider_ref,
  kind: r.kind, amount: Number(r.l_amount), currency: r.l_currency!, status: r.l_status!, fee: r.l_fee === null ? null : Number(r.l_fee), at: new Date(Number(r.l_at)),
})

const json = <T extends { at: Date }>(side: T) => ({ ...side, at: side.at.toISOString() })

export interface MatchOutcome {
  counts: Record<ItemCategory, number>
  newMismatches: number
  openMismatches: number
  totals: CurrencyTotals[]
  /** Days of Till's side of lines this statement holds for another day: their reports change too. */
  otherDays: Set<string>
}

/** Parses the kept files, pairs and classifies, writes items and totals: one transaction, so a failure leaves the last run's result. */
export async function match(tx: Tx, deps: Deps, s: repo.StatementRow, source: StatementSource): Promise<MatchOutcome> {
  const now = deps.clock()
  const totals = new Map<string, CurrencyTotals>()
  await repo.deleteLines(tx, s.id)
  const files = await keptFiles(tx, s.id)
  let batch: StatementLine[] = []
  const parsed = source.parse(files)[Symbol.asyncIterator]()
  for (;;) {
    let next: IteratorResult<StatementLine | StatementTotal>
    try {
      next = await parsed.next()
    } catch (e) {
      if (e instanceof StatementFormatError) throw e
      throw new StatementFormatError(`the statement is not in the expected format: ${(e as Error).message}`)
    }
    if (next.done) break
    const item = next.value
    if (item.kind === 'total') {
      addSummary(totals, item)
      continue
    }
    batch.push(checked(item))
    addLine(totals, item)
    if (batch.length >= BATCH) {
      await repo.insertLines(tx, s.id, s.providerConfigId, batch)
      batch = []
    }
  }
  await repo.insertLines(tx, s.id, s.providerConfigId, batch)

  const bounds = await repo.dayBounds(tx, s.day, s.zone)
  const scope: repo.PairScope = {
    statementId: s.id, merchantId: s.merchantId, mode: s.mode, configId: s.providerConfigId, ...bounds, refundsPerPayment: source.refundLines === 'per_payment',
  }
  const counts = Object.fromEntries(ITEM_CATEGORIES.map((c) => [c, 0])) as Record<ItemCategory, number>
  const otherDays = new Set<string>()
  let newMismatches = 0
  await repo.startRun(tx)
  await repo.openPairs(tx, scope, s.zone)
  for (;;) {
    const rows = await repo.fetchPairs(tx, BATCH)
    if (!rows.length) break
    const out: repo.ItemInput[] = []
    for (const r of rows) {
      if (r.source === 'elsewhere') {
        otherDays.add(r.t_day!)
        continue
      }
      const line = r.l_file !== null ? lineSide(r, s.day) : null
      const till = !r.t_id || r.duplicate ? null : r.g_ids ? refundsSide(r, line!.amount) : tillSide(r)
      const c = classify({ line, till, attempt: r.duplicate ? null : r.attempt_status, day: bounds, now })
      const key = till ? till.id : `line:${line!.file}:${line!.line}`
      counts[c.category]++
      out.push({
        id: newId('rci'), key, kind: r.kind, category: c.category,
        till: till && json(till), line: line && json(line), differences: c.differences,
        fingerprint: itemFingerprint(c.category, till, line), expected_until: c.expectedUntil?.toISOString() ?? null,
      })
    }
    newMismatches += await repo.upsertItems(tx, { statementId: s.id, merchantId: s.merchantId, mode: s.mode, now }, out)
  }
  await repo.closePairs(tx)
  await repo.deleteStaleItems(tx, s.id)

  for (const t of await repo.tillTotals(tx, scope)) {
    const sums = totalsOf(totals, t.currency).till
    sums[t.kind === 'payment' ? 'payments' : 'refunds'] = { count: Number(t.n), amount: Number(t.amount) }
  }
  for (const t of totals.values()) {
    t.agrees = t.statement === null ? null
      : sameSums(t.statement.payments, t.lines.payments) && sameSums(t.statement.refunds, t.lines.refunds) && t.statement.fees === t.lines.fees
  }
  const openMismatches = (await repo.openMismatchesOf(tx, [s.id])).get(s.id) ?? 0
  return { counts, newMismatches, openMismatches, totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)), otherDays }
}

/** The kept files, each body streamed from the store; one that does not end with the SHA-256 it was kept with fails the run. */
async function keptFiles(tx: Tx, statementId: string): Promise<StatementFile[]> {
  return (await repo.listFiles(tx, statementId)).map((f) => ({
    name: f.name,
    type: f.type,
    body: inPieces(hashChecked(repo.fileChunks(tx, statementId, f.name), 'sha256', f.sha256,
      () => new StatementFormatError(`the kept file ${f.name} does not match its SHA-256 any more`)), PARSE_PIECE_BYTES),
  }))
}
