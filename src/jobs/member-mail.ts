/**
 * Sends the members' mail outbox (services/member-mail.ts) with the mail job's transport
 * (jobs/mail.ts): leased like the buyers' emails, each outcome fenced by the lease token, retried with
 * the same backoff until the link expires. The link is unsealed only to be sent.
 */
import type { Transporter } from 'nodemailer'
import { isLocale, DEFAULT_LOCALE } from '../domain/locales.js'
import { memberMail } from '../domain/member-mail.js'
import { mailRetryAt } from '../domain/receipt-mail.js'
import type { Deps } from '../services/deps.js'
import { linkAad } from '../services/member-mail.js'
import { brandingOf } from '../services/merchant-settings.js'
import { claimDueMemberEmails, markMemberEmailFailed, markMemberEmailSent, type MemberEmailRow } from '../store/repos/member-emails.js'
import { getMerchant } from '../store/repos/merchants.js'
import { formatTime } from '../web/i18n.js'

export interface MemberMailSender {
  transport: Transporter
  mailFrom: string
  batch: number
  leaseMs: number
  retryDelaysMs: readonly number[]
}

async function send(deps: Deps, o: MemberMailSender, e: MemberEmailRow, token: string) {
  let error: string
  try {
    if (!e.linkBox || e.linkExpiresAt <= deps.clock()) throw new Error('the link expired before it could be sent')
    const merchant = await getMerchant(deps.db, e.merchantId)
    if (!merchant) throw new Error(`member email ${e.id}: merchant ${e.merchantId} is missing`)
    const locale = isLocale(e.locale) ? e.locale : DEFAULT_LOCALE
    const name = brandingOf(merchant).name
    const m = memberMail({
      kind: e.kind, locale, merchantName: name, email: e.recipient,
      link: deps.box.open(e.linkBox, linkAad(e.id)),
      expires: formatTime(e.linkExpiresAt, locale, merchant.timeZone),
    })
    const messageId = `<${e.id}@${o.mailFrom.split('@')[1]}>`
    await o.transport.sendMail({
      from: { name, address: o.mailFrom }, to: e.recipient, subject: m.subject, text: m.text, html: m.html,
      messageId, date: deps.clock(), headers: { 'Auto-Submitted': 'auto-generated' },
    })
    if (!(await markMemberEmailSent(deps.db, e.id, token, messageId, deps.clock()))) deps.log.warn({ emailId: e.id }, 'member email sent after its lease lapsed')
    return
  } catch (err) {
    error = (err as Error).message
  }
  const now = deps.clock()
  const retry = mailRetryAt(now, e.attempts + 1, o.retryDelaysMs)
  // No retry past the link's expiry: the mail would carry a dead link.
  const next = retry && retry < e.linkExpiresAt ? retry : null
  await markMemberEmailFailed(deps.db, e.id, token, error, next)
  deps.log.warn({ emailId: e.id, attempts: e.attempts + 1, error, nextAttemptAt: next }, next ? 'member email attempt failed' : 'member email failed for good')
}

/** One pass: claims the member emails that are due and sends them; resolves with how many were claimed. */
export async function pumpMemberMail(deps: Deps, o: MemberMailSender, token: string): Promise<number> {
  const now = deps.clock()
  const due = await claimDueMemberEmails(deps.db, now, new Date(now.getTime() + o.leaseMs), token, o.batch)
  await Promise.all(due.map((e) => send(deps, o, e, token)))
  return due.length
}
