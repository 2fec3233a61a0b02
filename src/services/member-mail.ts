/**
 * The mail a member is sent: an invitation or a password reset, each carrying a one-time link. Till
 * shows the link in the console to copy whenever it was not sent (no mailer configured, or the send
 * failed), so a team works without SMTP (docs/console.md#members-and-roles).
 */
import type { Deps } from './deps.js'

export interface MemberMail {
  kind: 'invitation' | 'password_reset'
  to: string
  link: string
  merchantName: string
  expiresAt: Date
}

/** Whether the mail went out. Not wired to a mailer yet: always false, so the console shows the link. */
export async function sendMemberMail(_deps: Deps, _mail: MemberMail): Promise<{ sent: boolean }> {
  return { sent: false }
}
