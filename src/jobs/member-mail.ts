/**
 * Sends the members' mail outbox (services/member-mail.ts) with the mail job's transport
 * (jobs/mail.ts) and its sending of one leased mail (jobs/leased-mail.ts): retried with the same
 * backoff until the link expires. The link is unsealed only to be sent.
 */
import { isLocale, DEFAULT_LOCALE } from '../domain/locales.js'
import { memberMail } from '../domain/member-mail.js'
import type { Deps } from '../services/deps.js'
import { linkAad } from '../services/member-mail.js'
import { brandingOf } from '../services/merchant-settings.js'
import { memberEmailOutbox, type MemberEmailRow } from '../store/repos/member-emails.js'
import { getMerchant } from '../store/repos/merchants.js'
import { formatTime } from '../web/i18n.js'
import { sendLeased, type MailSender } from './leased-mail.js'

export type MemberMailSender = MailSender & { batch: number; leaseMs: number }

const send = (deps: Deps, o: MemberMailSender, e: MemberEmailRow, token: string) => sendLeased(deps, o, {
  what: 'member email', id: e.id, recipient: e.recipient, attempts: e.attempts,
  // No retry past the link's expiry: the mail would carry a dead link.
  retryBefore: e.linkExpiresAt,
  async compose() {
    if (!e.linkBox || e.linkExpiresAt <= deps.clock()) throw new Error('the link expired before it could be sent')
    const merchant = await getMerchant(deps.db, e.merchantId)
    if (!merchant) throw new Error(`member email ${e.id}: merchant ${e.merchantId} is missing`)
    const locale = isLocale(e.locale) ? e.locale : DEFAULT_LOCALE
    const merchantName = brandingOf(merchant).name
    const m = memberMail({
      kind: e.kind, locale, merchantName, email: e.recipient,
      link: deps.box.open(e.linkBox, linkAad(e.id)),
      expires: formatTime(e.linkExpiresAt, locale, merchant.timeZone),
    })
    return { ...m, merchantName }
  },
  sent: (messageId) => memberEmailOutbox.markSent(deps.db, e.id, token, messageId, deps.clock()),
  failed: (error, next) => memberEmailOutbox.markFailed(deps.db, e.id, token, error, next),
})

/** One pass: claims the member emails that are due and sends them; resolves with how many were claimed. */
export async function pumpMemberMail(deps: Deps, o: MemberMailSender, token: string): Promise<number> {
  const now = deps.clock()
  const due = await memberEmailOutbox.claimDue(deps.db, now, new Date(now.getTime() + o.leaseMs), token, o.batch)
  await Promise.all(due.map((e) => send(deps, o, e, token)))
  return due.length
}
