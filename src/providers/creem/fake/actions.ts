/**
 * What a customer, the merchant's dashboard or Creem itself does: pay or fail a checkout, let it
 * expire, settle a refund, refund from the dashboard, open a dispute. Each sends the webhook Creem
 * would (awaited, so a test sees its effect when the call returns).
 */
import { EVENT, TEST_CARDS } from '../constants.js'
import { signRedirect } from './crypto.js'
import type { Notifier } from './notify.js'
import { creemId, type Checkout, type FakeStore, type Refund, type Transaction } from './store.js'
import { checkoutView, disputeView, refundView } from './views.js'

export interface PayInput {
  card?: string
  email?: string
  name?: string
  /** Overrides the taxRate knob for this payment. */
  taxRate?: number
}

export type PayResult = { ok: true; checkout: Checkout; redirect: string | null } | { ok: false; reason: string }

const CARD_MESSAGES: Record<string, string> = {
  declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  incorrect_cvc: "Your card's security code is incorrect.",
  expired_card: 'Your card has expired.',
}

/** Where the browser goes after paying: success_url plus the signed parameters, request_id first (§2.4). */
export function successRedirect(store: FakeStore, c: Checkout): string | null {
  const product = store.products.get(c.productId)!
  const base = c.successUrl ?? product.defaultSuccessUrl
  if (!base) return null
  const pairs: Array<[string, string | null]> = [
    ['request_id', c.requestId], ['checkout_id', c.id], ['order_id', c.orderId], ['customer_id', c.customerId],
    ['subscription_id', null], ['product_id', c.productId],
  ]
  const kept = pairs.filter(([, v]) => v !== null) as Array<[string, string]>
  const query = [...kept, ['signature', signRedirect(pairs, c.apiKey)]].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return `${base}${base.includes('?') ? '&' : '?'}${query}`
}

/** The hosted page's "Pay": a test card decides; success makes the customer, order and transaction. */
export async function payCheckout(store: FakeStore, notifier: Notifier, baseUrl: string, c: Checkout, input: PayInput): Promise<PayResult> {
  if (c.status === 'completed') return { ok: true, checkout: c, redirect: successRedirect(store, c) }
  if (c.status === 'expired') return { ok: false, reason: 'This checkout has expired.' }
  const card = (input.card ?? '4242424242424242').replace(/\D/g, '')
  const outcome = TEST_CARDS[card as keyof typeof TEST_CARDS]
  if (!outcome) return { ok: false, reason: 'Use one of the test cards: 4242 4242 4242 4242 pays.' }
  if (outcome !== 'success') {
    c.failedTries++
    return { ok: false, reason: CARD_MESSAGES[outcome] }
  }
  const product = store.products.get(c.productId)!
  const now = store.nowMs()
  const email = input.email || c.customerEmail || 'customer@example.com'
  let customer = [...store.customers.values()].find((x) => x.apiKey === c.apiKey && x.email === email)
  if (!customer) {
    customer = { id: creemId('cust'), apiKey: c.apiKey, email, name: input.name || 'Test Customer', country: 'NL', createdAtMs: now }
    store.customers.set(customer.id, customer)
  }
  const subTotal = store.unitPrice(c) * c.units
  const rate = input.taxRate ?? store.knobs.taxRate
  // Exclusive: Creem adds tax on top; inclusive: the price already holds it.
  const taxAmount = product.taxMode === 'exclusive' ? Math.round(subTotal * rate) : Math.round((subTotal * rate) / (1 + rate))
  const amountPaid = product.taxMode === 'exclusive' ? subTotal + taxAmount : subTotal
  const t: Transaction = {
    id: creemId('tran'), apiKey: c.apiKey, orderId: creemId('ord'), checkoutId: c.id, customerId: customer.id, amount: subTotal, taxAmount,
    amountPaid, currency: product.currency, taxCountry: customer.country, status: 'paid', refundedAmount: 0, createdAtMs: now,
  }
  store.transactions.set(t.id, t)
  store.orders.set(t.orderId, {
    id: t.orderId, apiKey: c.apiKey, checkoutId: c.id, productId: product.id, customerId: customer.id, transactionId: t.id, subTotal, taxAmount,
    amountPaid, currency: product.currency, type: product.billingType, createdAtMs: now,
  })
  Object.assign(c, { status: 'completed', orderId: t.orderId, customerId: customer.id })
  const send = notifier.emit(c.apiKey, EVENT.checkoutCompleted, checkoutView(store, c, baseUrl, true))
  if (store.knobs.webhookBeforeRedirect) await send
  else send.catch(() => {})
  return { ok: true, checkout: c, redirect: successRedirect(store, c) }
}

