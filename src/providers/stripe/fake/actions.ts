/**
 * What a buyer, the merchant's Dashboard or Stripe itself does: pay a Checkout Session with a test
 * card (3-D Secure challenge included) or a delayed method, let it expire, settle a refund, open and close a dispute.
 * Each sends the events Stripe would (awaited, so a test sees their effect when the call returns).
 */
import { EVENT, TEST_CARDS } from '../constants.js'
import type { Notifier } from './notify.js'
import { feeOf, stripeId, type Charge, type Dispute, type FakeStore, type PaymentIntent, type Refund, type Session } from './store.js'
import { chargeView, disputeView, refundView, sessionView } from './views.js'

export type PayResult = { ok: true; redirect: string } | { ok: false; reason: string } | { challenge: true }

const CARD_MESSAGES: Record<string, string> = {
  declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
}

/** success_url with Stripe's template variable filled. */
export const successRedirect = (s: Session) => s.successUrl.replaceAll('{CHECKOUT_SESSION_ID}', s.id)

/** The hosted page's Pay: the test card decides; the 3-D Secure card first asks for the challenge. */
export async function payCard(store: FakeStore, notifier: Notifier, baseUrl: string, s: Session, cardNumber: string | undefined): Promise<PayResult> {
  if (s.status === 'complete') return { ok: true, redirect: successRedirect(s) }
  if (s.status === 'expired') return { ok: false, reason: 'This Checkout Session has expired.' }
  const card = (cardNumber ?? '4242424242424242').replace(/\D/g, '')
  const outcome = TEST_CARDS[card as keyof typeof TEST_CARDS]
  if (!outcome) return { ok: false, reason: 'Use a test card: 4242 4242 4242 4242 pays.' }
  if (outcome === 'three_d_secure') {
    s.challenge = true
    return { challenge: true }
  }
  if (outcome !== 'success') {
    s.declines++
    return { ok: false, reason: CARD_MESSAGES[outcome] }
  }
  return succeed(store, notifier, baseUrl, s)
}

