/** Database rows → the API's shapes (docs/integrate.md#read-sessions-records-and-refunds). One place, used by the API, test helpers and pages. */
import type { Static } from 'typebox'
import type { PaymentRecord, RecordSummary, RecordWithRefund, RecordWithRefunds, Refund, RefundObject, Session, SessionCreated } from '../domain/resources.js'
import { effectiveStatus, type SessionStatus } from '../domain/session-machine.js'
import { TEST_PROVIDER } from '../providers/index.js'
import type { RecordRow } from '../store/repos/records.js'
import type { RefundRow } from '../store/repos/refunds.js'
import type { SessionRow } from '../store/repos/sessions.js'

export const sessionUrl = (baseUrl: string, id: string) => `${baseUrl}/c/${id}`

export function sessionCreated(s: SessionRow, baseUrl: string): Static<typeof SessionCreated> {
  return {
    id: s.id,
    status: s.status,
    url: sessionUrl(baseUrl, s.id),
    amount: s.amount,
    currency: s.currency,
    expiresAt: s.expiresAt.toISOString(),
    createdAt: s.createdAt.toISOString(),
    mode: s.mode,
    description: s.description,
    metadata: s.metadata,
    locale: s.locale,
    customerEmail: s.customerEmail,
  }
}

/**
 * What the customer was charged when the provider converted the listed amount (WeChat Pay Global
 * charges CNY), as the adapter reported it with the payment; absent otherwise. The record's own
 * amount and currency stay the amount of record.
 */
export function chargedView(r: Pick<RecordRow, 'providerData'>): { amount: number; currency: string; rate?: string } | undefined {
  const c = r.providerData?.charged as { amount?: unknown; currency?: unknown; rate?: unknown } | undefined
  if (!c || !Number.isInteger(c.amount) || typeof c.currency !== 'string') return undefined
  return { amount: c.amount as number, currency: c.currency, ...(typeof c.rate === 'string' ? { rate: c.rate } : {}) }
}

const charged = (r: RecordRow) => {
  const c = chargedView(r)
  return c ? { charged: c } : {}
}

export function recordSummary(r: RecordRow): Static<typeof RecordSummary> {
  return {
    id: r.id, provider: r.provider, providerRef: r.providerRef, amount: r.amount, refundedAmount: r.refundedAmount, status: r.status, paidAt: r.paidAt.toISOString(), ...charged(r),
  }
}

export function sessionView(s: SessionRow, record: RecordRow | null, baseUrl: string, now: Date): Static<typeof Session> {
  return {
    ...sessionCreated(s, baseUrl),
    status: effectiveStatus(s.status as SessionStatus, s.expiresAt, now),
    chosenProvider: s.mode === TEST_PROVIDER.mode ? TEST_PROVIDER.id : s.chosenProvider,
    ...(record ? { record: recordSummary(record) } : {}),
    ...(s.paymentLinkId ? { paymentLinkId: s.paymentLinkId } : {}),
  }
}

export function refundView(f: RefundRow): Static<typeof Refund> {
  return {
    id: f.id,
    amount: f.amount,
    status: f.status,
    providerRef: f.providerRef,
    reason: f.reason,
    createdAt: f.createdAt.toISOString(),
  }
}

export function recordView(r: RecordRow): Static<typeof PaymentRecord> {
  return {
    id: r.id,
    sessionId: r.sessionId,
    provider: r.provider,
    providerRef: r.providerRef,
    amount: r.amount,
    refundedAmount: r.refundedAmount,
    currency: r.currency,
    status: r.status,
    mode: r.mode,
    paidAt: r.paidAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    ...charged(r),
  }
}

/** A refund read on its own (GET /refunds/{id}, lists, a record's `refunds`): it names its record. */
export const refundObject = (f: RefundRow): Static<typeof RefundObject> => ({ ...refundView(f), recordId: f.recordId })

/** A record read back: with every refund made on it, newest first. */
export const recordWithRefunds = (r: RecordRow, fs: RefundRow[]): Static<typeof RecordWithRefunds> => ({ ...recordView(r), refunds: fs.map(refundObject) })

export const recordWithRefund = (r: RecordRow, f: RefundRow): Static<typeof RecordWithRefund> => ({ ...recordView(r), refund: refundView(f) })
