/**
 * A mail outbox's delivery (the buyers' `emails`, the members' `member_emails`: both carry
 * mailDelivery's columns): due rows leased with SKIP LOCKED, every outcome fenced by the lease
 * token, so that a worker whose lease lapsed records nothing over the one that took the row after it.
 */
import { getTableName } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { Executor } from '../db.js'
import { rawStatement, tableRows } from '../prepared.js'
import type { mailDelivery } from '../schema-emails.js'

/** A table with an id and mailDelivery's columns: the statements below name them. */
type OutboxTable = PgTable & Record<'id' | keyof ReturnType<typeof mailDelivery>, unknown>

/** `dropWhenDone`: columns set to null once the row is sent or has failed for good (a sealed link). */
export function mailOutbox<T extends OutboxTable>(table: T, dropWhenDone: string[] = []) {
  const name = getTableName(table)
  const rows = tableRows(table)
  const fenced = `where id = $1 and lease_token = $2 and status = 'pending'`
  const claimStmt = rawStatement(`${name}_claim_due`, `update ${name} set lease_until = $2, lease_token = $3
    where id in (
      select id from ${name}
      where status = 'pending' and next_attempt_at <= $1 and (lease_until is null or lease_until <= $1)
      order by next_attempt_at limit $4 for update skip locked)
    returning ${rows.columns}`)
  const sentStmt = rawStatement(`${name}_sent`, `update ${name}
    set status = 'sent', sent_at = $3, message_id = $4, attempts = attempts + 1, lease_until = null, lease_token = null, next_attempt_at = null, last_error = null${dropWhenDone.map((c) => `, ${c} = null`).join('')}
    ${fenced}`)
  // $4 null: no next attempt, failed for good.
  const failedStmt = rawStatement(`${name}_failed`, `update ${name}
    set status = case when $4::timestamptz is null then 'failed' else 'pending' end, next_attempt_at = $4, last_error = $3, attempts = attempts + 1, lease_until = null, lease_token = null${dropWhenDone.map((c) => `, ${c} = case when $4::timestamptz is null then null else ${c} end`).join('')}
    ${fenced}`)

  return {
    /** Leases up to `limit` due rows (their lease lapsed, or never taken). */
    async claimDue(ex: Executor, now: Date, leaseUntil: Date, token: string, limit: number): Promise<T['$inferSelect'][]> {
      return (await claimStmt(ex, [now, leaseUntil, token, limit])).rows.map(rows.map)
    },
    /** Sent: recorded only while the lease is still this worker's. */
    async markSent(ex: Executor, id: string, token: string, messageId: string, now: Date): Promise<boolean> {
      return (await sentStmt(ex, [id, token, now, messageId])).rowCount === 1
    },
    /** A failed attempt: tried again at `next`, or failed for good when there is none. */
    async markFailed(ex: Executor, id: string, token: string, error: string, next: Date | null): Promise<boolean> {
      return (await failedStmt(ex, [id, token, error.slice(0, 500), next])).rowCount === 1
    },
  }
}
