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
import { MAIL_RETRY_DELAYS_MS, receiptMail } from '../domain/receipt-mail.js'
import type { Deps } from '../services/deps.js'
import { brandingOf } from '../services/merchant-settings.js'
import { emailOutbox, type EmailRow } from '../store/repos/emails.js'
import { getMerchant } from '../store/repos/merchants.js'
import { getRecordBySession } from '../store/repos/records.js'
import { getRefundUnscoped } from '../store/repos/refunds.js'
import { getSessionUnscoped } from '../store/repos/sessions.js'
import { formatTime } from '../web/i18n.js'
import { sendLeased, type Outgoing } from './leased-mail.js'
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
async function compose(deps: Deps, e: EmailRow): Promise<Outgoing> {
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
  let stopped = false

  const sender = { transport, mailFrom, retryDelaysMs: o.retryDelaysMs }
  const send = (e: EmailRow, token: string) => sendLeased(deps, sender, {
    what: 'email', id: e.id, recipient: e.recipient, attempts: e.attempts,
    compose: () => compose(deps, e),
    sent: (messageId) => emailOutbox.markSent(deps.db, e.id, token, messageId, deps.clock()),
    failed: (error, next) => emailOutbox.markFailed(deps.db, e.id, token, error, next),
  })

  return {
    /** One pass: claims what is due in both outboxes and sends it; resolves with how many were claimed. */
    async pump(): Promise<number> {
      if (stopped) return 0
      const now = deps.clock()
      const token = randomBytes(12).toString('hex')
      const due = await emailOutbox.claimDue(deps.db, now, new Date(now.getTime() + o.leaseMs), token, o.batch)
      const [, members] = await Promise.all([
        Promise.all(due.map((e) => send(e, token))),
        pumpMemberMail(deps, { ...sender, batch: o.batch, leaseMs: o.leaseMs }, token),
      ])
      return due.length + members
    },
    async stop() {
      stopped = true
      transport.close()
    },
  }
}
