import { and, asc, count, eq, gte, inArray, isNull, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { merchants, webhookEndpointHours, webhookEndpoints } from '../schema.js'
import type { Scope } from './scope.js'

export type EndpointRow = typeof webhookEndpoints.$inferSelect

const inScope = (scope: Scope) => and(eq(webhookEndpoints.merchantId, scope.merchantId), eq(webhookEndpoints.mode, scope.mode), isNull(webhookEndpoints.deletedAt))

export async function insertEndpoint(tx: Executor, row: typeof webhookEndpoints.$inferInsert) {
  const [e] = await tx.insert(webhookEndpoints).values(row).returning()
  return e
}

/** The merchant's (not deleted) endpoint in this mode, or null. */
export async function getEndpoint(tx: Executor, scope: Scope, id: string, forUpdate = false): Promise<EndpointRow | null> {
  const q = tx.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, id), inScope(scope)))
  const [e] = forUpdate ? await q.for('update') : await q
  return e ?? null
}

export async function listEndpoints(tx: Executor, scope: Scope): Promise<EndpointRow[]> {
  return tx.select().from(webhookEndpoints).where(inScope(scope)).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
}

export async function countEndpoints(tx: Executor, scope: Scope): Promise<number> {
  const [r] = await tx.select({ n: count() }).from(webhookEndpoints).where(inScope(scope))
  return r.n
}

export async function updateEndpoint(tx: Executor, id: string, patch: Partial<typeof webhookEndpoints.$inferInsert>) {
  const [e] = await tx.update(webhookEndpoints).set(patch).where(eq(webhookEndpoints.id, id)).returning()
  return e
}

/** Serialises endpoint creation per merchant (the per-mode limit); false when there is no such merchant. */
export async function lockMerchant(tx: Executor, merchantId: string): Promise<boolean> {
  const rows = await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for('update')
  return rows.length > 0
}

/**
 * Delivered and failed attempts per endpoint since `since` (an hour boundary), from the hourly counts
 * the delivery worker keeps: at most 24 rows an endpoint, read through the primary key.
 */
export async function attemptCounts(tx: Executor, endpointIds: string[], since: Date): Promise<Map<string, { delivered: number; failed: number }>> {
  if (endpointIds.length === 0) return new Map()
  const rows = await tx
    .select({ id: webhookEndpointHours.endpointId, delivered: sql<number>`sum(${webhookEndpointHours.delivered})::int`, failed: sql<number>`sum(${webhookEndpointHours.failed})::int` })
    .from(webhookEndpointHours)
    .where(and(inArray(webhookEndpointHours.endpointId, endpointIds), gte(webhookEndpointHours.hour, since)))
    .groupBy(webhookEndpointHours.endpointId)
  return new Map(rows.map((r) => [r.id, { delivered: r.delivered, failed: r.failed }]))
}
