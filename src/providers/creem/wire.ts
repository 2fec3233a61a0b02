/**
 * Creem wire shapes and their pure conversions into Till's normalized facts (docs/architecture.md). No I/O.
 * Field names follow docs/providers.md#creem-creem; every response field is optional on read, and ids may
 * come as strings or as expanded objects (§2.8 C4).
 */
import type { Currency } from '../../domain/money.js'
import type { AttemptInput, PaymentFact, PaymentState, RefundFact, RefundState } from '../types.js'
import { ProviderError } from '../types.js'
import { CURRENCIES, MAX_CUSTOM_PRICE, MIN_PRICE, PRODUCT_PRICE } from './constants.js'

export type Ref<T> = string | (T & { id?: string }) | null | undefined

export interface ErrorBody {
  trace_id?: string
  status?: number
  error?: string
  message?: string | string[]
}

export interface ProductRequest {
  name: string
  description: string
  price: number
  currency: 'EUR' | 'USD'
  billing_type: 'onetime'
  tax_mode: 'inclusive' | 'exclusive'
}

export interface Product {
  id?: string
  price?: number
  currency?: string
}

export interface CheckoutRequest {
  product_id: string
  request_id: string
  custom_price: number
  success_url: string
  metadata: { sessionId: string; attemptId: string }
}

export interface Order {
  id?: string
  amount?: number
  sub_total?: number
  tax_amount?: number
  discount_amount?: number
  amount_paid?: number
  currency?: string
  status?: string
  transaction?: Ref<Transaction>
  created_at?: string
  updated_at?: string
}

export interface Checkout {
  id?: string
  status?: string
  request_id?: string | null
  product?: Ref<Product>
  order?: Ref<Order>
  checkout_url?: string
  metadata?: Record<string, unknown> | null
}

export interface Transaction {
  id?: string
  amount?: number
  amount_paid?: number
  currency?: string
  status?: string
  refunded_amount?: number
  order?: Ref<Order>
  created_at?: number
}

/** The answer to POST /v1/refunds (the SDK's RefundResponseEntity): a status, no id. */
export interface RefundAnswer {
  status?: string
}

export interface Refund {
  id?: string
  status?: string
  refund_amount?: number
  refund_currency?: string
  reason?: string | null
  transaction?: Ref<Transaction>
  checkout?: Ref<Checkout>
  order?: Ref<Order>
  created_at?: number
}

export interface Dispute {
  id?: string
  amount?: number
  currency?: string
  transaction?: Ref<Transaction>
  checkout?: Ref<Checkout>
}

export interface WebhookEvent {
  id?: string
  eventType?: string
  created_at?: number
  object?: unknown
}

export const idOf = <T>(r: Ref<T>): string | undefined => (typeof r === 'string' ? r : r?.id ?? undefined)
export const objectOf = <T>(r: Ref<T>): (T & { id?: string }) | undefined => (r && typeof r === 'object' ? r : undefined)

