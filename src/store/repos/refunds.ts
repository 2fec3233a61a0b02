/** Refunds: each one row of a payment record, read by the merchant's scope or, for the jobs and the provider's reports, by record. */
import { and, asc, eq, gte, inArray, isNull, lt, lte, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { rawStatement, tableRows, withDefaults } from '../prepared.js'
import { refunds } from '../schema.js'
import { CLAIM_SQL, claimValues, KeyTaken, type KeyClaim } from './idempotency.js'
import { before, newestFirst, toPage, type Cursor } from './page.js'
import type { Scope } from './scope.js'

export type RefundRow = typeof refunds.$inferSelect

// The refund path's statements as plain SQL (store/prepared.ts): rows mapped by tableRows, and
// writes without RETURNING where the caller already holds the row they leave (its lock, its values).
const refundRows = tableRows(refunds)
const sumsStmt = rawStatement<{ succeeded: number; pendingSum: number; pendingCount: number }>('refund_sums_row', `select
  coalesce(sum(amount) filter (where status = 'succeeded'), 0)::int as "succeeded",
  coalesce(sum(amount) filter (where status = 'pending'), 0)::int as "pendingSum",
  (count(*) filter (where status = 'pending'))::int as "pendingCount"
  from refunds where record_id = $1`)
const pendingSumStmt = rawStatement<{ sum: number; count: number }>('refund_pending_sum_row',
  `select coalesce(sum(amount), 0)::int as sum, count(*)::int as count from refunds where record_id = $1 and status = 'pending'`)
const refundInsertStmt = rawStatement('refund_insert_row', `insert into refunds (${refundRows.columns}) values (${refundRows.placeholders})`)
const refundStmt = rawStatement('refund_get_row', `select ${refundRows.columns} from refunds where id = $1`)
const refundLockStmt = rawStatement('refund_get_row_for_update', `select ${refundRows.columns} from refunds where id = $1 for update`)
const refundByKeyStmt = rawStatement('refund_by_idempotency_key_row', `select ${refundRows.columns} from refunds where merchant_id = $1 and mode = $2 and idempotency_key = $3`)
const refundOutcomeStmt = rawStatement('refund_set_outcome_row',
  'update refunds set status = $2, provider_ref = $3, failure_reason = $4, next_check_at = null, updated_at = $5 where id = $1')
const providerPendingStmt = rawStatement('refund_set_provider_pending_row', 'update refunds set provider_pending = true, provider_ref = $2, updated_at = $3 where id = $1')

export async function pendingRefundSum(tx: Executor, recordId: string): Promise<{ sum: number; count: number }> {
  return (await pendingSumStmt(tx, [recordId])).rows[0]
}

/** Succeeded and pending refunds of a record, summed in one statement. */
export async function refundSums(tx: Executor, recordId: string): Promise<{ succeeded: number; pendingSum: number; pendingCount: number }> {
  return (await sumsStmt(tx, [recordId])).rows[0]
}

export async function succeededRefundSum(tx: Executor, recordId: string): Promise<number> {
  const [row] = await tx
    .select({ sum: sql<number>`coalesce(sum(${refunds.amount}), 0)::int` })
    .from(refunds)
    .where(and(eq(refunds.recordId, recordId), eq(refunds.status, 'succeeded')))
  return row.sum
}

/** Inserts a refund, every column given (the ones a caller leaves out take the schema's defaults here), and answers the row stored. */
export async function insertRefund(tx: Executor, row: typeof refunds.$inferInsert): Promise<RefundRow> {
  const now = new Date()
  const r = withDefaults<RefundRow>({
    providerRef: null, reason: null, initiatedBy: 'merchant', idempotencyKey: null, providerPending: false, failureReason: null,
    nextCheckAt: null, checks: 0, createdAt: now, updatedAt: now,
  }, row as RefundRow)
  await refundInsertStmt(tx, refundRows.values(r))
  return r
}

export async function getRefundUnscoped(tx: Executor, id: string, forUpdate = false): Promise<RefundRow | null> {
  return refundRows.first(await (forUpdate ? refundLockStmt : refundStmt)(tx, [id]))
}

export async function getRefund(tx: Executor, scope: Scope, id: string): Promise<RefundRow | null> {
  const [r] = await tx
    .select()
    .from(refunds)
    .where(and(eq(refunds.id, id), eq(refunds.merchantId, scope.merchantId), eq(refunds.mode, scope.mode)))
  return r ?? null
}

export async function findRefundByIdempotencyKey(tx: Executor, scope: Scope, key: string): Promise<RefundRow | null> {
  return refundRows.first(await refundByKeyStmt(tx, [scope.merchantId, scope.mode, key]))
}

// An Idempotency-Key claimed in flight (store/repos/idempotency.ts), the refund an earlier use of the
// key made, and the record's pending refunds summed, in one statement: a keyed refund's reservation
// runs as many statements as one without a key. The lookup needs no lock of its own: while this
// transaction holds the key's claim, no other request can use the key; the sum is the record's,
// locked by the caller (its snapshot is taken after the lock was granted).
const claimFindingStmt = rawStatement('refund_claim_key_finding_refund', `with claim as (${CLAIM_SQL})
  select (select count(*) from claim)::int as claimed, p.pending_sum, p.pending_count, r.*
  from (select coalesce(sum(amount), 0)::int as pending_sum, count(*)::int as pending_count from refunds where record_id = $9 and status = 'pending') p
  left join refunds r on r.merchant_id = $1 and r.mode = $2 and r.idempotency_key = $3`)

/**
 * Claims the key in flight; throws KeyTaken when it is another request's. Returns the refund the key
 * made before, if any, and the record's pending refunds (pendingRefundSum).
 */
export async function claimKeyFindingRefund(tx: Executor, claim: KeyClaim, recordId: string): Promise<{ earlier: RefundRow | null; pending: { sum: number; count: number } }> {
  const { rows: [row] } = await claimFindingStmt(tx, [...claimValues(claim, null), recordId])
  if (!row.claimed) throw new KeyTaken()
  return { earlier: row.id ? refundRows.map(row) : null, pending: { sum: row.pending_sum, count: row.pending_count } }
}

export async function findRefundByProviderRef(tx: Executor, recordId: string, providerRef: string): Promise<RefundRow | null> {
  const [r] = await tx.select().from(refunds).where(and(eq(refunds.recordId, recordId), eq(refunds.providerRef, providerRef)))
  return r ?? null
}

/**
 * A merchant's refund of this amount that the provider has not named yet: pending (its answer in
 * flight, lost, or without an id), or already settled by an id-less answer the same way the
 * provider now reports it.
 */
export async function findUnanswered(tx: Executor, recordId: string, amount: number, status: RefundRow['status']): Promise<RefundRow | null> {
  const [r] = await tx
    .select()
    .from(refunds)
    .where(and(eq(refunds.recordId, recordId), inArray(refunds.status, ['pending', status]), isNull(refunds.providerRef), eq(refunds.initiatedBy, 'merchant'), eq(refunds.amount, amount)))
    .orderBy(asc(refunds.createdAt))
    .limit(1)
  return r ?? null
}

export async function updateRefund(tx: Executor, id: string, patch: Partial<typeof refunds.$inferInsert>) {
  const [r] = await tx.update(refunds).set(patch).where(eq(refunds.id, id)).returning()
  return r
}

/** A refund settled: its status and the provider's reference and reason, no further checks. The caller holds its lock. */
export async function setRefundOutcome(tx: Executor, refund: RefundRow, o: { status: RefundRow['status']; providerRef: string | null; failureReason: string | null; updatedAt: Date }): Promise<RefundRow> {
  await refundOutcomeStmt(tx, [refund.id, o.status, o.providerRef, o.failureReason, o.updatedAt])
  return Object.assign({}, refund, o, { nextCheckAt: null })
}

/** The provider answered `pending`: the refund waits on it (see settleLocked). The caller holds its lock. */
export async function setProviderPending(tx: Executor, refund: RefundRow, providerRef: string | null, updatedAt: Date): Promise<RefundRow> {
  await providerPendingStmt(tx, [refund.id, providerRef, updatedAt])
  return Object.assign({}, refund, { providerPending: true, providerRef, updatedAt })
}

/** Pending refunds whose next check is due, leased with SKIP LOCKED. */
export async function claimDueRefunds(tx: Executor, now: Date, limit: number): Promise<RefundRow[]> {
  return tx
    .select()
    .from(refunds)
    .where(and(eq(refunds.status, 'pending'), lte(refunds.nextCheckAt, now)))
    .limit(limit)
    .for('update', { skipLocked: true })
}

/** The refunds of these records, newest first, in one query. */
export async function refundsOfRecords(tx: Executor, recordIds: string[]): Promise<RefundRow[]> {
  if (recordIds.length === 0) return []
  return tx.select().from(refunds).where(inArray(refunds.recordId, recordIds)).orderBy(...newestFirst(refunds.createdAt, refunds.id))
}

export interface RefundFilters {
  recordId?: string
  createdGte?: Date
  createdLt?: Date
}

/** One page of a merchant's refunds, newest first (exported for the plan test). */
export function refundPageQuery(tx: Executor, scope: Scope, f: RefundFilters, after: Cursor | undefined, limit: number) {
  return tx.select().from(refunds).where(and(
    eq(refunds.merchantId, scope.merchantId),
    eq(refunds.mode, scope.mode),
    f.recordId !== undefined ? eq(refunds.recordId, f.recordId) : undefined,
    f.createdGte ? gte(refunds.createdAt, f.createdGte) : undefined,
    f.createdLt ? lt(refunds.createdAt, f.createdLt) : undefined,
    before(refunds.createdAt, refunds.id, after),
  )).orderBy(...newestFirst(refunds.createdAt, refunds.id)).limit(limit + 1)
}

export async function listRefunds(tx: Executor, scope: Scope, f: RefundFilters, after: Cursor | undefined, limit: number) {
  return toPage(await refundPageQuery(tx, scope, f, after, limit), limit)
}
