/** Event types and payloads sent to merchants (docs/integrate.md#webhooks). Amounts are integers in minor units. */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'session.canceled',
  'session.expired',
  'refund.pending',
  'refund.succeeded',
  'refund.failed',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export interface SessionFacts {
  id: string
  status: string
  amount: number
  currency: string
  metadata: Record<string, string>
}
export interface RecordFacts {
  id: string
  provider: string
  providerRef: string
  paidAt: Date
  amount: number
  refundedAmount: number
  status: string
}
export interface RefundFacts {
  id: string
  amount: number
  status: string
  reason: string | null
}

export function sessionEventData(session: SessionFacts, record?: RecordFacts | null) {
  return {
    sessionId: session.id,
    status: session.status,
    amount: session.amount,
    currency: session.currency,
    metadata: session.metadata,
    ...(record
      ? { recordId: record.id, provider: record.provider, providerRef: record.providerRef, paidAt: record.paidAt.toISOString() }
      : {}),
  }
}

export function refundEventData(refund: RefundFacts, record: RecordFacts, session: SessionFacts) {
  return {
    refundId: refund.id,
    recordId: record.id,
    sessionId: session.id,
    amount: refund.amount,
    refundedAmount: record.refundedAmount,
    recordStatus: record.status,
    currency: session.currency,
    status: refund.status,
    reason: refund.reason,
    metadata: session.metadata,
  }
}

export const refundEventType = (status: string): EventType =>
  status === 'succeeded' ? 'refund.succeeded' : status === 'failed' ? 'refund.failed' : 'refund.pending'
