/** The webhook outbox: deliveries (one per event and endpoint) and the log of their attempts. */
import { asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { rawStatement } from '../prepared.js'
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints, type PreviousSecret } from '../schema.js'

/** NOTIFY is sent on commit only, so a worker woken by it always finds the committed rows. */
export const WEBHOOK_CHANNEL = 'till_webhooks'

/** Raw statements bypass Drizzle's column mapping, and its driver hands timestamps over as PostgreSQL text. */
function pgDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null
  if (v instanceof Date) return v
  return new Date(String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'))
}

/**
 * One pending delivery per enabled endpoint of the event's (merchant, mode) whose filter takes its
 * type, and the workers woken when there is any: the tail of the statement that appends the event
 * (repos/events.ts, one round trip for both), whose $1 is the event's id, $2 its merchant, $3 its
 * mode, $4 its type and $7 its time.
 */
export const FAN_OUT_SQL = `inserted as (
      insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
      select $1, ep.id, 'pending', $7, $7, $7
      from webhook_endpoints ep
      where ep.merchant_id = $2 and ep.mode = $3 and ep.enabled and ep.deleted_at is null
        and (ep.events is null or $4 = any(ep.events))
      returning 1
    )
    select pg_notify('${WEBHOOK_CHANNEL}', '') from (select count(*) as n from inserted) c where c.n > 0`

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
  /** The W3C traceparent of the span that appended the event, if it was traced. */
  traceparent: string | null
  endpointId: string
  merchantId: string
  mode: 'test' | 'live'
  url: string
  secretEnc: string
  previousSecrets: PreviousSecret[]
}

