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
