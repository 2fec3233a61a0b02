/**
 * A provider report that does not match what Till asked for changes no money state: it is stored for
 * an operator, logged at warn (facts carry no secrets) and counted (provider_discrepancies_total).
 */
import type { DiscrepancyKind } from '../domain/discrepancies.js'
import { newId } from '../domain/ids.js'
import type { Tx } from '../store/db.js'
import * as repo from '../store/repos/discrepancies.js'
import type { Deps } from './deps.js'

export interface Discrepancy {
  provider: string
  providerConfigId: string | null
  merchantId?: string | null
  kind: DiscrepancyKind
  report: object
  expected: object
}

/** JSON-safe copy (dates as ISO strings, undefined dropped) of what the provider reported. */
const plain = (o: object) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>

export async function recordDiscrepancy(tx: Tx, deps: Deps, d: Discrepancy) {
  const row = await repo.insertDiscrepancy(tx, {
    id: newId('dsc'),
    provider: d.provider,
    providerConfigId: d.providerConfigId,
    merchantId: d.merchantId ?? null,
    kind: d.kind,
    report: plain(d.report),
    expected: plain(d.expected),
    createdAt: deps.clock(),
  })
  deps.log.warn({ discrepancyId: row.id, provider: d.provider, configId: d.providerConfigId, kind: d.kind, report: row.report, expected: row.expected },
    'provider report does not match what Till asked for: no money state changed, recorded for an operator')
  deps.metrics.discrepancies.inc({ provider: d.provider, kind: d.kind })
  return row
}

export function discrepancyView(r: repo.DiscrepancyRow) {
  return {
    id: r.id,
    provider: r.provider,
    providerConfigId: r.providerConfigId,
    merchantId: r.merchantId,
    kind: r.kind,
    report: r.report,
    expected: r.expected,
    createdAt: r.createdAt.toISOString(),
  }
}

/** A second payment that landed on a session already paid (a `paid_twice` report), as the merchant's console shows it. */
export interface SecondPayment {
  provider: string
  providerRef: string | null
  amount: number | null
  currency: string | null
  at: string
}

/** The session's second payments: Till keeps them and refunds none by itself (docs/integrate.md, "Changing one's mind"). */
export async function secondPayments(deps: Deps, scope: { merchantId: string }, sessionId: string): Promise<SecondPayment[]> {
  return (await repo.listPaidTwice(deps.db, scope.merchantId, sessionId)).map((r) => ({
    provider: r.provider,
    providerRef: typeof r.report.providerRef === 'string' ? r.report.providerRef : null,
    amount: typeof r.report.amount === 'number' ? r.report.amount : null,
    currency: typeof r.report.currency === 'string' ? r.report.currency : null,
    at: (typeof r.report.paidAt === 'string' ? new Date(r.report.paidAt) : r.createdAt).toISOString(),
  }))
}

export async function listDiscrepancies(deps: Deps, o: { limit: number; startingAfter?: string; merchantId?: string }) {
  const before = o.startingAfter ? await repo.getDiscrepancyUnscoped(deps.db, o.startingAfter) : undefined
  const rows = await repo.listDiscrepanciesUnscoped(deps.db, { limit: o.limit + 1, before: before ?? undefined, merchantId: o.merchantId })
  return { data: rows.slice(0, o.limit).map(discrepancyView), hasMore: rows.length > o.limit }
}
