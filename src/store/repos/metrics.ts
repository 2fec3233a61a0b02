/** Scrape-time reads for /metrics: one statement each. */
import { sql } from 'drizzle-orm'
import type { Db } from '../db.js'

/**
 * Sessions per status over the whole table: a sequential scan (about 0.25 s per million sessions on
 * two cores), so it runs under a statement timeout and the caller caches it.
 */
export async function countSessionsByStatus(db: Db, timeoutMs: number): Promise<Map<string, number>> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`)
    const { rows } = await tx.execute(sql`select status, count(*)::int as n from sessions group by status`)
    return new Map((rows as { status: string; n: number }[]).map((r) => [r.status, Number(r.n)]))
  })
}

/**
 * When the oldest delivery that is due and deliverable (its endpoint enabled) became due, or null.
 * Walks the pending-deliveries index from its oldest entry, so it stays cheap however long the queue.
 */
export async function oldestDueDelivery(db: Db, now: Date): Promise<Date | null> {
  const { rows } = await db.execute(sql`
    select (extract(epoch from d.next_attempt_at) * 1000)::float8 as due_ms from webhook_deliveries d
    join webhook_endpoints ep on ep.id = d.endpoint_id
    where d.status = 'pending' and d.next_attempt_at <= ${now} and ep.enabled and ep.deleted_at is null
    order by d.next_attempt_at
    limit 1`)
  const row = rows[0] as { due_ms: number } | undefined
  return row ? new Date(Number(row.due_ms)) : null
}

/** Open (unacknowledged) mismatches per provider and mode, for the gauge. */
export async function openMismatchCounts(ex: Db): Promise<{ provider: string; mode: string; n: number }[]> {
  const { rows } = await ex.execute(sql`
    select s.provider, i.mode, count(*)::int as n from reconciliation_items i join statements s on s.id = i.statement_id
    where i.acknowledged_at is null and i.category not in ('matched', 'expected')
    group by s.provider, i.mode`)
  return (rows as { provider: string; mode: string; n: number }[]).map((r) => ({ ...r, n: Number(r.n) }))
}

/** Refunds per status, under a statement timeout as the sessions' count (the caller caches it). */
export async function countRefundsByStatus(db: Db, timeoutMs: number): Promise<Map<string, number>> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('statement_timeout', ${String(timeoutMs)}, true)`)
    const { rows } = await tx.execute(sql`select status, count(*)::int as n from refunds group by status`)
    return new Map((rows as { status: string; n: number }[]).map((r) => [r.status, Number(r.n)]))
  })
}

/**
 * Webhook endpoints (not deleted) that are `failing` (enabled, the last attempt failed) or
 * `disabled` (by their merchant, or by Till after failing too long).
 */
export async function webhookEndpointStates(db: Db): Promise<{ failing: number; disabled: number }> {
  const { rows } = await db.execute(sql`
    select count(*) filter (where enabled and failures_since_success > 0)::int as failing,
           count(*) filter (where not enabled)::int as disabled
    from webhook_endpoints where deleted_at is null`)
  const r = rows[0] as { failing: number; disabled: number }
  return { failing: Number(r.failing), disabled: Number(r.disabled) }
}

/** Statement days not reconciled yet (waiting for the provider's file, or failing to fetch it), per provider and mode. */
export async function statementDaysWaiting(db: Db): Promise<{ provider: string; mode: string; n: number }[]> {
  const { rows } = await db.execute(sql`
    select provider, mode, count(*)::int as n from statements where state in ('waiting', 'failed') group by provider, mode`)
  return (rows as { provider: string; mode: string; n: number }[]).map((r) => ({ ...r, n: Number(r.n) }))
}
