/**
 * The members' mail outbox (schema-member-mail.ts): rows written in the transaction that made the
 * link, leased with SKIP LOCKED by the mail job, every outcome fenced by the lease token. The sealed
 * link is dropped with the row's last outcome.
 */
import { and, desc, eq, gte, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { memberEmails } from '../schema-member-mail.js'
import { MAIL_CHANNEL } from './emails.js'

export type MemberEmailRow = typeof memberEmails.$inferSelect

export async function queueMemberEmail(tx: Executor, row: Omit<typeof memberEmails.$inferInsert, 'status' | 'attempts' | 'nextAttemptAt' | 'createdAt'>, now: Date) {
  await tx.insert(memberEmails).values({ ...row, nextAttemptAt: now, createdAt: now })
  await tx.execute(sql`select pg_notify(${MAIL_CHANNEL}, '')`)
}

/** Leases up to `limit` due member emails (their lease lapsed, or never taken). */
export async function claimDueMemberEmails(tx: Executor, now: Date, leaseUntil: Date, token: string, limit: number): Promise<MemberEmailRow[]> {
  return tx.update(memberEmails).set({ leaseUntil, leaseToken: token })
    .where(sql`${memberEmails.id} in (
      select id from member_emails
      where status = 'pending' and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
      order by next_attempt_at limit ${limit} for update skip locked)`)
    .returning()
}

const fenced = (id: string, token: string) => and(eq(memberEmails.id, id), eq(memberEmails.leaseToken, token), eq(memberEmails.status, 'pending'))

export async function markMemberEmailSent(tx: Executor, id: string, token: string, messageId: string, now: Date): Promise<boolean> {
  const done = await tx.update(memberEmails)
    .set({ status: 'sent', sentAt: now, messageId, linkBox: null, attempts: sql`${memberEmails.attempts} + 1`, leaseUntil: null, leaseToken: null, nextAttemptAt: null, lastError: null })
    .where(fenced(id, token)).returning({ id: memberEmails.id })
  return done.length > 0
}

/** A failed attempt: tried again at `next`, or failed for good (the link dropped) when there is none. */
export async function markMemberEmailFailed(tx: Executor, id: string, token: string, error: string, next: Date | null): Promise<boolean> {
  const done = await tx.update(memberEmails)
    .set({
      status: next ? 'pending' : 'failed', nextAttemptAt: next, lastError: error.slice(0, 500), attempts: sql`${memberEmails.attempts} + 1`, leaseUntil: null, leaseToken: null,
      ...(next ? {} : { linkBox: null }),
    })
    .where(fenced(id, token)).returning({ id: memberEmails.id })
  return done.length > 0
}

/** Where an invitation's mail stands: its newest mail to that address since the invitation was made, if it was mailed at all. */
export type InvitationMail = Pick<MemberEmailRow, 'status' | 'attempts' | 'lastError'>

export async function invitationMail(tx: Executor, merchantId: string, recipient: string, since: Date): Promise<InvitationMail | null> {
  const [row] = await tx.select({ status: memberEmails.status, attempts: memberEmails.attempts, lastError: memberEmails.lastError }).from(memberEmails)
    .where(and(eq(memberEmails.merchantId, merchantId), eq(memberEmails.kind, 'invitation'), eq(memberEmails.recipient, recipient), gte(memberEmails.createdAt, since)))
    .orderBy(desc(memberEmails.createdAt)).limit(1)
  return row ?? null
}
