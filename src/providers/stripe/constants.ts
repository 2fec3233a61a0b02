/**
 * Protocol constants shared by the Stripe adapter and its fake (docs/providers.md#stripe-stripe). Only
 * names and numbers live here: each side builds and checks messages with its own code, so a shared
 * bug cannot pass.
 */
import type { Capabilities } from '../types.js'

export const DEFAULT_API_BASE = 'https://api.stripe.com'

/** The webhook header (lowercase, as Node presents it): `t=<unix>,v1=<hex>[,v1=…]`. */
export const SIGNATURE_HEADER = 'stripe-signature'
/** Stripe's own default tolerance between a signature's timestamp and now (stripe-node Webhooks). */
export const SIGNATURE_TOLERANCE_SEC = 300

export const PATHS = {
  checkoutSessions: '/v1/checkout/sessions',
  refunds: '/v1/refunds',
  balanceTransactions: '/v1/balance_transactions',
  webhookEndpoints: '/v1/webhook_endpoints',
  disputes: '/v1/disputes',
} as const

/** Stripe takes a Checkout Session's expires_at 30 minutes to 24 hours ahead (API reference, Checkout Sessions). */
export const MIN_EXPIRY_SEC = 30 * 60
export const MAX_EXPIRY_SEC = 24 * 3600
/** Kept inside Stripe's window however our clock and Stripe's differ. */
export const EXPIRY_MARGIN_SEC = 60

/** Metadata keys Till writes on Checkout Sessions, their PaymentIntents and refunds. */
export const META = { session: 'till_session_id', attempt: 'till_attempt_id', refund: 'till_refund_id' } as const

export const EVENT = {
  checkoutCompleted: 'checkout.session.completed',
  asyncSucceeded: 'checkout.session.async_payment_succeeded',
  asyncFailed: 'checkout.session.async_payment_failed',
  checkoutExpired: 'checkout.session.expired',
  refundCreated: 'refund.created',
  refundUpdated: 'refund.updated',
  refundFailed: 'refund.failed',
  chargeRefunded: 'charge.refunded',
  disputeCreated: 'charge.dispute.created',
  disputeClosed: 'charge.dispute.closed',
} as const

/** What Till's webhook endpoint subscribes to (docs/providers.md#stripe-stripe). */
export const WEBHOOK_EVENTS = Object.values(EVENT)

/** Stripe's minor units are Till's: JPY is zero-decimal in both (Stripe docs, "Currencies"), the others have two. */
export const CURRENCIES = ['CNY', 'USD', 'HKD', 'JPY', 'EUR'] as const

/**
 * Stripe's smallest charge per currency (docs, "Minimum and maximum charge amounts"); CNY is not in
 * that table (its minimum follows the settlement currency's), so Stripe's own answer decides there.
 */
export const MIN_AMOUNT = { USD: 50, EUR: 50, HKD: 400, JPY: 50 } as const
/** Stripe's amount field takes at most eight digits. */
export const MAX_AMOUNT = 99_999_999

/** Webhook retries for up to three days in live mode, backing off (docs, "Event delivery behaviours"); the fake's schedule, in seconds. */
export const WEBHOOK_RETRY_SCHEDULE_SEC = [60, 300, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600] as const

/** Stripe's documented test cards (docs, "Testing"): any future expiry, any CVC. */
export const TEST_CARDS = {
  '4242424242424242': 'success',
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient_funds',
  '4000002760003184': 'three_d_secure',
} as const

export const STRIPE_CAPABILITIES: Capabilities = {
  currencies: CURRENCIES,
  channels: ['redirect'],
  partialRefunds: true,
  modes: ['live'],
  minAmount: MIN_AMOUNT,
}
