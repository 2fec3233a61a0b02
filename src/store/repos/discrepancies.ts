import { and, desc, eq, lt, or } from 'drizzle-orm'
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

/** The operator's read by id (a page's cursor): discrepancies belong to no mode, and some to no merchant. */
export async function getDiscrepancyUnscoped(ex: Executor, id: string): Promise<DiscrepancyRow | null> {
  const [r] = await ex.select().from(discrepancies).where(eq(discrepancies.id, id))
  return r ?? null
}
