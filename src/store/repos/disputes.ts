/** Disputes of payment records (schema-disputes.ts): written under the record's lock, read by the merchant's scope. */
import { and, asc, eq } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { disputes } from '../schema-disputes.js'
import type { Scope } from './scope.js'

export type DisputeRow = typeof disputes.$inferSelect

export async function getRecordDisputeUnscoped(tx: Executor, recordId: string, providerRef: string): Promise<DisputeRow | null> {
  const [d] = await tx.select().from(disputes).where(and(eq(disputes.recordId, recordId), eq(disputes.providerRef, providerRef)))
  return d ?? null
}

export async function insertDispute(tx: Executor, row: typeof disputes.$inferInsert): Promise<DisputeRow> {
  const [d] = await tx.insert(disputes).values(row).returning()
  return d
}

export async function updateDispute(tx: Executor, id: string, patch: Partial<Pick<DisputeRow, 'status' | 'reason' | 'amount' | 'dueBy' | 'closedAt' | 'updatedAt'>>): Promise<DisputeRow> {
  const [d] = await tx.update(disputes).set(patch).where(eq(disputes.id, id)).returning()
  return d
}

/** A record's disputes, oldest first, within the merchant's scope. */
export async function listRecordDisputes(ex: Executor, scope: Scope, recordId: string): Promise<DisputeRow[]> {
  return ex.select().from(disputes)
    .where(and(eq(disputes.recordId, recordId), eq(disputes.merchantId, scope.merchantId), eq(disputes.mode, scope.mode)))
    .orderBy(asc(disputes.createdAt), asc(disputes.id))
}
