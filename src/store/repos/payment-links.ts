/** Payment links (services/payment-links.ts), scoped by merchant and mode; the page's reads are `…Unscoped`. */
import { and, eq, gt, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { paymentLinks } from '../schema-payment-links.js'
import { sessions } from '../schema.js'
import { before, newestFirst, toPage, type Cursor } from './page.js'
import type { Scope } from './scope.js'

export type PaymentLinkRow = typeof paymentLinks.$inferSelect

const scoped = (scope: Scope, id: string) => and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, scope.merchantId), eq(paymentLinks.mode, scope.mode))

export async function insertPaymentLink(tx: Executor, row: typeof paymentLinks.$inferInsert): Promise<PaymentLinkRow> {
  const [r] = await tx.insert(paymentLinks).values(row).returning()
  return r
}

export async function getPaymentLink(tx: Executor, scope: Scope, id: string): Promise<PaymentLinkRow | null> {
  const [r] = await tx.select().from(paymentLinks).where(scoped(scope, id))
  return r ?? null
}

/** By id alone, for the link's page; `forUpdate` serialises the buyers of one link. */
export async function getPaymentLinkUnscoped(tx: Executor, id: string, forUpdate = false): Promise<PaymentLinkRow | null> {
  const q = tx.select().from(paymentLinks).where(eq(paymentLinks.id, id))
  const [r] = forUpdate ? await q.for('update') : await q
  return r ?? null
}

export async function updatePaymentLink(tx: Executor, scope: Scope, id: string, patch: Partial<typeof paymentLinks.$inferInsert>, now: Date) {
  const [r] = await tx.update(paymentLinks).set({ ...patch, updatedAt: now }).where(scoped(scope, id)).returning()
  return r ?? null
}

export async function listPaymentLinks(tx: Executor, scope: Scope, after: Cursor | undefined, limit: number) {
  const rows = await tx.select().from(paymentLinks)
    .where(and(eq(paymentLinks.merchantId, scope.merchantId), eq(paymentLinks.mode, scope.mode), before(paymentLinks.createdAt, paymentLinks.id, after)))
    .orderBy(...newestFirst(paymentLinks.createdAt, paymentLinks.id)).limit(limit + 1)
  return toPage(rows, limit)
}

/**
 * The link's sessions still open at `now`. Read through the partial index of open sessions by expiry
 * (sessions_open_expiry_idx), so it costs the open sessions, never the link's history.
 */
export async function openLinkSessions(tx: Executor, linkId: string, now: Date): Promise<number> {
  const [r] = await tx.select({ n: sql<number>`count(*)::int` }).from(sessions)
    .where(and(inArray(sessions.status, ['pending', 'processing']), gt(sessions.expiresAt, now), eq(sessions.paymentLinkId, linkId)))
  return r.n
}

/** One more of the link's sessions is paid: in the transaction that marks it paid (services/payments.ts). */
export async function countLinkPayment(tx: Executor, linkId: string) {
  await tx.update(paymentLinks).set({ paidCount: sql`${paymentLinks.paidCount} + 1` }).where(eq(paymentLinks.id, linkId))
}
