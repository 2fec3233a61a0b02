/**
 * The members' mail outbox (schema-member-mail.ts): rows written in the transaction that made the
 * link, leased with SKIP LOCKED by the mail job, every outcome fenced by the lease token. The sealed
 * link is dropped with the row's last outcome.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { memberEmails } from '../schema-member-mail.js'
import { MAIL_CHANNEL } from './emails.js'
import { mailOutbox } from './mail-outbox.js'

export type MemberEmailRow = typeof memberEmails.$inferSelect

export async function queueMemberEmail(tx: Executor, row: Omit<typeof memberEmails.$inferInsert, 'status' | 'attempts' | 'nextAttemptAt' | 'createdAt'>, now: Date) {
  await tx.insert(memberEmails).values({ ...row, nextAttemptAt: now, createdAt: now })
  await tx.execute(sql`select pg_notify(${MAIL_CHANNEL}, '')`)
}

/** The members' outbox: the sealed link dropped once the mail is sent or has failed for good. */
export const memberEmailOutbox = mailOutbox(memberEmails, ['link_box'])

/** Where an invitation's mail stands: its newest mail to that address since the invitation was made, if it was mailed at all. */
export type InvitationMail = Pick<MemberEmailRow, 'status' | 'attempts' | 'lastError'>

/** Each invitation's mail, in one read of the merchant's newest invitation mail to each of their addresses. */
export async function invitationMails(tx: Executor, merchantId: string, invitations: { email: string; createdAt: Date }[]): Promise<(InvitationMail | null)[]> {
  if (!invitations.length) return []
  const newest = await tx.selectDistinctOn([memberEmails.recipient], {
    recipient: memberEmails.recipient, createdAt: memberEmails.createdAt, status: memberEmails.status, attempts: memberEmails.attempts, lastError: memberEmails.lastError,
  }).from(memberEmails)
    .where(and(eq(memberEmails.merchantId, merchantId), eq(memberEmails.kind, 'invitation'), inArray(memberEmails.recipient, invitations.map((i) => i.email))))
    .orderBy(memberEmails.recipient, desc(memberEmails.createdAt))
  const byRecipient = new Map(newest.map((m) => [m.recipient, m]))
  return invitations.map((i) => {
    const m = byRecipient.get(i.email)
    // A mail older than the invitation was another invitation's (withdrawn or expired): this one was not mailed.
    return m && m.createdAt >= i.createdAt ? { status: m.status, attempts: m.attempts, lastError: m.lastError } : null
  })
}
