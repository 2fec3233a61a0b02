import { and, eq, lte, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { records, refunds } from '../schema.js'
import type { Scope } from './scope.js'

export type RecordRow = typeof records.$inferSelect
export type RefundRow = typeof refunds.$inferSelect

export async function insertRecord(tx: Executor, row: typeof records.$inferInsert) {
  const [r] = await tx.insert(records).values(row).returning()
  return r
}

export async function getRecordBySession(tx: Executor, sessionId: string): Promise<RecordRow | null> {
  const [r] = await tx.select().from(records).where(eq(records.sessionId, sessionId))
  return r ?? null
}

export async function getRecordById(tx: Executor, id: string, forUpdate = false): Promise<RecordRow | null> {
  const q = tx.select().from(records).where(eq(records.id, id))
  const [r] = forUpdate ? await q.for('update') : await q
  return r ?? null
}

/** The merchant's record, row-locked: every refund decision on it is serialised here. */
export async function lockRecord(tx: Executor, scope: Scope, id: string): Promise<RecordRow | null> {
  const [r] = await tx
    .select()
    .from(records)
    .where(and(eq(records.id, id), eq(records.merchantId, scope.merchantId), eq(records.mode, scope.mode)))
    .for('update')
  return r ?? null
}

export async function updateRecord(tx: Executor, id: string, patch: Partial<typeof records.$inferInsert>) {
  const [r] = await tx.update(records).set(patch).where(eq(records.id, id)).returning()
  return r
}

export async function pendingRefundSum(tx: Executor, recordId: string): Promise<{ sum: number; count: number }> {
  const [row] = await tx
    .select({ sum: sql<number>`coalesce(sum(${refunds.amount}), 0)::int`, count: sql<number>`count(*)::int` })
    .from(refunds)
    .where(and(eq(refunds.recordId, recordId), eq(refunds.status, 'pending')))
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
  const [r] = await tx.insert(refunds).values(row).returning()
  return r
}

export async function getRefund(tx: Executor, id: string, forUpdate = false): Promise<RefundRow | null> {
  const q = tx.select().from(refunds).where(eq(refunds.id, id))
  const [r] = forUpdate ? await q.for('update') : await q
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
  const [r] = await tx
    .select()
    .from(refunds)
    .where(and(eq(refunds.merchantId, scope.merchantId), eq(refunds.mode, scope.mode), eq(refunds.idempotencyKey, key)))
  return r ?? null
}

export async function findRefundByProviderRef(tx: Executor, recordId: string, providerRef: string): Promise<RefundRow | null> {
  const [r] = await tx.select().from(refunds).where(and(eq(refunds.recordId, recordId), eq(refunds.providerRef, providerRef)))
  return r ?? null
}

export async function updateRefund(tx: Executor, id: string, patch: Partial<typeof refunds.$inferInsert>) {
  const [r] = await tx.update(refunds).set(patch).where(eq(refunds.id, id)).returning()
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
