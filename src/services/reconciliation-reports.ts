/**
 * Reading reconciliation: a day's report (its statement's state, counts per category, totals), its
 * items with both sides, acknowledging a mismatch, and a day's items as CSV rows. The admin API
 * reads any merchant's; the console its own, scoped by (merchant, mode).
 */
import { InvalidField, NotFound } from '../domain/errors.js'
import { ITEM_CATEGORIES, MISMATCH_CATEGORIES, type ItemCategory } from '../domain/reconciliation.js'
import * as repo from '../store/repos/reconciliation.js'
import type { Scope } from '../store/repos/scope.js'
import type { Deps } from './deps.js'

export type { ItemRow } from '../store/repos/reconciliation.js'

export function reportView(s: repo.StatementRow, openMismatches: number) {
  return {
    id: s.id,
    merchantId: s.merchantId,
    mode: s.mode,
    provider: s.provider,
    providerConfigId: s.providerConfigId,
    date: s.day,
    zone: s.zone,
    state: s.state,
    reason: s.reason,
    nextTryAt: s.nextTryAt?.toISOString() ?? null,
    fetchedAt: s.fetchedAt?.toISOString() ?? null,
    reconciledAt: s.reconciledAt?.toISOString() ?? null,
    counts: Object.fromEntries(ITEM_CATEGORIES.map((c) => [c, s.counts[c] ?? 0])) as Record<ItemCategory, number>,
    openMismatches,
    totals: s.totals,
  }
}
export type ReportView = ReturnType<typeof reportView>

const lineKey = (line: Record<string, unknown>) => `${line.statementId}|${line.file}|${line.line}`

export function itemView(i: repo.ItemWithDay, fields?: Record<string, string>) {
  const line = i.line as Record<string, unknown> | null
  return {
    id: i.id,
    reportId: i.statementId,
    date: i.day,
    provider: i.provider,
    providerConfigId: i.providerConfigId,
    key: i.key,
    kind: i.kind,
    category: i.category,
    till: i.till,
    line: line && (fields ? { ...line, fields } : line),
    differences: i.differences,
    expectedUntil: i.expectedUntil?.toISOString() ?? null,
    acknowledgedAt: i.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: i.acknowledgedBy,
    acknowledgementNote: i.acknowledgementNote,
  }
}
export type ItemView = ReturnType<typeof itemView>

async function withOpen(deps: Deps, rows: repo.StatementRow[]) {
  const open = await repo.openMismatchesOf(deps.db, rows.map((r) => r.id))
  return rows.map((r) => reportView(r, open.get(r.id) ?? 0))
}

/** A page of reports: the merchant's in one mode (the console), or the operator's across merchants (the admin API, `scope` null). */
export async function listReports(deps: Deps, scope: Scope | null, f: repo.OperatorFilter<repo.StatementFilter>, o: { limit: number; startingAfter?: string }) {
  let after: repo.StatementRow | undefined
  if (o.startingAfter !== undefined) {
    after = (scope ? await repo.getStatement(deps.db, scope, o.startingAfter) : await repo.getStatementUnscoped(deps.db, o.startingAfter)) ?? undefined
    if (!after || (f.merchantId && after.merchantId !== f.merchantId)) throw new InvalidField('starting_after', 'no such report')
  }
  const { rows, hasMore } = scope
    ? await repo.listStatements(deps.db, scope, f, { limit: o.limit, after })
    : await repo.listStatementsUnscoped(deps.db, f, { limit: o.limit, after })
  return { data: await withOpen(deps, rows), hasMore }
}

/** A report; scoped to the merchant and mode when a scope is given (the console), any merchant's otherwise (the admin API). */
export async function getReport(deps: Deps, scope: Scope | null, id: string) {
  const s = scope ? await repo.getStatement(deps.db, scope, id) : await repo.getStatementUnscoped(deps.db, id)
  if (!s) throw new NotFound()
  return (await withOpen(deps, [s]))[0]
}

/** The kept files of a report (name, media type, size, SHA-256), without their bytes. */
export const reportFiles = (deps: Deps, reportId: string) => repo.listFiles(deps.db, reportId)

/** A kept file's bytes, read from the store a chunk (at most 1 MiB) at a time as the reader takes them. */
export const reportFileBody = (deps: Deps, reportId: string, name: string) => repo.fileChunks(deps.db, reportId, name)

export interface ItemQuery {
  reportId?: string
  /** The operator's filter only (the console's scope names the merchant). */
  merchantId?: string
  providerConfigId?: string
  /** One category; without it, every mismatch category. */
  category?: ItemCategory
  open?: boolean
}

/**
 * Items, each with its line's own fields as the statement had them: mismatches unless a category is
 * asked for. The merchant's in one mode (the console), or the operator's across merchants (`scope` null).
 */
export async function listItems(deps: Deps, scope: Scope | null, q: ItemQuery, o: { limit: number; startingAfter?: string }) {
  let after: repo.ItemWithDay | undefined
  if (o.startingAfter !== undefined) {
    const item = scope ? await repo.getItem(deps.db, scope, o.startingAfter) : await repo.getItemUnscoped(deps.db, o.startingAfter)
    after = item && (!q.merchantId || item.merchantId === q.merchantId) ? item : undefined
    if (!after) throw new InvalidField('starting_after', 'no such item')
  }
  const f = { statementId: q.reportId, providerConfigId: q.providerConfigId, categories: q.category ? [q.category] : MISMATCH_CATEGORIES, open: q.open }
  const { rows, hasMore } = scope
    ? await repo.listItems(deps.db, scope, f, { limit: o.limit, after })
    : await repo.listItemsUnscoped(deps.db, { ...f, merchantId: q.merchantId }, { limit: o.limit, after })
  const refs = rows.flatMap((r) => (r.line ? [r.line as Record<string, unknown>] : []))
  const fields = await repo.lineFields(deps.db, refs.map((l) => ({ statementId: String(l.statementId), file: String(l.file), line: Number(l.line) })))
  return { data: rows.map((r) => itemView(r, r.line ? fields.get(lineKey(r.line as Record<string, unknown>)) : undefined)), hasMore }
}

/**
 * Marks a mismatch of a report as seen, with who and why; it stays so while the item is unchanged.
 * Answers the item and whether this call acknowledged it (a second post of the form changes nothing).
 */
export async function acknowledgeItem(deps: Deps, scope: Scope, reportId: string, id: string, by: string, note: string) {
  return deps.db.transaction(async (tx) => {
    const done = await repo.acknowledgeItem(tx, scope, id, reportId, by, note, deps.clock())
    if (done) return { item: done, acknowledged: true }
    const item = await repo.getItem(tx, scope, id)
    if (!item || item.statementId !== reportId || item.acknowledgedAt === null) throw new NotFound()
    return { item, acknowledged: false }
  })
}

/** Every item of a report, a page at a time, in key order: what the CSV export writes. */
export async function* reportItems(deps: Deps, reportId: string, pageSize = 1000) {
  let after: string | null = null
  for (;;) {
    const rows = await repo.itemsAfter(deps.db, reportId, after, pageSize)
    if (!rows.length) return
    yield* rows
    after = rows[rows.length - 1].key
  }
}
