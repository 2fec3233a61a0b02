/**
 * The buyer's emails (docs/integrate.md#receipt-emails): queued in the transaction that pays a
 * session or settles a refund, so an email goes out for every committed payment and for nothing
 * that rolled back; jobs/mail.ts sends them. Nothing is queued without an address, with the
 * merchant's switch off, or on an instance without SMTP_URL (nothing would send it).
 */
import { newId } from '../domain/ids.js'
import type { Tx } from '../store/db.js'
import { emailsOfSession, queueEmail } from '../store/repos/emails.js'
import { getMerchant } from '../store/repos/merchants.js'
import type { RefundRow } from '../store/repos/refunds.js'
import type { SessionRow } from '../store/repos/sessions.js'
import type { Deps } from './deps.js'

async function queue(tx: Tx, deps: Deps, s: SessionRow, kind: 'receipt' | 'refund', refundId: string | null) {
  if (!s.customerEmail || !deps.config.smtpUrl) return
  const m = await getMerchant(tx, s.merchantId)
  if (!m || !(kind === 'receipt' ? m.receiptEmails : m.refundEmails)) return
  await queueEmail(tx, { id: newId('eml'), merchantId: s.merchantId, mode: s.mode, sessionId: s.id, kind, refundId, recipient: s.customerEmail }, deps.clock())
}

export const queueReceipt = (tx: Tx, deps: Deps, s: SessionRow) => queue(tx, deps, s, 'receipt', null)
export const queueRefundNotice = (tx: Tx, deps: Deps, s: SessionRow, refund: RefundRow) => queue(tx, deps, s, 'refund', refund.id)

export interface SessionEmail {
  kind: 'receipt' | 'refund'
  recipient: string
  status: 'pending' | 'retrying' | 'sent' | 'failed'
  attempts: number
  at: Date
  nextAttemptAt: Date | null
  lastError: string | null
}

/** What the console's payment timeline shows of a session's emails. */
export async function sessionEmails(deps: Deps, sessionId: string): Promise<SessionEmail[]> {
  return (await emailsOfSession(deps.db, sessionId)).map((e) => ({
    kind: e.kind,
    recipient: e.recipient,
    status: e.status === 'pending' && e.attempts > 0 ? 'retrying' : e.status,
    attempts: e.attempts,
    at: e.sentAt ?? e.createdAt,
    nextAttemptAt: e.status === 'pending' ? e.nextAttemptAt : null,
    lastError: e.lastError,
  }))
}