function toClaimed(r: Record<string, any>): Claimed {
  return {
    id: Number(r.id),
    attempts: r.attempts,
    leaseToken: r.lease_token,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    traceparent: r.traceparent,
    endpointId: r.endpoint_id,
    merchantId: r.merchant_id,
    mode: r.mode,
    url: r.url,
    secretEnc: r.secret_enc,
    previousSecrets: r.previous_secrets,
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
 * Each endpoint's health, from the attempts being recorded (docs/integrate.md#endpoint-health). A
 * success later than the endpoint's last failure ends its failing run; failures extend it (or start
 * one after the batch's last success). An enabled endpoint whose run began at least $16 ms ago
 * (0: never) with at least $17 failures is disabled, with an entry in the console's activity log.
 * The new values are computed in the SET from the row as locked (not from a snapshot read earlier
 * in the statement), so two instances recording for one endpoint at once never lose a count. The
 * hourly counts behind the recent success rate keep the last 48 hours.
 */
const HEALTH = `outcome as (
      select endpoint_id, attempted_at, status = 'delivered' as ok, coalesce('HTTP ' || status_code, error, 'no answer') as reason
      from input
    ), per_endpoint as (
      select endpoint_id, max(attempted_at) filter (where ok) as last_ok, max(attempted_at) filter (where not ok) as last_fail,
        min(attempted_at) filter (where not ok) as first_fail, count(*) filter (where not ok)::int as failures,
        (array_agg(reason order by attempted_at desc) filter (where not ok))[1] as reason
      from outcome group by endpoint_id
    ), after_ok as (
      select p.endpoint_id, min(o.attempted_at) as first_fail, count(o.endpoint_id)::int as failures
      from per_endpoint p left join outcome o on o.endpoint_id = p.endpoint_id and not o.ok and o.attempted_at > p.last_ok
      group by p.endpoint_id
    ), healthed as (
      update webhook_endpoints ep set
        (last_success_at, last_failure_at, last_failure_reason, failing_since, failures_since_success, enabled, disabled_for_failing_at, updated_at) = (
          select x.last_ok, x.last_fail, x.reason, x.since, x.failures, ep.enabled and not x.disable,
            case when x.disable then $10::timestamptz else ep.disabled_for_failing_at end,
            case when x.disable then $10::timestamptz else ep.updated_at end
          from (
            select y.*, coalesce(ep.enabled and $16::bigint > 0 and y.since <= $10::timestamptz - $16::bigint * interval '1 millisecond' and y.failures >= $17::int, false) as disable
            from (
              select greatest(ep.last_success_at, p.last_ok) as last_ok, greatest(ep.last_failure_at, p.last_fail) as last_fail,
                case when p.last_fail >= coalesce(ep.last_failure_at, p.last_fail) then p.reason else ep.last_failure_reason end as reason,
                case when z.ends then a.first_fail else coalesce(ep.failing_since, p.first_fail) end as since,
                case when z.ends then a.failures else ep.failures_since_success + p.failures end as failures
              from (select p.last_ok > coalesce(ep.last_failure_at, '-infinity') as ends) z
            ) y
          ) x
        )
      from per_endpoint p join after_ok a on a.endpoint_id = p.endpoint_id join endpoints_locked l on l.id = p.endpoint_id
      where ep.id = p.endpoint_id
      returning ep.id, ep.merchant_id, ep.mode, ep.url, ep.enabled, ep.disabled_for_failing_at, ep.failing_since, ep.failures_since_success, ep.last_failure_reason
    ), disabled_logged as (
      insert into console_activity (merchant_id, mode, actor, action, subject, detail, created_at)
      select merchant_id, mode, 'Till', 'endpoint_disabled_failing', id,
        jsonb_build_object('url', url, 'failingSince', to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'failures', failures_since_success, 'reason', last_failure_reason), $10
      from healthed where not enabled and disabled_for_failing_at = $10::timestamptz
    ), hours as (
      insert into webhook_endpoint_hours as h (endpoint_id, hour, delivered, failed)
      select o.endpoint_id, date_trunc('hour', o.attempted_at, 'UTC'), count(*) filter (where o.ok), count(*) filter (where not o.ok)
      from outcome o join endpoints_locked l on l.id = o.endpoint_id group by 1, 2
      on conflict (endpoint_id, hour) do update set delivered = h.delivered + excluded.delivered, failed = h.failed + excluded.failed
    ), hours_gone as (
      delete from webhook_endpoint_hours h using per_endpoint p, endpoints_locked l
      where h.endpoint_id = p.endpoint_id and l.id = p.endpoint_id and h.hour < $10::timestamptz - interval '48 hours'
    )`

/**
 * One round trip per batch, for a worker that records what it attempted and takes the next work:
 *
 * Recording: every attempt is logged (it happened); a delivery moves on only if its worker still
 * holds the lease it claimed, so a redelivery or a lapsed lease taken over by another worker fences
 * the late result off. The batch's endpoints are locked first, in id order, and every row of an
 * endpoint (its deliveries, health, hourly counts) is written only after its lock: two instances
 * recording for the same endpoints at once queue on the first shared one instead of deadlocking
 * (PostgreSQL would abort one statement, and its batch would be sent again after the lease). The
 * lock is the one an UPDATE of the row takes (no key update): a transaction appending an event holds
 * its endpoints' rows for its deliveries' foreign key, and neither waits for the other.
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
    with input (id, token, status, next_attempt_at, attempted_at, status_code, latency_ms, response_body, error, endpoint_id) as (
      select * from unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::int[], $8::text[], $9::text[], $15::text[])
    ), endpoints_locked as materialized (
      select ep.id from webhook_endpoints ep where ep.id in (select endpoint_id from input) order by ep.id for no key update of ep
    ), moved as (
      update webhook_deliveries d set status = i.status, attempts = d.attempts + 1, next_attempt_at = i.next_attempt_at,
        delivered_at = case when i.status = 'delivered' then $10::timestamptz end, leased_until = null, lease_token = null, updated_at = $10
      from input i join endpoints_locked l on l.id = i.endpoint_id
      where d.id = i.id and d.lease_token = i.token
      returning d.id
    ), logged as (
      insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_body, error)
      select id, attempted_at, status_code, latency_ms, response_body, error from input
    ), ${HEALTH}, busy as (
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
    returning d.id, d.attempts, d.lease_token, e.id as event_id, e.type as event_type, e.payload, e.traceparent,
      ep.id as endpoint_id, ep.merchant_id, ep.mode, ep.url, ep.secret_enc, ep.previous_secrets`)

/** When an endpoint that fails every attempt is disabled: after `afterMs` (0: never) and at least `minFailures` attempts. */
export interface DisablePolicy {
  afterMs: number
  minFailures: number
}

/** Never disables (tools that record attempts without the service's configuration). */
export const NEVER_DISABLE: DisablePolicy = { afterMs: 0, minFailures: 1 }

/**
 * Records `items` (any number, one commit) with their endpoints' health and, with `claim`, leases up
 * to `claim.limit` due deliveries in the same statement.
 */
export async function recordAndClaim(tx: Executor, items: Recorded[], now: Date, claim?: ClaimOptions, disable: DisablePolicy = NEVER_DISABLE): Promise<Claimed[]> {
  const { rows } = await recordAndClaimStmt(tx, [
    items.map((r) => r.claimed.id), items.map((r) => r.claimed.leaseToken), items.map((r) => r.status), items.map((r) => r.nextAttemptAt),
    items.map((r) => r.attempt.attemptedAt), items.map((r) => r.attempt.statusCode), items.map((r) => r.attempt.latencyMs),
    items.map((r) => r.attempt.responseBody), items.map((r) => r.attempt.error),
    now, claim?.leaseUntil ?? now, claim?.token ?? '', claim?.limit ?? 0, claim?.perEndpoint ?? 0,
    items.map((r) => r.claimed.endpointId), disable.afterMs, disable.minFailures,
  ])
  return rows.map(toClaimed)
}

/** Leases up to `limit` due deliveries (recordAndClaim without anything to record). */
export const claimDue = (tx: Executor, o: ClaimOptions & { now: Date }) => recordAndClaim(tx, [], o.now, o)

/** Logs attempts and moves their deliveries on (recordAndClaim without a claim). */
export async function recordAttempts(tx: Executor, items: Recorded[], now: Date, disable?: DisablePolicy) {
  if (items.length) await recordAndClaim(tx, items, now, undefined, disable)
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
