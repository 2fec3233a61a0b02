/** Event types and payloads sent to merchants (docs/integrate.md#webhooks). Amounts are integers in minor units. */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'session.canceled',
  'session.expired',
  'refund.pending',
  'refund.succeeded',
  'refund.failed',
  'reconciliation.mismatches_found',
  'payment.disputed',
  'payment.dispute_closed',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/** Events about one session (its payment or refunds): every type but the merchant-wide ones, which name no session. */
export const SESSION_EVENT_TYPES = EVENT_TYPES.filter((t) => !t.startsWith('reconciliation.')) as Exclude<EventType, `reconciliation.${string}`>[]
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number]

export interface SessionFacts {
  id: string
  status: string
  amount: number
  currency: string
  metadata: Record<string, string>
  /** The payment link whose page made the session, if one did. */
  paymentLinkId?: string | null
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
    ...(session.paymentLinkId ? { paymentLinkId: session.paymentLinkId } : {}),
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

export interface ReconciliationFacts {
  id: string
  provider: string
  providerConfigId: string
  day: string
  counts: Record<string, number>
  /** Mismatches not acknowledged, after this run. */
  openMismatches: number
  /** Mismatches this run found that were not there, or were different, before. */
  newMismatches: number
  /** Currencies whose statement summary disagrees with the sum of the statement's lines. */
  totalsDiffer: string[]
}

/** reconciliation.mismatches_found: a day of a provider configuration reconciled with mismatches (docs/reconciliation.md). */
export function reconciliationEventData(r: ReconciliationFacts) {
  return {
    reportId: r.id,
    provider: r.provider,
    providerConfigId: r.providerConfigId,
    date: r.day,
    counts: r.counts,
    openMismatches: r.openMismatches,
    newMismatches: r.newMismatches,
    totalsDiffer: r.totalsDiffer,
  }
}

export interface DisputeFacts {
  id: string
  providerRef: string
  amount: number
  currency: string
  reason: string | null
  status: string
  dueBy: Date | null
  closedAt: Date | null
}

/**
 * payment.disputed and payment.dispute_closed: the dispute as the provider last showed it. `amount`
 * is the disputed amount in minor units (it may be less than the payment's); `outcome` is null while
 * the dispute is open (docs/integrate.md#disputes).
 */
export function disputeEventData(d: DisputeFacts & { outcome: string | null }, record: RecordFacts, session: SessionFacts) {
  return {
    disputeId: d.id,
    recordId: record.id,
    sessionId: session.id,
    provider: record.provider,
    providerDisputeRef: d.providerRef,
    amount: d.amount,
    currency: d.currency,
    paymentAmount: record.amount,
    reason: d.reason,
    status: d.status,
    outcome: d.outcome,
    dueBy: d.dueBy?.toISOString() ?? null,
    closedAt: d.closedAt?.toISOString() ?? null,
    metadata: session.metadata,
  }
}
