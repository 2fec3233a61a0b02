import { and, eq } from 'drizzle-orm'
import type { EventType } from '../../domain/events.js'
import { newId } from '../../domain/ids.js'
import { eventPayload } from '../../domain/webhooks.js'
import type { Executor } from '../db.js'
import { rawStatement } from '../prepared.js'
import { events } from '../schema.js'
import { activeTraceparent } from '../../tracing/tracer.js'
import { FAN_OUT_SQL } from './deliveries.js'
import { answerSql, answerValues, type KeyAnswer } from './idempotency.js'
import { before, newestFirst, toPage } from './page.js'
import type { Scope } from './scope.js'

export type EventRow = typeof events.$inferSelect

// Every state change appends one, as plain SQL (store/prepared.ts): the row is the one given, no RETURNING;
// its deliveries are inserted by the same statement.
const INSERT_SQL = 'insert into events (id, merchant_id, mode, type, data, payload, created_at, traceparent) values ($1, $2, $3, $4, $5, $6, $7, $8)'
const insertStmt = rawStatement('event_insert_row', INSERT_SQL)
const insertFanningOutStmt = rawStatement('event_insert_fanning_out', `with event as (${INSERT_SQL}), ${FAN_OUT_SQL}`)
// The same, storing an Idempotency-Key's answer too (a keyed refund's settlement): no statement of its
// own. The answer's parameters follow the event's.
const insertAnsweringStmt = rawStatement('event_insert_fanning_out_answering_key',
  `with answer as (${answerSql(INSERT_SQL.match(/\$\d+/g)!.length + 1)}), event as (${INSERT_SQL}), ${FAN_OUT_SQL}`)
const refundEventStmt = rawStatement('event_of_refund', `select 1 from events
  where merchant_id = $1 and mode = $2 and data->>'sessionId' = $3 and type = $4 and data->>'refundId' = $5 limit 1`)

/**
 * Appends an event to the outbox, with one pending delivery per matching endpoint. Call it inside
 * the transaction of the change it describes: the change, its event and its deliveries commit
 * together; with `answer`, the request's Idempotency-Key answered as well (services/idempotency.ts).
 */
export async function appendEvent(tx: Executor, scope: Scope, type: EventType, data: Record<string, unknown>, now: Date, opts: { fanOut?: boolean; answer?: KeyAnswer | null } = {}) {
  const id = newId('evt')
  const payload = eventPayload({ id, type, mode: scope.mode, data, createdAt: now })
  const e: EventRow = { id, merchantId: scope.merchantId, mode: scope.mode, type, data, payload, createdAt: now, traceparent: activeTraceparent() }
  const values = [id, e.merchantId, e.mode, type, JSON.stringify(data), payload, now, e.traceparent]
  // A console test event goes only to the endpoint it was sent to (deliveries.schedule).
  if (opts.fanOut === false) await insertStmt(tx, values)
  else if (opts.answer) await insertAnsweringStmt(tx, [...values, ...answerValues(opts.answer)])
  else await insertFanningOutStmt(tx, values)
  return e
}

/** Whether a refund's event of `type` was appended (found through its session's events: events_session_idx). */
export async function hasRefundEvent(tx: Executor, scope: Scope, sessionId: string, type: EventType, refundId: string) {
  const { rowCount } = await refundEventStmt(tx, [scope.merchantId, scope.mode, sessionId, type, refundId])
  return rowCount === 1
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
