/**
 * Stripe wire shapes and their pure conversions into Till's normalized facts (docs/architecture.md).
 * No I/O. Stripe takes form-encoded bodies with bracketed keys and answers JSON; amounts are in the
 * currency's minor units exactly as Till's (JPY zero-decimal), currencies lowercase. Every answer
 * field is optional on read, and ids may come as strings or as expanded objects.
 */
import type { Currency } from '../../domain/money.js'
import type { AttemptInput, PaymentFact, PaymentState, RefundFact, RefundInput, RefundState } from '../types.js'
import { ProviderError } from '../types.js'
import { CURRENCIES, EXPIRY_MARGIN_SEC, MAX_AMOUNT, MAX_EXPIRY_SEC, META, MIN_AMOUNT, MIN_EXPIRY_SEC } from './constants.js'

export type Ref<T> = string | (T & { id?: string }) | null | undefined
export const idOf = <T>(r: Ref<T>): string | undefined => (typeof r === 'string' ? r : r?.id ?? undefined)
export const objectOf = <T>(r: Ref<T>): (T & { id?: string }) | undefined => (r && typeof r === 'object' ? r : undefined)

export interface ErrorBody {
  error?: { type?: string; code?: string; message?: string; param?: string; decline_code?: string }
}

export interface PaymentIntent {
  id?: string
  status?: string
  amount?: number
  amount_received?: number
  currency?: string
  latest_charge?: Ref<Charge>
  metadata?: Record<string, string>
}

export interface Charge {
  id?: string
  amount?: number
  currency?: string
  payment_intent?: Ref<PaymentIntent>
  metadata?: Record<string, string>
}

export interface CheckoutSession {
  id?: string
  object?: string
  status?: 'open' | 'complete' | 'expired' | string | null
  payment_status?: 'paid' | 'unpaid' | 'no_payment_required' | string
  amount_total?: number | null
  currency?: string | null
  client_reference_id?: string | null
  payment_intent?: Ref<PaymentIntent>
  metadata?: Record<string, string> | null
  url?: string | null
  created?: number
  expires_at?: number
}

export interface Refund {
  id?: string
  object?: string
  amount?: number
  currency?: string
  status?: string | null
  failure_reason?: string | null
  payment_intent?: Ref<PaymentIntent>
  charge?: Ref<Charge>
  metadata?: Record<string, string> | null
  created?: number
}

export interface Dispute {
  id?: string
  amount?: number
  currency?: string
  status?: string
  reason?: string
  charge?: Ref<Charge>
  payment_intent?: Ref<PaymentIntent>
  /** `due_by`: unix seconds, when the evidence must be in (null once submitted or closed). */
  evidence_details?: { due_by?: number | null } | null
  created?: number
}

export interface StripeEvent {
  id?: string
  object?: string
  type?: string
  created?: number
  livemode?: boolean
  data?: { object?: unknown }
}

/** A webhook endpoint: its secret only in the answer that made it. */
export interface WebhookEndpoint {
  id?: string
  url?: string
  secret?: string
}

export interface List<T> {
  object?: 'list'
  data?: T[]
  has_more?: boolean
}

type Form = Record<string, unknown>

