/**
 * Sends the email outbox (services/emails.ts), and the members' (jobs/member-mail.ts), through the
 * instance's SMTP server (SMTP_URL) with nodemailer. Due emails are leased (SKIP LOCKED, so instances never take the same row), sent
 * outside any transaction, and each outcome is recorded fenced by the lease token. A refusing or
 * silent server costs only this worker's time: payments never wait on it.
 */
import { randomBytes } from 'node:crypto'
import nodemailer from 'nodemailer'
import { DEFAULT_LOCALE } from '../domain/locales.js'
import { displayAmount } from '../domain/money.js'
import { mailRetryAt, MAIL_RETRY_DELAYS_MS, receiptMail, type MailContent } from '../domain/receipt-mail.js'
import type { Deps } from '../services/deps.js'
import { brandingOf } from '../services/merchant-settings.js'
import { claimDueEmails, markAttemptFailed, markSent, type EmailRow } from '../store/repos/emails.js'
import { getMerchant } from '../store/repos/merchants.js'
import { getRecordBySession } from '../store/repos/records.js'
import { getRefundUnscoped } from '../store/repos/refunds.js'
import { getSessionUnscoped } from '../store/repos/sessions.js'
import { formatTime } from '../web/i18n.js'
import { pumpMemberMail } from './member-mail.js'

export interface MailerOptions {
  /** Emails sent at once by this process. */
  batch?: number
  /** Connecting, the greeting and each reply after: past it the attempt fails and is retried later. */
  timeoutMs?: number
  /** How long a claimed email is reserved; past it another worker may take it over. */
  leaseMs?: number
  retryDelaysMs?: readonly number[]
}

const DEFAULTS = { batch: 8, timeoutMs: 30_000, leaseMs: 120_000, retryDelaysMs: MAIL_RETRY_DELAYS_MS }

/** The message for a row, from the session, record, refund and merchant as they are now. */
async function compose(deps: Deps, e: EmailRow): Promise<MailContent & { replyTo: string | null; merchantName: string }> {
  const [session, merchant, record] = await Promise.all([
    getSessionUnscoped(deps.db, e.sessionId), getMerchant(deps.db, e.merchantId), getRecordBySession(deps.db, e, e.sessionId),
  ])
  if (!session || !merchant || !record) throw new Error(`email ${e.id}: its session, merchant or record is missing`)
  const refund = e.refundId ? await getRefundUnscoped(deps.db, e.refundId) : null
  if (e.refundId && !refund) throw new Error(`email ${e.id}: refund ${e.refundId} is missing`)
  const brand = brandingOf(merchant)
  const locale = session.locale ?? DEFAULT_LOCALE
  const content = receiptMail({
    kind: e.kind,
    locale,
    merchantName: brand.name,
    supportEmail: brand.supportEmail,
    amount: displayAmount(refund ? refund.amount : record.amount, record.currency, locale),
    date: formatTime(refund ? refund.updatedAt : record.paidAt, locale, merchant.timeZone),
    receiptUrl: `${deps.config.baseUrl}/r/${record.id}`,
    testMode: e.mode === 'test',
  })
  return { ...content, replyTo: brand.supportEmail, merchantName: brand.name }
}

export function createMailer(deps: Deps, options: MailerOptions = {}) {
  const o = { ...DEFAULTS, ...options }
  const { smtpUrl, mailFrom } = deps.config
  if (!smtpUrl || !mailFrom) throw new Error('the mail worker needs SMTP_URL and MAIL_FROM')
  const transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: o.timeoutMs, greetingTimeout: o.timeoutMs, socketTimeout: o.timeoutMs })
  const fromHost = mailFrom.split('@')[1]
  let stopped = false

  async function send(e: EmailRow, token: string) {
    let error: string
    try {
      const m = await compose(deps, e)
      // The Message-ID is the row's: a retry after a lost reply carries the same one, so mail clients show one message.
      const messageId = `<${e.id}@${fromHost}>`
      await transport.sendMail({
        from: { name: m.merchantName, address: mailFrom! },
        to: e.recipient,
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
        subject: m.subject,
        text: m.text,
        html: m.html,
        messageId,
        date: deps.clock(),
        headers: { 'Auto-Submitted': 'auto-generated' },
      })
      if (!(await markSent(deps.db, e.id, token, messageId, deps.clock()))) deps.log.warn({ emailId: e.id }, 'email sent after its lease lapsed')
      return
    } catch (err) {
      error = (err as Error).message
    }
    const next = mailRetryAt(deps.clock(), e.attempts + 1, o.retryDelaysMs)
    await markAttemptFailed(deps.db, e.id, token, error, next)
    deps.log.warn({ emailId: e.id, attempts: e.attempts + 1, error, nextAttemptAt: next }, next ? 'email attempt failed' : 'email failed for good')
  }

  return {
    /** One pass: claims what is due in both outboxes and sends it; resolves with how many were claimed. */
    async pump(): Promise<number> {
      if (stopped) return 0
      const now = deps.clock()
      const token = randomBytes(12).toString('hex')
      const due = await claimDueEmails(deps.db, now, new Date(now.getTime() + o.leaseMs), token, o.batch)
      const [, members] = await Promise.all([
        Promise.all(due.map((e) => send(e, token))),
        pumpMemberMail(deps, { transport, mailFrom: mailFrom!, batch: o.batch, leaseMs: o.leaseMs, retryDelaysMs: o.retryDelaysMs }, token),
      ])
      return due.length + members
    },
    async stop() {
      stopped = true
      transport.close()
    },
  }
}
