/** The webhook outbox: deliveries (one per event and endpoint) and the log of their attempts. */
import { asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { rawStatement } from '../prepared.js'
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema.js'

/** NOTIFY is sent on commit only, so a worker woken by it always finds the committed rows. */
export const WEBHOOK_CHANNEL = 'till_webhooks'

/** Raw statements bypass Drizzle's column mapping, and its driver hands timestamps over as PostgreSQL text. */
function pgDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null
  if (v instanceof Date) return v
  return new Date(String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'))
}

// Runs with every event: a named statement (store/prepared.ts).
const fanOutStmt = rawStatement('deliveries_fan_out', `
    with inserted as (
      insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
      select $1, ep.id, 'pending', $2, $2, $2
      from webhook_endpoints ep
      where ep.merchant_id = $3 and ep.mode = $4 and ep.enabled and ep.deleted_at is null
        and (ep.events is null or $5 = any(ep.events))
      returning 1
    )
    select pg_notify('${WEBHOOK_CHANNEL}', '') from (select count(*) as n from inserted) c where c.n > 0`)

/** One pending delivery per enabled endpoint of the event's (merchant, mode) whose filter takes its type. */
export async function fanOut(tx: Executor, e: { id: string; merchantId: string; mode: string; type: string }, now: Date) {
  await fanOutStmt(tx, [e.id, now, e.merchantId, e.mode, e.type])
}

/**
 * Schedules an event again to the given endpoints, now: a new delivery, or the existing one reset
 * to a fresh run of the retry schedule (a worker still holding the old lease is fenced off by its token).
 */
export async function schedule(tx: Executor, eventId: string, endpointIds: string[], now: Date) {
  const { rows } = await tx.execute(sql`
    with upserted as (
      insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
      select ${eventId}, ep.id, 'pending', ${now}, ${now}, ${now} from webhook_endpoints ep where ep.id in (${sql.join(endpointIds.map((id) => sql`${id}`), sql`, `)})
      on conflict (event_id, endpoint_id) do update set
        status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at,
        leased_until = null, lease_token = null, delivered_at = null, updated_at = excluded.updated_at
      returning endpoint_id, next_attempt_at
    ), notified as (select pg_notify(${WEBHOOK_CHANNEL}, ''))
    select u.endpoint_id, u.next_attempt_at from upserted u, notified`)
  return (rows as Record<string, unknown>[]).map((r) => ({ endpointId: String(r.endpoint_id), nextAttemptAt: pgDate(r.next_attempt_at)! }))
}

export interface Claimed {
  id: number
  attempts: number
  leaseToken: string
  eventId: string
  eventType: string
  payload: string
  endpointId: string
  merchantId: string
  mode: 'test' | 'live'
  url: string
  secretEnc: string
  previousSecretEnc: string | null
  previousSecretExpiresAt: Date | null
}

function toClaimed(r: Record<string, any>): Claimed {
  return {
    id: Number(r.id),
    attempts: r.attempts,
    leaseToken: r.lease_token,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    endpointId: r.endpoint_id,
    merchantId: r.merchant_id,
    mode: r.mode,
    url: r.url,
    secretEnc: r.secret_enc,
    previousSecretEnc: r.previous_secret_enc,
    previousSecretExpiresAt: pgDate(r.previous_secret_expires_at),
  }
}

export interface AttemptOutcome {
  attemptedAt: Date
  statusCode: number | null
  latencyMs: number
  responseBody: string | null
  error: string | null
}

export interface Recorded {
  claimed: Claimed
  attempt: AttemptOutcome
  status: 'pending' | 'delivered' | 'failed'
  nextAttemptAt: Date | null
}

export interface ClaimOptions {
  leaseUntil: Date
  token: string
  limit: number
  perEndpoint: number
}

/**
 * One round trip per batch, for a worker that records what it attempted and takes the next work:
 *
 * Recording: every attempt is logged (it happened); a delivery moves on only if its worker still
 * holds the lease it claimed, so a redelivery or a lapsed lease taken over by another worker fences
 * the late result off.
 *
 * Claiming: due deliveries are leased, rows another worker holds skipped, not waited for. At most
 * `perEndpoint` deliveries of one endpoint are in flight, counted over all instances through their
 * leases (the leases this statement releases do not count; two claims at the same instant may
 * briefly exceed it), so a slow endpoint cannot take every worker slot. Candidates are chosen on a
 * plain read, more than needed, so that concurrent claims skip each other's rows and still fill up;
 * only the rows taken are locked, and re-checked. A limit of 0 only records.
 *
 * One fixed text with array parameters, so it is parsed and planned once per connection.
 */
const recordAndClaimStmt = rawStatement('deliveries_record_and_claim', `
    with input (id, token, status, next_attempt_at, attempted_at, status_code, latency_ms, response_body, error) as (
      select * from unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::int[], $8::text[], $9::text[])
    ), moved as (
      update webhook_deliveries d set status = i.status, attempts = d.attempts + 1, next_attempt_at = i.next_attempt_at,
        delivered_at = case when i.status = 'delivered' then $10::timestamptz end, leased_until = null, lease_token = null, updated_at = $10
      from input i
      where d.id = i.id and d.lease_token = i.token
      returning d.id
    ), logged as (
      insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_body, error)
      select id, attempted_at, status_code, latency_ms, response_body, error from input
    ), busy as (
      select d.endpoint_id, count(*)::int as n from webhook_deliveries d
      where d.leased_until is not null and d.leased_until > $10
        and not exists (select 1 from input i where i.id = d.id and i.token = d.lease_token)
      group by d.endpoint_id
    ), due as (
      select d.id, d.endpoint_id, d.next_attempt_at from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= $10 and (d.leased_until is null or d.leased_until <= $10)
      order by d.next_attempt_at, d.id
      limit $13::int * 4
    ), chosen as (
      select id from (
        select d.id, coalesce(b.n, 0) + row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as slot
        from due d left join busy b on b.endpoint_id = d.endpoint_id
      ) ranked
      where slot <= $14::int
    ), locked as (
      select d.id from webhook_deliveries d
      join webhook_endpoints ep on ep.id = d.endpoint_id
      where d.id in (select id from chosen) and d.status = 'pending' and (d.leased_until is null or d.leased_until <= $10)
        and ep.enabled and ep.deleted_at is null
      order by d.next_attempt_at, d.id
      limit $13::int
      for update of d skip locked
    )
    update webhook_deliveries d set leased_until = $11, lease_token = $12
    from locked, events e, webhook_endpoints ep
    where d.id = locked.id and e.id = d.event_id and ep.id = d.endpoint_id
    returning d.id, d.attempts, d.lease_token, e.id as event_id, e.type as event_type, e.payload,
      ep.id as endpoint_id, ep.merchant_id, ep.mode, ep.url, ep.secret_enc, ep.previous_secret_enc, ep.previous_secret_expires_at`)

/** Records `items` (any number, one commit) and, with `claim`, leases up to `claim.limit` due deliveries in the same statement. */
export async function recordAndClaim(tx: Executor, items: Recorded[], now: Date, claim?: ClaimOptions): Promise<Claimed[]> {
  const { rows } = await recordAndClaimStmt(tx, [
    items.map((r) => r.claimed.id), items.map((r) => r.claimed.leaseToken), items.map((r) => r.status), items.map((r) => r.nextAttemptAt),
    items.map((r) => r.attempt.attemptedAt), items.map((r) => r.attempt.statusCode), items.map((r) => r.attempt.latencyMs),
    items.map((r) => r.attempt.responseBody), items.map((r) => r.attempt.error),
    now, claim?.leaseUntil ?? now, claim?.token ?? '', claim?.limit ?? 0, claim?.perEndpoint ?? 0,
  ])
  return rows.map(toClaimed)
}

/** Leases up to `limit` due deliveries (recordAndClaim without anything to record). */
export const claimDue = (tx: Executor, o: ClaimOptions & { now: Date }) => recordAndClaim(tx, [], o.now, o)

/** Logs attempts and moves their deliveries on (recordAndClaim without a claim). */
export async function recordAttempts(tx: Executor, items: Recorded[], now: Date) {
  if (items.length) await recordAndClaim(tx, items, now)
}

/** An event's deliveries with their endpoint's URL, and every attempt, oldest first. */
export async function deliveriesOf(tx: Executor, eventId: string) {
  const deliveries = await tx
    .select({ d: webhookDeliveries, url: webhookEndpoints.url })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.eventId, eventId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
  const ids = deliveries.map((r) => r.d.id)
  const attempts = ids.length
    ? await tx.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id))
    : []
  return deliveries.map(({ d, url }) => ({ ...d, url, attemptLog: attempts.filter((a) => a.deliveryId === d.id) }))
}

/** Deliveries an endpoint will never make: on deletion they are canceled, not left pending. */
export async function cancelPending(tx: Executor, endpointId: string, now: Date) {
  await tx.execute(sql`
    update webhook_deliveries set status = 'canceled', next_attempt_at = null, leased_until = null, lease_token = null, updated_at = ${now}
    where endpoint_id = ${endpointId} and status = 'pending'`)
}

/** An endpoint's latest deliveries, newest first, with their event's type and every attempt. */
export async function deliveriesTo(tx: Executor, endpointId: string, limit: number) {
  const rows = await tx
    .select({ d: webhookDeliveries, type: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit)
  const ids = rows.map((r) => r.d.id)
  const attempts = ids.length
    ? await tx.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id))
    : []
  return rows.map(({ d, type }) => ({ ...d, eventType: type, attemptLog: attempts.filter((a) => a.deliveryId === d.id) }))
}
