/**
 * Protocol constants shared by the Creem adapter and its fake (docs/providers.md#creem-creem). Only names and
 * numbers live here: each side builds and checks messages with its own code, so a shared bug
 * cannot pass.
 */
import type { Capabilities } from '../types.js'

export const DEFAULT_API_BASE = 'https://api.creem.io'

/** Request header carrying the API key; webhook header carrying the body's HMAC (both lowercase, as Node presents them). */
export const API_KEY_HEADER = 'x-api-key'
export const SIGNATURE_HEADER = 'creem-signature'
/** The redirect's own signature parameter, and the salt entry appended to what it signs (§2.4). */
export const RETURN_SIGNATURE_PARAM = 'signature'
export const RETURN_SALT_KEY = 'salt'

export const PATHS = {
  products: '/v1/products',
  checkouts: '/v1/checkouts',
  transactions: '/v1/transactions',
  transactionSearch: '/v1/transactions/search',
  refunds: '/v1/refunds',
} as const

/**
 * The body field naming the transaction in `POST /v1/refunds`. docs/providers.md#creem-creem marks it [U]:
 * Creem's reference describes "the unique identifier of the transaction to refund in full" without
 * showing its name in the snapshot we have. The adapter sends it and the fake requires it.
 */
export const REFUND_TRANSACTION_FIELD = 'transaction_id'

/** Product prices in minor units: at least 100 (0 means free, which Till never sells) (§2.2). */
export const MIN_PRICE = 100
/** A checkout's custom_price: 100 to 99999999 minor units (the SDK's CreateCheckoutRequest). */
export const MAX_CUSTOM_PRICE = 99_999_999
/** The listed price of Till's one product per currency; every checkout overrides it with custom_price. */
export const PRODUCT_PRICE = MIN_PRICE
export const CURRENCIES = ['EUR', 'USD'] as const

/** Delays after a failed webhook delivery, in seconds (§2.5: 30 s, 1 min, 5 min, 1 h), then the event is failed. */
export const WEBHOOK_RETRY_SCHEDULE_SEC = [30, 60, 300, 3600] as const

export const EVENT = {
  checkoutCompleted: 'checkout.completed',
  refundCreated: 'refund.created',
  disputeCreated: 'dispute.created',
} as const

/** The published test cards (§2.7): any future expiry, any CVC. */
export const TEST_CARDS = {
  '4242424242424242': 'success',
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000069': 'expired_card',
} as const

/** Refunds are full only: POST /v1/refunds refunds the whole remaining amount (§2.6). */
export const CREEM_CAPABILITIES: Capabilities = {
  currencies: CURRENCIES,
  channels: ['redirect'],
  partialRefunds: false,
  modes: ['live'],
  minAmount: { EUR: MIN_PRICE, USD: MIN_PRICE },
}