/** Stripe's form encoding: nested objects as key[sub], arrays as key[0]; undefined left out. */
export function formEncode(obj: Form): string {
  const out = new URLSearchParams()
  const walk = (prefix: string, v: unknown) => {
    if (v === undefined || v === null) return
    if (Array.isArray(v)) v.forEach((x, i) => walk(`${prefix}[${i}]`, x))
    else if (typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}[${k}]` : k, x)
    else out.append(prefix, String(v))
  }
  walk('', obj)
  return out.toString()
}

export const isStripeCurrency = (c: string): c is (typeof CURRENCIES)[number] => (CURRENCIES as readonly string[]).includes(c)

/** What Stripe takes for one Checkout Session: a supported currency at or above its minimum. */
export function checkAmount(amount: number, currency: Currency) {
  if (!isStripeCurrency(currency)) throw new ProviderError('rejected', 'unsupported_currency', `Till takes ${CURRENCIES.join(', ')} through Stripe, not ${currency}`, false)
  const min = (MIN_AMOUNT as Partial<Record<Currency, number>>)[currency] ?? 1
  if (!Number.isInteger(amount) || amount < min) throw new ProviderError('rejected', 'amount_below_minimum', `Stripe charges at least ${min} minor units of ${currency}`, false)
  if (amount > MAX_AMOUNT) throw new ProviderError('rejected', 'amount_above_maximum', `Stripe charges at most ${MAX_AMOUNT} minor units`, false)
}

/**
 * When the Checkout Session stops taking payment: Till's expiry, kept within Stripe's window (30 min
 * to 24 h ahead). A session that expires sooner at Till than Stripe allows gets Stripe's earliest,
 * and Till expires the Checkout Session itself (POST …/expire) when its own expiry comes; a payment
 * that still lands is recorded, as every late payment is. One longer than 24 h gets Stripe's latest,
 * and the customer who comes back later starts a new attempt.
 */
export function expiresAtSec(expiresAt: Date, now: Date): number {
  const nowSec = Math.floor(now.getTime() / 1000)
  const want = Math.floor(expiresAt.getTime() / 1000)
  return Math.min(Math.max(want, nowSec + MIN_EXPIRY_SEC + EXPIRY_MARGIN_SEC), nowSec + MAX_EXPIRY_SEC - EXPIRY_MARGIN_SEC)
}

/**
 * POST /v1/checkout/sessions: one line item priced inline, the attempt as client_reference_id and
 * in the metadata of the session and of the PaymentIntent it makes (so charges, refunds, disputes
 * and balance transactions lead back to it). No payment_method_types: the account's settings decide
 * (cards, Apple Pay, Google Pay…). `locale=auto`: Stripe's page speaks the buyer's browser language.
 */
export function checkoutRequest(a: AttemptInput, now: Date): Form {
  checkAmount(a.amount, a.currency)
  const metadata = { [META.session]: a.sessionId, [META.attempt]: a.attemptId }
  return {
    mode: 'payment',
    line_items: [{ quantity: 1, price_data: { currency: a.currency.toLowerCase(), unit_amount: a.amount, product_data: { name: (a.description || 'Payment').slice(0, 250) } } }],
    client_reference_id: a.attemptId,
    metadata,
    payment_intent_data: { metadata },
    success_url: a.returnUrl,
    cancel_url: a.checkoutUrl,
    expires_at: expiresAtSec(a.expiresAt, now),
    locale: 'auto',
  }
}

/** POST /v1/refunds: part or all of the payment, Till's ids in the metadata (Stripe's `reason` is an enum, so Till's text goes there too). */
export function refundRequest(r: RefundInput, paymentIntent: string): Form {
  const metadata: Record<string, string> = { [META.refund]: r.refundId, [META.attempt]: r.payment.attemptId }
  if (r.reason) metadata.till_reason = r.reason.slice(0, 500)
  return { payment_intent: paymentIntent, amount: r.amount, metadata }
}

const upper = (c: string | null | undefined) => (c ? c.toUpperCase() : undefined)

/** What Till keeps about a paid session: refunds name its PaymentIntent. */
export function paymentData(s: CheckoutSession): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  if (s.id) data.checkoutSessionId = s.id
  const pi = idOf(s.payment_intent)
  if (pi) data.paymentIntentId = pi
  return data
}

/**
 * A Checkout Session's state. Money only when complete and paid; complete but unpaid is a delayed
 * method still settling (async_payment_succeeded or _failed follows) unless its PaymentIntent,
 * expanded, says it was canceled; expired can never be paid.
 */
export function paymentState(s: CheckoutSession): PaymentState {
  if (s.status === 'complete' && s.payment_status === 'paid') {
    return { status: 'succeeded', providerRef: idOf(s.payment_intent) ?? s.id, amount: s.amount_total ?? undefined, currency: upper(s.currency), data: paymentData(s) }
  }
  if (s.status === 'expired') return { status: 'closed' }
  const pi = objectOf(s.payment_intent)
  if (s.status === 'complete' && (pi?.status === 'canceled' || pi?.status === 'requires_payment_method')) return { status: 'failed' }
  return { status: 'pending' }
}

/** A session as a payment fact for the attempt it names (client_reference_id). */
export function paymentFact(s: CheckoutSession): PaymentFact {
  const st = paymentState(s)
  return {
    kind: 'payment',
    attemptId: s.client_reference_id ?? '',
    status: st.status === 'succeeded' ? 'succeeded' : st.status === 'failed' ? 'failed' : 'pending',
    providerRef: st.providerRef,
    amount: st.amount,
    currency: st.currency,
    data: paymentData(s),
  }
}

/** Stripe's refund statuses: pending and requires_action are on the way; failed and canceled give the amount back. */
export function refundState(r: Refund): RefundState {
  const named = { providerRefundRef: r.id, ...(r.currency ? { currency: r.currency.toUpperCase() } : {}) }
  switch (r.status) {
    case 'succeeded':
      return { status: 'succeeded', ...named }
    case 'failed':
    case 'canceled':
      return { status: 'failed', ...named, failureReason: `${r.status}${r.failure_reason ? `: ${r.failure_reason}` : ''}` }
    default:
      return { status: 'pending', ...named }
  }
}

/** A refund (webhook object re-read from Stripe) as a fact: Till's refund id when Till made it, the attempt from its metadata or its PaymentIntent's. */
export function refundFact(r: Refund): RefundFact {
  const s = refundState(r)
  const pi = objectOf(r.payment_intent)
  return {
    kind: 'refund',
    refundId: r.metadata?.[META.refund] || undefined,
    providerRefundRef: r.id,
    attemptId: r.metadata?.[META.attempt] || pi?.metadata?.[META.attempt] || undefined,
    status: s.status,
    amount: r.amount,
    currency: upper(r.currency),
    ...(s.failureReason ? { failureReason: s.failureReason } : {}),
  }
}

/**
 * A non-2xx answer as a ProviderError: a 4xx other than 409 (an idempotent request still running)
 * and 429 is a definite refusal; those and 5xx may or may not have been acted on, so `unknown` (the
 * Idempotency-Key makes the retry safe). The message carries Stripe's, never the request's.
 */
export function errorFrom(status: number, body: ErrorBody | null): ProviderError {
  const e = body?.error
  const message = `Stripe ${status}${e?.type ? ` ${e.type}` : ''}${e?.code ? ` (${e.code})` : ''}${e?.message ? `: ${e.message}` : ''}`
  const code = status === 401 || status === 403 ? 'unauthorized' : status === 404 ? 'not_found' : e?.code ?? `HTTP_${status}`
  if (status >= 400 && status < 500 && status !== 409 && status !== 429) return new ProviderError('rejected', code, message, false)
  return new ProviderError('unknown', code, message)
}
