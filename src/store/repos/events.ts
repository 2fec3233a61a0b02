import { and, eq, sql } from 'drizzle-orm'
import type { EventType } from '../../domain/events.js'
import { newId } from '../../domain/ids.js'
import { eventPayload } from '../../domain/webhooks.js'
import type { Executor } from '../db.js'
import { statement } from '../prepared.js'
import { events } from '../schema.js'
import { fanOut } from './deliveries.js'
import { before, newestFirst, toPage } from './page.js'
import type { Scope } from './scope.js'

export type EventRow = typeof events.$inferSelect

const p = sql.placeholder
// Every state change appends one: built once (store/prepared.ts).
const insertStmt = statement('event_insert', (ex) => ex.insert(events).values({
  id: p('id'), merchantId: p('merchantId'), mode: p('mode'), type: p('type'), data: p('data'), payload: p('payload'), createdAt: p('createdAt'),
}).returning())

/**
 * Appends an event to the outbox, with one pending delivery per matching endpoint. Call it inside
 * the transaction of the change it describes: the change, its event and its deliveries commit together.
 */
export async function appendEvent(tx: Executor, scope: Scope, type: EventType, data: Record<string, unknown>, now: Date, opts: { fanOut?: boolean } = {}) {
  const id = newId('evt')
  const payload = eventPayload({ id, type, mode: scope.mode, data, createdAt: now })
  const [e] = await insertStmt(tx, { id, merchantId: scope.merchantId, mode: scope.mode, type, data, payload, createdAt: now })
  // A console test event goes only to the endpoint it was sent to (deliveries.schedule).
  if (opts.fanOut !== false) await fanOut(tx, e, now)
  return e
}

/** Whether a refund's event of `type` was appended (found through its session's events: events_session_idx). */
export async function hasRefundEvent(tx: Executor, scope: Scope, sessionId: string, type: EventType, refundId: string) {
  const found = await tx.select({ id: events.id }).from(events).where(and(
    eq(events.merchantId, scope.merchantId), eq(events.mode, scope.mode), sql`${events.data}->>'sessionId' = ${sessionId}`,
    eq(events.type, type), sql`${events.data}->>'refundId' = ${refundId}`,
  )).limit(1)
  return found.length > 0
}

export async function getEvent(tx: Executor, scope: Scope, id: string): Promise<EventRow | null> {
  const [e] = await tx.select().from(events).where(and(eq(events.id, id), eq(events.merchantId, scope.merchantId), eq(events.mode, scope.mode)))
  return e ?? null
}

/** Newest first; `after` is the last event of the previous page. One more than asked tells whether there is more. */
export async function listEvents(tx: Executor, scope: Scope, opts: { limit: number; type?: string; after?: EventRow }) {
  const rows = await tx
    .select()
    .from(events)
    .where(and(
      eq(events.merchantId, scope.merchantId),
      eq(events.mode, scope.mode),
      opts.type ? eq(events.type, opts.type) : undefined,
      before(events.createdAt, events.id, opts.after),
    ))
    .orderBy(...newestFirst(events.createdAt, events.id))
    .limit(opts.limit + 1)
  return toPage(rows, opts.limit)
}