/** The 3-D Secure step: Complete pays, Fail leaves the session open with the failure shown. */
export async function finishChallenge(store: FakeStore, notifier: Notifier, baseUrl: string, s: Session, passed: boolean): Promise<PayResult> {
  if (!s.challenge || s.status !== 'open') return { ok: false, reason: 'No authentication is waiting.' }
  s.challenge = false
  if (!passed) {
    s.declines++
    return { ok: false, reason: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.' }
  }
  return succeed(store, notifier, baseUrl, s)
}

/** The charge of a paid PaymentIntent, with its balance transaction. */
function charge(store: FakeStore, s: Session, piId: string): Charge {
  const now = store.nowSec()
  const c: Charge = { id: stripeId('ch'), secretKey: s.secretKey, paymentIntentId: piId, amount: s.amount, currency: s.currency, amountRefunded: 0, metadata: s.piMetadata, disputed: false, created: now }
  store.charges.set(c.id, c)
  store.balance.push({ id: stripeId('txn'), secretKey: s.secretKey, type: 'charge', amount: s.amount, fee: feeOf(s.amount), currency: s.currency, sourceId: c.id, created: now })
  return c
}

async function succeed(store: FakeStore, notifier: Notifier, baseUrl: string, s: Session): Promise<PayResult> {
  const piId = stripeId('pi')
  const c = charge(store, s, piId)
  store.intents.set(piId, { id: piId, secretKey: s.secretKey, sessionId: s.id, amount: s.amount, currency: s.currency, status: 'succeeded', metadata: s.piMetadata, chargeId: c.id, created: store.nowSec() })
  Object.assign(s, { status: 'complete', paymentStatus: 'paid', paymentIntentId: piId })
  const send = notifier.emit(s.secretKey, EVENT.checkoutCompleted, sessionView(store, s, baseUrl))
  if (store.knobs.webhookBeforeRedirect) await send
  else send.catch(() => {})
  return { ok: true, redirect: successRedirect(s) }
}

/**
 * A delayed method (a bank transfer, as Stripe's docs describe them): Checkout completes unpaid now
 * (checkout.session.completed with payment_status `unpaid`, the PaymentIntent `processing`), and the
 * money arrives or not after `delayMs` (checkout.session.async_payment_succeeded or _failed).
 */
export async function payLater(store: FakeStore, notifier: Notifier, baseUrl: string, s: Session, outcome: 'succeeded' | 'failed', delayMs: number): Promise<PayResult> {
  if (s.status !== 'open') return { ok: false, reason: `This Checkout Session is ${s.status}.` }
  const piId = stripeId('pi')
  const pi: PaymentIntent = { id: piId, secretKey: s.secretKey, sessionId: s.id, amount: s.amount, currency: s.currency, status: 'processing', metadata: s.piMetadata, chargeId: null, created: store.nowSec() }
  store.intents.set(piId, pi)
  Object.assign(s, { status: 'complete', paymentStatus: 'unpaid', paymentIntentId: piId, challenge: false })
  await notifier.emit(s.secretKey, EVENT.checkoutCompleted, sessionView(store, s, baseUrl))
  store.jobs.schedule(delayMs, async () => {
    if (outcome === 'succeeded') {
      pi.chargeId = charge(store, s, piId).id
      pi.status = 'succeeded'
      s.paymentStatus = 'paid'
    } else {
      pi.status = 'requires_payment_method'
    }
    await notifier.emit(s.secretKey, outcome === 'succeeded' ? EVENT.asyncSucceeded : EVENT.asyncFailed, sessionView(store, s, baseUrl))
  })
  return { ok: true, redirect: successRedirect(s) }
}

export async function expireSession(store: FakeStore, notifier: Notifier, baseUrl: string, s: Session): Promise<boolean> {
  if (s.status !== 'open') return false
  Object.assign(s, { status: 'expired', challenge: false })
  await notifier.emit(s.secretKey, EVENT.checkoutExpired, sessionView(store, s, baseUrl))
  return true
}

/** What a charge can still give back: paid, less refunds succeeded or under way. */
export function refundable(store: FakeStore, c: Charge): number {
  const taken = store.refundsOf(c.id).filter((r) => r.status === 'succeeded' || r.status === 'pending' || r.status === 'requires_action')
  return c.amount - taken.reduce((n, r) => n + r.amount, 0)
}

/** A refund reaching its final status; its balance transaction was made when it was created, and a failed one is given back. */
export async function settleRefund(store: FakeStore, notifier: Notifier, r: Refund, status: Refund['outcome']) {
  if (r.status !== 'pending' && r.status !== 'requires_action') return
  r.status = status
  const c = store.charges.get(r.chargeId)!
  if (status === 'succeeded') {
    c.amountRefunded += r.amount
    await notifier.emit(r.secretKey, EVENT.refundUpdated, refundView(store, r))
    await notifier.emit(r.secretKey, EVENT.chargeRefunded, chargeView(c))
    return
  }
  r.failureReason = status === 'failed' ? 'expired_or_canceled_card' : null
  store.balance.push({ id: stripeId('txn'), secretKey: r.secretKey, type: 'refund_failure', amount: r.amount, fee: 0, currency: r.currency, sourceId: r.id, created: store.nowSec() })
  await notifier.emit(r.secretKey, status === 'failed' ? EVENT.refundFailed : EVENT.refundUpdated, refundView(store, r))
}

/** POST /v1/refunds: made now (refund.created), final at once or after the knob's delay. */
export async function createRefund(store: FakeStore, notifier: Notifier, c: Charge, amount: number, metadata: Record<string, string>): Promise<Refund> {
  const knob = store.knobs.refundOutcome
  if (!knob.persist) store.knobs.refundOutcome = { status: 'succeeded', delayMs: 0, persist: false }
  const r: Refund = {
    id: stripeId('re'), secretKey: c.secretKey, paymentIntentId: c.paymentIntentId, chargeId: c.id, amount, currency: c.currency,
    status: 'pending', outcome: knob.status, failureReason: null, metadata, created: store.nowSec(),
  }
  store.refunds.set(r.id, r)
  store.balance.push({ id: stripeId('txn'), secretKey: c.secretKey, type: 'refund', amount: -amount, fee: 0, currency: c.currency, sourceId: r.id, created: r.created })
  await notifier.emit(r.secretKey, EVENT.refundCreated, refundView(store, r))
  if (knob.delayMs > 0) store.jobs.schedule(knob.delayMs, () => settleRefund(store, notifier, r, r.outcome))
  else await settleRefund(store, notifier, r, r.outcome)
  return r
}

export async function openDispute(store: FakeStore, notifier: Notifier, c: Charge): Promise<string> {
  c.disputed = true
  const now = store.nowSec()
  const d: Dispute = { id: stripeId('dp'), secretKey: c.secretKey, chargeId: c.id, status: 'needs_response', reason: 'fraudulent', dueBy: now + 7 * 86400, created: now }
  store.disputes.set(d.id, d)
  store.balance.push({ id: stripeId('txn'), secretKey: c.secretKey, type: 'adjustment', amount: -c.amount, fee: 1500, currency: c.currency, sourceId: d.id, created: now })
  await notifier.emit(c.secretKey, EVENT.disputeCreated, disputeView(store, d))
  return d.id
}

/** Closes an open dispute of the charge with its outcome; false when it has none of that id or it is closed already. */
export async function closeDispute(store: FakeStore, notifier: Notifier, c: Charge, id: string, status: 'won' | 'lost'): Promise<boolean> {
  const d = store.disputes.get(id)
  if (!d || d.chargeId !== c.id || d.status === 'won' || d.status === 'lost') return false
  d.status = status
  await notifier.emit(c.secretKey, EVENT.disputeClosed, disputeView(store, d))
  return true
}
