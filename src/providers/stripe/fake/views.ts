/**
 * The fake's objects as Stripe's API and events show them (docs/providers.md#stripe-stripe): snake_case,
 * minor units, lowercase currencies, unix seconds, ids or expanded objects where `expand[]` asks.
 */
import type { BalanceTransaction, Charge, Dispute, FakeStore, PaymentIntent, Refund, Session } from './store.js'

/** The hosted page of a Checkout Session on this fake. */
export const sessionUrl = (baseUrl: string, s: Session) => `${baseUrl}/c/pay/${s.id}`

export function intentView(pi: PaymentIntent) {
  return {
    id: pi.id, object: 'payment_intent', amount: pi.amount, amount_received: pi.status === 'succeeded' ? pi.amount : 0, currency: pi.currency,
    status: pi.status, latest_charge: pi.chargeId, metadata: pi.metadata, created: pi.created, livemode: false,
    capture_method: 'automatic', payment_method_types: ['card'],
  }
}

export function sessionView(store: FakeStore, s: Session, baseUrl: string, expandIntent = false) {
  const pi = s.paymentIntentId ? store.intents.get(s.paymentIntentId) : undefined
  return {
    id: s.id, object: 'checkout.session', mode: 'payment', status: s.status, payment_status: s.paymentStatus,
    amount_subtotal: s.amount, amount_total: s.amount, currency: s.currency, client_reference_id: s.clientReferenceId,
    metadata: s.metadata, success_url: s.successUrl, cancel_url: s.cancelUrl, expires_at: s.expiresAt, locale: s.locale,
    payment_intent: pi ? (expandIntent ? intentView(pi) : pi.id) : null,
    url: s.status === 'open' ? sessionUrl(baseUrl, s) : null, created: s.created, livemode: false,
  }
}

export function chargeView(c: Charge) {
  return {
    id: c.id, object: 'charge', amount: c.amount, amount_captured: c.amount, amount_refunded: c.amountRefunded, currency: c.currency,
    payment_intent: c.paymentIntentId, paid: true, captured: true, status: 'succeeded', refunded: c.amountRefunded >= c.amount,
    disputed: c.disputed, metadata: c.metadata, created: c.created, livemode: false,
  }
}

export function refundView(store: FakeStore, r: Refund, expandIntent = false) {
  const pi = store.intents.get(r.paymentIntentId)!
  return {
    id: r.id, object: 'refund', amount: r.amount, currency: r.currency, status: r.status, failure_reason: r.failureReason,
    charge: r.chargeId, payment_intent: expandIntent ? intentView(pi) : pi.id, metadata: r.metadata, reason: null, created: r.created,
  }
}

export function disputeView(store: FakeStore, d: Dispute, expandIntent = false) {
  const c = store.charges.get(d.chargeId)!
  const pi = store.intents.get(c.paymentIntentId)!
  return {
    id: d.id, object: 'dispute', amount: c.amount, currency: c.currency, charge: c.id, payment_intent: expandIntent ? intentView(pi) : pi.id,
    status: d.status, reason: d.reason, is_charge_refundable: false, created: d.created, livemode: false, metadata: {},
    evidence_details: { due_by: d.dueBy, has_evidence: false, past_due: false, submission_count: 0 },
  }
}

export function balanceView(store: FakeStore, b: BalanceTransaction, expandSource: boolean) {
  let source: unknown = b.sourceId
  if (expandSource) {
    const charge = store.charges.get(b.sourceId)
    const refund = store.refunds.get(b.sourceId)
    source = charge ? chargeView(charge) : refund ? refundView(store, refund) : b.sourceId
  }
  return {
    id: b.id, object: 'balance_transaction', amount: b.amount, currency: b.currency, fee: b.fee, net: b.amount - b.fee,
    type: b.type, reporting_category: b.type, status: 'available', created: b.created, available_on: b.created, source,
    fee_details: b.fee ? [{ amount: b.fee, currency: b.currency, type: 'stripe_fee', description: 'Stripe processing fees', application: null }] : [],
    description: null, exchange_rate: null,
  }
}