export function expireCheckout(c: Checkout): boolean {
  if (c.status !== 'pending' && c.status !== 'processing') return false
  c.status = 'expired'
  return true
}

/** What a transaction can still give back: paid, less refunds succeeded or under way. */
export function refundable(store: FakeStore, t: Transaction): number {
  const taken = store.refundsOf(t.id).filter((r) => r.status === 'succeeded' || r.status === 'pending' || r.status === 'requiresAction')
  return t.amountPaid - taken.reduce((s, r) => s + r.amount, 0)
}

/** A refund reaching its final status: the transaction follows, then refund.created carries it. */
export async function settleRefund(store: FakeStore, notifier: Notifier, r: Refund, status: Refund['outcome']) {
  if (r.status !== 'pending' && r.status !== 'requiresAction') return
  r.status = status
  if (status === 'succeeded') {
    const t = store.transactions.get(r.transactionId)!
    t.refundedAmount += r.amount
    t.status = t.refundedAmount >= t.amountPaid ? 'refunded' : 'partialRefund'
  }
  await notifier.emit(r.apiKey, EVENT.refundCreated, refundView(store, r))
}

/** POST /v1/refunds: everything left, answered `pending` (or final with the `sync` knob), settled later. */
export async function apiRefund(store: FakeStore, notifier: Notifier, t: Transaction): Promise<Refund> {
  const knob = store.knobs.refundOutcome
  if (!knob.persist) store.knobs.refundOutcome = { status: 'succeeded', delayMs: 0, sync: false, persist: false }
  const r: Refund = {
    id: creemId('ref'), apiKey: t.apiKey, transactionId: t.id, amount: refundable(store, t), currency: t.currency, reason: 'requested_by_customer',
    status: 'pending', via: 'api', outcome: knob.status, createdAtMs: store.nowMs(),
  }
  store.refunds.set(r.id, r)
  if (knob.sync) await settleRefund(store, notifier, r, knob.status)
  else store.jobs.schedule(knob.delayMs, () => settleRefund(store, notifier, r, r.outcome))
  return r
}

/** Transactions → Refund in the dashboard (full or partial, tax included): succeeds at once. */
export async function dashboardRefund(store: FakeStore, notifier: Notifier, t: Transaction, amount: number | undefined, reason: string): Promise<Refund | string> {
  const left = refundable(store, t)
  const value = amount ?? left
  if (!Number.isInteger(value) || value < 1 || value > left) return `amount must be 1 to ${left}`
  const r: Refund = {
    id: creemId('ref'), apiKey: t.apiKey, transactionId: t.id, amount: value, currency: t.currency, reason, status: 'pending', via: 'dashboard',
    outcome: 'succeeded', createdAtMs: store.nowMs(),
  }
  store.refunds.set(r.id, r)
  await settleRefund(store, notifier, r, 'succeeded')
  return r
}

export async function openDispute(store: FakeStore, notifier: Notifier, t: Transaction) {
  t.status = 'chargedBack'
  const id = creemId('disp')
  await notifier.emit(t.apiKey, EVENT.disputeCreated, disputeView(store, id, t, store.nowMs()))
  return id
}
