/** What the console shows happened: its activity log, and a payment's timeline of events and deliveries. */
import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consoleActivity, consoleMembers } from '../schema-console.js'
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema.js'
import type { Scope } from './scope.js'

export type ActivityRow = typeof consoleActivity.$inferSelect

export async function insertActivity(tx: Executor, row: typeof consoleActivity.$inferInsert) {
  // The one unique index (a refund's entry) makes a repeat a no-op.
  await tx.insert(consoleActivity).values(row).onConflictDoNothing()
}

/** Whose entries: a mode's (with those that have none, as the console shows them), or `every` mode's (the admin API). */
export interface ActivityScope {
  merchantId: string
  mode: 'test' | 'live' | 'every'
}

export interface ActivityFilter {
  memberId?: string
  action?: string
  /** created_at ≥ since, < until. */
  since?: Date
  until?: Date
}

/**
 * Newest first, keyset on id (console_activity_merchant_idx, or the member or action index when
 * filtered): `startingAfter` pages to older entries, `endingBefore` to newer ones.
 */
export async function listActivity(tx: Executor, scope: ActivityScope, filter: ActivityFilter, page: { limit: number; startingAfter?: number; endingBefore?: number }) {
  const newer = page.endingBefore !== undefined && page.startingAfter === undefined
  const rows = await tx.select().from(consoleActivity)
    .where(and(
      eq(consoleActivity.merchantId, scope.merchantId),
      scope.mode === 'every' ? undefined : or(eq(consoleActivity.mode, scope.mode), isNull(consoleActivity.mode)),
      filter.memberId !== undefined ? eq(consoleActivity.memberId, filter.memberId) : undefined,
      filter.action !== undefined ? eq(consoleActivity.action, filter.action) : undefined,
      filter.since !== undefined ? gte(consoleActivity.createdAt, filter.since) : undefined,
      filter.until !== undefined ? lt(consoleActivity.createdAt, filter.until) : undefined,
      page.startingAfter !== undefined ? lt(consoleActivity.id, page.startingAfter) : undefined,
      page.endingBefore !== undefined ? gt(consoleActivity.id, page.endingBefore) : undefined,
    ))
    .orderBy(newer ? asc(consoleActivity.id) : desc(consoleActivity.id))
    .limit(page.limit + 1)
  const kept = rows.slice(0, page.limit)
  return { rows: newer ? kept.reverse() : kept, hasMore: rows.length > page.limit }
}

/** Every member the merchant has had, removed ones too (the log still names them), for the member filter. */
export const membersEver = (tx: Executor, merchantId: string) =>
  tx.select({ id: consoleMembers.id, email: consoleMembers.email, removedAt: consoleMembers.removedAt }).from(consoleMembers)
    .where(eq(consoleMembers.merchantId, merchantId)).orderBy(asc(consoleMembers.email), asc(consoleMembers.id))

/** Entries older than `before`, in batches so no one statement holds many row locks; how many went. */
export async function purgeActivity(tx: Executor, before: Date, batch = 5000) {
  let total = 0
  for (;;) {
    const { rowCount } = await tx.execute(sql`delete from ${consoleActivity} where ${consoleActivity.id} in
      (select id from ${consoleActivity} where ${consoleActivity.createdAt} < ${before} limit ${batch})`)
    total += rowCount ?? 0
    if ((rowCount ?? 0) < batch) return total
  }
}

/** What a payment's timeline shows of an event's delivery: where, its state, how often tried, the last answer. */
export interface DeliverySummary {
  url: string
  status: string
  attempts: number
  last: { statusCode: number | null; error: string | null } | null
}

/**
 * A payment's timeline: the events naming its session, oldest first (events_session_idx, at most
 * 200), each with its deliveries summed up. Two queries however many events: the page must not take
 * the pool that every merchant's API shares.
 */
export async function timelineOfSession(tx: Executor, scope: Scope, sessionId: string) {
  const rows = await tx.select({ id: events.id, type: events.type, createdAt: events.createdAt }).from(events)
    .where(and(eq(events.merchantId, scope.merchantId), eq(events.mode, scope.mode), sql`(${events.data}->>'sessionId') = ${sessionId}`))
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(200)
  const deliveries = rows.length === 0 ? [] : await tx.select({
    eventId: webhookDeliveries.eventId,
    url: webhookEndpoints.url,
    status: webhookDeliveries.status,
    attempts: sql<number>`(select count(*)::int from ${webhookAttempts} a where a.delivery_id = ${webhookDeliveries.id})`,
    last: sql<DeliverySummary['last']>`(select json_build_object('statusCode', a.status_code, 'error', a.error) from ${webhookAttempts} a
      where a.delivery_id = ${webhookDeliveries.id} order by a.attempted_at desc, a.id desc limit 1)`,
  }).from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(inArray(webhookDeliveries.eventId, rows.map((e) => e.id)))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
  const byEvent = new Map(rows.map((e) => [e.id, [] as DeliverySummary[]]))
  for (const { eventId, ...d } of deliveries) byEvent.get(eventId)!.push(d)
  return rows.map((e) => ({ ...e, deliveries: byEvent.get(e.id)! }))
}
