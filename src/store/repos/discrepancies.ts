import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { discrepancies } from '../schema.js'

export type DiscrepancyRow = typeof discrepancies.$inferSelect

export async function insertDiscrepancy(tx: Executor, row: typeof discrepancies.$inferInsert): Promise<DiscrepancyRow> {
  const [r] = await tx.insert(discrepancies).values(row).returning()
  return r
}

/** The operator's list (admin API), across merchants unless one is named; newest first; `before` is the last row of the previous page. */
export async function listDiscrepanciesUnscoped(ex: Executor, o: { limit: number; before?: DiscrepancyRow; merchantId?: string }): Promise<DiscrepancyRow[]> {
  const page = o.before ? or(lt(discrepancies.createdAt, o.before.createdAt), and(eq(discrepancies.createdAt, o.before.createdAt), lt(discrepancies.id, o.before.id))) : undefined
  const merchant = o.merchantId ? eq(discrepancies.merchantId, o.merchantId) : undefined
  return ex.select().from(discrepancies).where(and(page, merchant)).orderBy(desc(discrepancies.createdAt), desc(discrepancies.id)).limit(o.limit)
}

/** Whether a `payment_amount` report of this amount and currency (either may be absent) is already stored for the attempt. */
export async function hasPaymentReport(ex: Executor, attemptId: string, amount: number | undefined, currency: string | undefined): Promise<boolean> {
  const [r] = await ex.select({ id: discrepancies.id }).from(discrepancies).where(and(
    eq(discrepancies.kind, 'payment_amount'),
    sql`${discrepancies.expected}->>'attemptId' = ${attemptId}`,
    sql`${discrepancies.report}->>'amount' is not distinct from ${amount === undefined ? null : String(amount)}::text`,
    sql`${discrepancies.report}->>'currency' is not distinct from ${currency ?? null}::text`,
  )).limit(1)
  return r !== undefined
}

/** A merchant's `paid_twice` reports for one session, oldest first. */
export async function listPaidTwice(ex: Executor, merchantId: string, sessionId: string): Promise<DiscrepancyRow[]> {
  return ex.select().from(discrepancies)
    .where(and(eq(discrepancies.merchantId, merchantId), eq(discrepancies.kind, 'paid_twice'), sql`${discrepancies.expected}->>'sessionId' = ${sessionId}`))
    .orderBy(discrepancies.createdAt, discrepancies.id)
}

/** The operator's read by id (a page's cursor): discrepancies belong to no mode, and some to no merchant. */
export async function getDiscrepancyUnscoped(ex: Executor, id: string): Promise<DiscrepancyRow | null> {
  const [r] = await ex.select().from(discrepancies).where(eq(discrepancies.id, id))
  return r ?? null
}
