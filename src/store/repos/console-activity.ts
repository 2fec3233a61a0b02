/** What the console shows happened: its activity log, and a payment's timeline of events and deliveries. */
import { and, asc, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consoleActivity, events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema.js'
import type { Scope } from './scope.js'

export type ActivityRow = typeof consoleActivity.$inferSelect

export async function insertActivity(tx: Executor, row: typeof consoleActivity.$inferInsert) {
  // The one unique index (a refund's entry) makes a repeat a no-op.
  await tx.insert(consoleActivity).values(row).onConflictDoNothing()
}

/** Newest first, the entries of this mode and those that have none; keyset on id. */
export async function listActivity(tx: Executor, scope: Scope, opts: { limit: number; before?: number }) {
  const rows = await tx.select().from(consoleActivity)
    .where(and(
      eq(consoleActivity.merchantId, scope.merchantId),
      or(eq(consoleActivity.mode, scope.mode), isNull(consoleActivity.mode)),
      opts.before !== undefined ? lt(consoleActivity.id, opts.before) : undefined,
    ))
    .orderBy(desc(consoleActivity.id))
    .limit(opts.limit + 1)
  return { rows: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit }
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
