/**
 * One leased mail of either outbox (the buyers' emails, jobs/mail.ts; the members' links,
 * jobs/member-mail.ts): composed, sent, and its outcome recorded fenced by the lease, or its failure
 * with the next try. The Message-ID is the row's: a retry after a lost reply carries the same one,
 * so mail clients show one message.
 */
import type { Transporter } from 'nodemailer'
import { mailRetryAt, type MailContent } from '../domain/receipt-mail.js'
import type { Deps } from '../services/deps.js'

export interface MailSender {
  transport: Transporter
  mailFrom: string
  retryDelaysMs: readonly number[]
}

export type Outgoing = MailContent & { merchantName: string; replyTo?: string | null }

export interface LeasedMail {
  /** For the log: `email` or `member email`. */
  what: string
  id: string
  recipient: string
  attempts: number
  compose(): Promise<Outgoing>
  /** Recorded only while the lease is still this worker's; false when it lapsed. */
  sent(messageId: string): Promise<boolean>
  failed(error: string, next: Date | null): Promise<unknown>
  /** No retry from this time on (a member's link expires then). */
  retryBefore?: Date
}

export async function sendLeased(deps: Deps, s: MailSender, e: LeasedMail) {
  let error: string
  try {
    const m = await e.compose()
    const messageId = `<${e.id}@${s.mailFrom.split('@')[1]}>`
    await s.transport.sendMail({
      from: { name: m.merchantName, address: s.mailFrom },
      to: e.recipient,
      ...(m.replyTo ? { replyTo: m.replyTo } : {}),
      subject: m.subject,
      text: m.text,
      html: m.html,
      messageId,
      date: deps.clock(),
      headers: { 'Auto-Submitted': 'auto-generated' },
    })
    if (!(await e.sent(messageId))) deps.log.warn({ emailId: e.id }, `${e.what} sent after its lease lapsed`)
    return
  } catch (err) {
    error = (err as Error).message
  }
  const retry = mailRetryAt(deps.clock(), e.attempts + 1, s.retryDelaysMs)
  const next = retry && (!e.retryBefore || retry < e.retryBefore) ? retry : null
  await e.failed(error, next)
  deps.log.warn({ emailId: e.id, attempts: e.attempts + 1, error, nextAttemptAt: next }, `${e.what} ${next ? 'attempt failed' : 'failed for good'}`)
}
