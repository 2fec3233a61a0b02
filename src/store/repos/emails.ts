/**
 * The email outbox (docs/architecture.md#the-outbox): rows written in the transaction that paid or
 * refunded, leased with SKIP LOCKED by jobs/mail.ts, every outcome fenced by the lease token so a
 * worker whose lease lapsed changes nothing.
 */
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { emails } from '../schema-emails.js'

export type EmailRow = typeof emails.$inferSelect
export const MAIL_CHANNEL = 'till_mail'

export interface NewEmail {
  id: string
  merchantId: string
  mode: 'test' | 'live'
  sessionId: string
  kind: 'receipt' | 'refund'
  refundId: string | null
  recipient: string
}

/** Queues one email; a second for the same session, kind and refund is ignored. Wakes the workers at commit. */
export async function queueEmail(tx: Executor, e: NewEmail, now: Date) {
  await tx.insert(emails).values({ ...e, nextAttemptAt: now, createdAt: now }).onConflictDoNothing()
  await tx.execute(sql`select pg_notify(${MAIL_CHANNEL}, '')`)
}

/** Leases up to `limit` due emails (their lease lapsed, or never taken). */
export async function claimDueEmails(tx: Executor, now: Date, leaseUntil: Date, token: string, limit: number): Promise<EmailRow[]> {
  const { rows } = await tx.execute<Record<string, unknown>>(sql`
    update emails set lease_until = ${leaseUntil}, lease_token = ${token}
    where id in (
      select id from emails
      where status = 'pending' and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
      order by next_attempt_at limit ${limit} for update skip locked)
    returning id`)
  if (rows.length === 0) return []
  return tx.select().from(emails).where(and(eq(emails.leaseToken, token), sql`${emails.id} in ${rows.map((r) => r.id as string)}`))
}

/** Sent: recorded only while the lease is still this worker's. */
export async function markSent(tx: Executor, id: string, token: string, messageId: string, now: Date): Promise<boolean> {
  const done = await tx.update(emails)
    .set({ status: 'sent', sentAt: now, messageId, attempts: sql`${emails.attempts} + 1`, leaseUntil: null, leaseToken: null, nextAttemptAt: null, lastError: null })
    .where(and(eq(emails.id, id), eq(emails.leaseToken, token), eq(emails.status, 'pending'))).returning({ id: emails.id })
  return done.length > 0
}

/** A failed attempt: tried again at `next`, or failed for good when there is none. */
export async function markAttemptFailed(tx: Executor, id: string, token: string, error: string, next: Date | null): Promise<boolean> {
  const done = await tx.update(emails)
    .set({ status: next ? 'pending' : 'failed', nextAttemptAt: next, lastError: error.slice(0, 500), attempts: sql`${emails.attempts} + 1`, leaseUntil: null, leaseToken: null })
    .where(and(eq(emails.id, id), eq(emails.leaseToken, token), eq(emails.status, 'pending'))).returning({ id: emails.id })
  return done.length > 0
}

/** A session's emails, oldest first (the console's payment timeline). */
export async function emailsOfSession(tx: Executor, sessionId: string): Promise<EmailRow[]> {
  return tx.select().from(emails).where(eq(emails.sessionId, sessionId)).orderBy(asc(emails.createdAt), asc(emails.id))
}
