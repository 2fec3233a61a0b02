/** Refunds: each one row of a payment record, read by the merchant's scope or, for the jobs and the provider's reports, by record. */
import { and, asc, eq, gte, inArray, isNull, lt, lte, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { rawStatement, setTo, statement, tableRows, withDefaults } from '../prepared.js'
import { refunds } from '../schema.js'
import { CLAIM_SQL, claimValues, KeyTaken, type KeyClaim } from './idempotency.js'
import { before, newestFirst, toPage, type Cursor } from './page.js'
import type { Scope } from './scope.js'

export type RefundRow = typeof refunds.$inferSelect

const p = sql.placeholder
/** A timestamp placeholder that may be null: Drizzle's encoder would call toISOString on it, pg sends a Date or NULL as it is. */
const maybeTime = (name: string) => sql`${sql.placeholder(name)}`
// The hot paths' statements (refunds and their settlement), built once: see store/prepared.ts.
const sumsStmt = statement('refund_sums', (ex) => ex.select({
  succeeded: sql<number>`coalesce(sum(${refunds.amount}) filter (where ${refunds.status} = 'succeeded'), 0)::int`,
  pendingSum: sql<number>`coalesce(sum(${refunds.amount}) filter (where ${refunds.status} = 'pending'), 0)::int`,
  pendingCount: sql<number>`(count(*) filter (where ${refunds.status} = 'pending'))::int`,
}).from(refunds).where(eq(refunds.recordId, p('recordId'))))
const pendingSumStmt = statement('refund_pending_sum', (ex) => ex
  .select({ sum: sql<number>`coalesce(sum(${refunds.amount}), 0)::int`, count: sql<number>`count(*)::int` })
  .from(refunds).where(and(eq(refunds.recordId, p('recordId')), eq(refunds.status, 'pending'))))
const refundInsertStmt = statement('refund_insert', (ex) => ex.insert(refunds).values({
  id: p('id'), recordId: p('recordId'), merchantId: p('merchantId'), mode: p('mode'), amount: p('amount'), status: p('status'),
  providerRef: p('providerRef'), reason: p('reason'), initiatedBy: p('initiatedBy'), idempotencyKey: p('idempotencyKey'),
  providerPending: p('providerPending'), failureReason: p('failureReason'), nextCheckAt: maybeTime('nextCheckAt'), checks: p('checks'),
  createdAt: p('createdAt'), updatedAt: p('updatedAt'),
}).returning())
const refundStmt = statement('refund_get', (ex) => ex.select().from(refunds).where(eq(refunds.id, p('id'))))
const refundLockStmt = statement('refund_get_for_update', (ex) => ex.select().from(refunds).where(eq(refunds.id, p('id'))).for('update'))
const refundByKeyStmt = statement('refund_by_idempotency_key', (ex) => ex.select().from(refunds)
  .where(and(eq(refunds.merchantId, p('merchantId')), eq(refunds.mode, p('mode')), eq(refunds.idempotencyKey, p('key')))))
const refundOutcomeStmt = statement('refund_set_outcome', (ex) => ex.update(refunds).set({
  status: setTo<RefundRow['status']>('status'), providerRef: setTo<string | null>('providerRef'), failureReason: setTo<string | null>('failureReason'),
  nextCheckAt: null, updatedAt: setTo<Date>('updatedAt'),
}).where(eq(refunds.id, p('id'))).returning())

export async function pendingRefundSum(tx: Executor, recordId: string): Promise<{ sum: number; count: number }> {
  const [row] = await pendingSumStmt(tx, { recordId })
  return row
}

/** Succeeded and pending refunds of a record, summed in one statement. */
export async function refundSums(tx: Executor, recordId: string): Promise<{ succeeded: number; pendingSum: number; pendingCount: number }> {
  const [row] = await sumsStmt(tx, { recordId })
  return row
}

export async function succeededRefundSum(tx: Executor, recordId: string): Promise<number> {
  const [row] = await tx
    .select({ sum: sql<number>`coalesce(sum(${refunds.amount}), 0)::int` })
    .from(refunds)
    .where(and(eq(refunds.recordId, recordId), eq(refunds.status, 'succeeded')))
  return row.sum
}

export async function insertRefund(tx: Executor, row: typeof refunds.$inferInsert) {
  // Every column is a parameter of the prepared INSERT: the ones a caller leaves out take the schema's defaults here.
  const now = new Date()
  const [r] = await refundInsertStmt(tx, withDefaults({
    providerRef: null, reason: null, initiatedBy: 'merchant', idempotencyKey: null, providerPending: false, failureReason: null,
    nextCheckAt: null, checks: 0, createdAt: now, updatedAt: now,
  }, row))
  return r
}

export async function getRefundUnscoped(tx: Executor, id: string, forUpdate = false): Promise<RefundRow | null> {
  const [r] = await (forUpdate ? refundLockStmt : refundStmt)(tx, { id })
  return r ?? null
}

export async function getRefundScoped(tx: Executor, scope: Scope, id: string): Promise<RefundRow | null> {
  const [r] = await tx
    .select()
    .from(refunds)
    .where(and(eq(refunds.id, id), eq(refunds.merchantId, scope.merchantId), eq(refunds.mode, scope.mode)))
  return r ?? null
}

export async function findRefundByIdempotencyKey(tx: Executor, scope: Scope, key: string): Promise<RefundRow | null> {
  const [r] = await refundByKeyStmt(tx, { merchantId: scope.merchantId, mode: scope.mode, key })
  return r ?? null
}

// An Idempotency-Key claimed in flight (store/repos/idempotency.ts) and the refund an earlier use of
// the key made, in one statement: a keyed refund's reservation saves a round trip. The lookup needs no
// lock of its own: while this transaction holds the key's claim, no other request can use the key.
const refundRows = tableRows(refunds)
const claimFindingStmt = rawStatement('refund_claim_key_finding_refund', `with claim as (${CLAIM_SQL})
  select (select count(*) from claim)::int as claimed, r.*
  from (select 1) one left join refunds r on r.merchant_id = $1 and r.mode = $2 and r.idempotency_key = $3`)

/** Claims the key in flight; throws KeyTaken when it is another request's. Returns the refund the key made before, if any. */
export async function claimKeyFindingRefund(tx: Executor, claim: KeyClaim): Promise<RefundRow | null> {
  const { rows: [row] } = await claimFindingStmt(tx, claimValues(claim, null))
  if (!row.claimed) throw new KeyTaken()
  return row.id ? refundRows.map(row) : null
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

/** A refund settled: its status and the provider's reference and reason, no further checks. */
export async function setRefundOutcome(tx: Executor, id: string, o: { status: RefundRow['status']; providerRef: string | null; failureReason: string | null; updatedAt: Date }): Promise<RefundRow> {
  const [r] = await refundOutcomeStmt(tx, { id, ...o })
  return r
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
