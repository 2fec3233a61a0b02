/**
 * The email outbox (docs/architecture.md#the-outbox): rows written in the transaction that paid or
 * refunded, leased with SKIP LOCKED by jobs/mail.ts, every outcome fenced by the lease token so a
 * worker whose lease lapsed changes nothing.
 */
import { asc, eq, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { emails } from '../schema-emails.js'
import { mailOutbox } from './mail-outbox.js'

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

/** The buyers' outbox: leased, sent and retried by jobs/mail.ts. */
export const emailOutbox = mailOutbox(emails)

/** A session's emails, oldest first (the console's payment timeline). */
export async function emailsOfSession(tx: Executor, sessionId: string): Promise<EmailRow[]> {
  return tx.select().from(emails).where(eq(emails.sessionId, sessionId)).orderBy(asc(emails.createdAt), asc(emails.id))
}