/** Creem mixes ISO strings (orders) and epoch milliseconds (transactions, events) (§2.3). */
export function creemTime(v: string | number | undefined): Date | undefined {
  if (v === undefined) return undefined
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export const isCreemCurrency = (c: string): c is (typeof CURRENCIES)[number] => (CURRENCIES as readonly string[]).includes(c)

/** What Creem takes for one checkout: EUR or USD, 100 to 99999999 minor units (custom_price's bounds). */
export function checkAmount(amount: number, currency: Currency): asserts currency is (typeof CURRENCIES)[number] {
  if (!isCreemCurrency(currency)) throw new ProviderError('rejected', 'unsupported_currency', `Creem takes EUR and USD, not ${currency}`, false)
  if (!Number.isInteger(amount) || amount < MIN_PRICE) throw new ProviderError('rejected', 'amount_below_minimum', `Creem prices start at ${MIN_PRICE} minor units`, false)
  if (amount > MAX_CUSTOM_PRICE) throw new ProviderError('rejected', 'amount_above_maximum', `Creem prices end at ${MAX_CUSTOM_PRICE} minor units`, false)
}

/**
 * The one product per currency every checkout names: Creem needs a product, and each checkout
 * sets its own amount with custom_price (one-time products only). Its own price is the minimum,
 * never charged. Tax inclusive: the customer pays exactly what Till's page showed.
 */
export function productRequest(currency: Currency): ProductRequest {
  checkAmount(PRODUCT_PRICE, currency)
  return {
    name: 'Payment',
    description: 'A one-time payment through Till; each checkout sets its amount',
    price: PRODUCT_PRICE,
    currency,
    billing_type: 'onetime',
    tax_mode: 'inclusive',
  }
}

/** No query parameters of our own in success_url (§2.4): the session is in the path, the attempt in request_id. */
export function checkoutRequest(a: AttemptInput, productId: string): CheckoutRequest {
  checkAmount(a.amount, a.currency)
  return {
    product_id: productId, request_id: a.attemptId, custom_price: a.amount, success_url: a.returnUrl,
    metadata: { sessionId: a.sessionId, attemptId: a.attemptId },
  }
}

/**
 * The amount Till checks against the session: before tax (Creem, as merchant of record, may add it)
 * and after any discount, so a discounted order is never taken for the full amount (§2.2, C5).
 */
export function orderAmount(o: Order): number | undefined {
  if (o.sub_total !== undefined) return o.sub_total - (o.discount_amount ?? 0)
  return o.amount
}

/** What Till keeps about a paid checkout: refunds name the transaction (§2.6). */
export function paymentData(c: Checkout): Record<string, unknown> {
  const order = objectOf(c.order)
  const data: Record<string, unknown> = {}
  if (c.id) data.checkoutId = c.id
  if (idOf(c.order)) data.orderId = idOf(c.order)
  if (order && idOf(order.transaction)) data.transactionId = idOf(order.transaction)
  return data
}

/** checkout status → attempt status. Only `completed` with a paid order is money; `expired` can never be paid. */
export function paymentState(c: Checkout): PaymentState {
  const order = objectOf(c.order)
  if (c.status === 'completed' && (!order || order.status === undefined || order.status === 'paid')) {
    return { status: 'succeeded', providerRef: idOf(c.order) ?? c.id, amount: order ? orderAmount(order) : undefined, currency: order?.currency, paidAt: creemTime(order?.created_at) }
  }
  if (c.status === 'expired') return { status: 'closed' }
  return { status: 'pending' }
}

/** A completed checkout (webhook object or query answer) as a payment fact for the attempt named in request_id. */
export function paymentFact(c: Checkout): PaymentFact {
  const s = paymentState(c)
  const order = objectOf(c.order)
  return {
    kind: 'payment',
    attemptId: c.request_id ?? '',
    status: s.status === 'succeeded' ? 'succeeded' : 'pending',
    providerRef: s.providerRef,
    amount: s.amount,
    currency: order?.currency,
    paidAt: s.paidAt,
    data: paymentData(c),
  }
}

/** Refund status → Till's: `pending` and `requiresAction` are not final; `canceled` gives the amount back like `failed`. */
export function refundState(status: string | undefined, refundId?: string): RefundState {
  switch (status) {
    case 'succeeded':
      return { status: 'succeeded', providerRefundRef: refundId }
    case 'failed':
    case 'canceled':
      return { status: 'failed', providerRefundRef: refundId, failureReason: `${status}: the refund was ${status} by Creem` }
    default:
      return { status: 'pending', providerRefundRef: refundId }
  }
}

/**
 * Creem's refund amounts include tax (a 1000 payment with 210 tax refunds 1210, §2.5); Till's are
 * the session's. Converting cumulatively (refunded after minus refunded before, each scaled by
 * amount / amount_paid) makes refunds that add up to the payment add up to the record exactly.
 */
export function tillRefundAmount(r: Refund): number | undefined {
  if (r.refund_amount === undefined) return undefined
  const t = objectOf(r.transaction)
  const base = t?.amount
  const paid = t?.amount_paid
  if (base === undefined || paid === undefined || paid <= 0 || base === paid) return r.refund_amount
  const scale = (x: number) => Math.round((x * base) / paid)
  const after = t?.refunded_amount
  if (after === undefined || after < r.refund_amount) return scale(r.refund_amount)
  return scale(after) - scale(after - r.refund_amount)
}

/** refund.created as a refund fact. Creem does not know Till's refund id: its own id matches ours once stored. */
export function refundFact(r: Refund): RefundFact {
  const s = refundState(r.status, r.id)
  const checkout = objectOf(r.checkout)
  return {
    kind: 'refund',
    providerRefundRef: r.id,
    attemptId: checkout?.request_id ?? undefined,
    status: s.status,
    amount: tillRefundAmount(r),
    currency: r.refund_currency,
    matchUnanswered: true,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(s.failureReason ? { failureReason: s.failureReason } : {}),
  }
}

/**
 * A refund Till asked for, read from its transaction: the API has no refund lookup, and its answer
 * to POST /v1/refunds has no id (the SDK's RefundResponseEntity is `{status}`). Creem refunds the
 * whole remaining amount, so ours is done once the transaction is `refunded`. Anything else is
 * `pending`, never "not found": a refund Creem is still processing looks exactly like one it never
 * received, and Creem has no idempotency key, so asking again could refund twice. The id and a
 * failure are learnt from refund.created.
 */
export function refundStateFromTransaction(t: Transaction, providerRefundRef: string | null): RefundState {
  const named = { providerRefundRef: providerRefundRef ?? undefined, ...(t.currency ? { currency: t.currency } : {}) }
  return t.status === 'refunded' ? { status: 'succeeded', ...named } : { status: 'pending', ...named }
}

export const messageOf = (body: ErrorBody | null) => (Array.isArray(body?.message) ? body.message.join('; ') : body?.message)

/**
 * A non-2xx answer as a ProviderError: a 4xx other than 429 is a definite refusal; 429 and 5xx may
 * or may not have been acted on, so they are `unknown` (request_id and our ids make a retry safe).
 * The message never carries the request, so no key can leak into logs.
 */
export function errorFrom(status: number, body: ErrorBody | null): ProviderError {
  const text = messageOf(body)
  const message = `Creem ${status}${body?.error ? ` ${body.error}` : ''}${text ? `: ${text}` : ''}`
  const code = status === 401 || status === 403 ? 'unauthorized' : status === 404 ? 'not_found' : `HTTP_${status}`
  if (status >= 400 && status < 500 && status !== 429) return new ProviderError('rejected', code, message, false)
  return new ProviderError('unknown', code, message)
}
