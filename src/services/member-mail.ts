/**
 * The mail a member is sent: an invitation or a password reset, each carrying a one-time link
 * (docs/console.md#invitations-and-password-resets-by-email). On an instance with SMTP_URL it is
 * queued in the transaction that makes the link and sent by the mail job (jobs/member-mail.ts),
 * retried like the buyers' emails; the link is kept only sealed with the secrets key and only until
 * the mail is sent, fails for good or the link expires. Without SMTP nothing is queued, and the
 * console shows the link to copy.
 */
import { newId } from '../domain/ids.js'
import type { Locale } from '../domain/locales.js'
import type { MemberMailKind } from '../domain/member-mail.js'
import type { Executor } from '../store/db.js'
import { queueMemberEmail } from '../store/repos/member-emails.js'
import type { Deps } from './deps.js'

export interface MemberMail {
  kind: MemberMailKind
  merchantId: string
  to: string
  link: string
  locale: Locale
  expiresAt: Date
}

/** The box's additional data: a sealed link opens only for its own row. */
export const linkAad = (emailId: string) => `member_emails:${emailId}`

/** Whether the mail was queued (false: this instance sends no email, so the link is to be shown). */
export async function queueMemberMail(tx: Executor, deps: Deps, m: MemberMail): Promise<boolean> {
  if (!deps.config.smtpUrl) return false
  const id = newId('eml')
  await queueMemberEmail(tx, {
    id, merchantId: m.merchantId, kind: m.kind, recipient: m.to, locale: m.locale, linkBox: deps.box.seal(m.link, linkAad(id)), linkExpiresAt: m.expiresAt,
  }, deps.clock())
  return true
}
