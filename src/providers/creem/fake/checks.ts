/**
 * How the fake checks each /v1 request, as Creem does (docs/providers.md#creem-creem): the API key
 * first (403, or 401 by knob), then the JSON body and its fields, every problem a message in the
 * 400 answer's `message` array. Unknown ids are 404.
 */
import { randomUUID } from 'node:crypto'
import { API_KEY_HEADER, CURRENCIES, MAX_CUSTOM_PRICE, MIN_PRICE } from '../constants.js'
import type { Account, FakeStore } from './store.js'

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' }

export class CreemError extends Error {
  constructor(readonly status: number, readonly messages: string[] = []) {
    super(messages.join('; ') || REASONS[status] || `HTTP ${status}`)
  }

  body(nowMs: number) {
    const body: Record<string, unknown> = { trace_id: randomUUID(), status: this.status, error: REASONS[this.status] ?? 'Error' }
    if (this.messages.length) body.message = this.messages
    body.timestamp = nowMs
    return body
  }
}

export function authenticate(store: FakeStore, headers: Record<string, string | string[] | undefined>): Account {
  const key = headers[API_KEY_HEADER]
  const account = store.account(typeof key === 'string' ? key : undefined)
  if (!account) throw new CreemError(store.knobs.authFailureStatus)
  return account
}

export function readBody(store: FakeStore, raw: Buffer, allowed: readonly string[]): Record<string, any> {
  let body: unknown
  try {
    body = JSON.parse(raw.toString('utf8') || 'null')
  } catch (e) {
    throw new CreemError(400, [`Unexpected token in JSON: ${(e as Error).message}`])
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new CreemError(400, ['request body must be a JSON object'])
  if (store.knobs.rejectUnknownFields) {
    const extra = Object.keys(body).filter((k) => !allowed.includes(k))
    if (extra.length) throw new CreemError(400, extra.map((k) => `property ${k} should not exist`))
  }
  return body as Record<string, any>
}

const isUrl = (v: unknown) => typeof v === 'string' && /^https?:\/\//.test(v) && URL.canParse(v)
const isString = (v: unknown, max = 10_000) => typeof v === 'string' && v.length > 0 && v.length <= max

/** The fields of the SDK's CreateProductRequestEntity (creem 1.13.0): anything else is refused as Creem does. */
export const PRODUCT_FIELDS = [
  'name', 'description', 'image_url', 'image_urls', 'price', 'currency', 'billing_type', 'billing_period', 'recurring_interval', 'recurring_interval_count',
  'tax_mode', 'business_net_pricing', 'tax_category', 'pay_what_you_want', 'suggested_price', 'trial_period_days', 'trial_price', 'default_success_url',
  'custom_fields', 'custom_field', 'abandoned_cart_recovery_enabled', 'usage_prices', 'features',
] as const
const BILLING_PERIODS = ['every-month', 'every-three-months', 'every-six-months', 'every-year']

export function validateProduct(b: Record<string, any>): string[] {
  const m: string[] = []
  if (!isString(b.name, 500)) m.push('name must be a non-empty string')
  if (b.description !== undefined && b.description !== null && typeof b.description !== 'string') m.push('description must be a string')
  if (!Number.isInteger(b.price) || (b.price !== 0 && b.price < MIN_PRICE)) m.push(`price must be an integer of at least ${MIN_PRICE} (or 0 for a free product)`)
  if (!(CURRENCIES as readonly string[]).includes(b.currency)) m.push(`currency must be one of the following values: ${CURRENCIES.join(', ')}`)
  if (b.billing_type !== 'onetime' && b.billing_type !== 'recurring') m.push('billing_type must be one of the following values: onetime, recurring')
  if (b.billing_type === 'recurring' && !BILLING_PERIODS.includes(b.billing_period)) m.push(`billing_period must be one of the following values: ${BILLING_PERIODS.join(', ')}`)
  if (b.tax_mode !== undefined && b.tax_mode !== 'inclusive' && b.tax_mode !== 'exclusive') m.push('tax_mode must be one of the following values: inclusive, exclusive')
  if (b.default_success_url !== undefined && b.default_success_url !== null && !isUrl(b.default_success_url)) m.push('default_success_url must be a URL address')
  return m
}

/** The fields of the SDK's CreateCheckoutRequest (creem 1.13.0). */
export const CHECKOUT_FIELDS = ['request_id', 'product_id', 'units', 'custom_price', 'discount_code', 'affiliate_code', 'customer', 'custom_field', 'custom_fields', 'success_url', 'metadata'] as const

export function validateCheckout(b: Record<string, any>): string[] {
  const m: string[] = []
  if (!isString(b.product_id, 200)) m.push('product_id must be a string')
  if (b.request_id !== undefined && !isString(b.request_id, 500)) m.push('request_id must be a string')
  if (b.units !== undefined && (!Number.isInteger(b.units) || b.units < 1)) m.push('units must not be less than 1')
  if (b.custom_price !== undefined && (!Number.isInteger(b.custom_price) || b.custom_price < MIN_PRICE || b.custom_price > MAX_CUSTOM_PRICE)) {
    m.push(`custom_price must be an integer from ${MIN_PRICE} to ${MAX_CUSTOM_PRICE}`)
  }
  if (b.discount_code !== undefined && typeof b.discount_code !== 'string') m.push('discount_code must be a string')
  if (b.customer !== undefined) {
    const c = b.customer
    if (!c || typeof c !== 'object' || Array.isArray(c)) m.push('customer must be an object')
    else if (c.id !== undefined && c.email !== undefined) m.push('You may only specify one of these parameters: customer.id, customer.email')
  }
  if (b.custom_fields !== undefined && (!Array.isArray(b.custom_fields) || b.custom_fields.length > 3)) m.push('custom_fields must contain no more than 3 elements')
  if (b.success_url !== undefined && !isUrl(b.success_url)) m.push('success_url must be a URL address')
  if (b.metadata !== undefined && (b.metadata === null || typeof b.metadata !== 'object' || Array.isArray(b.metadata))) m.push('metadata must be an object')
  return m
}

/** A query parameter that must be present once: `?checkout_id=…`. */
export function queryId(query: unknown, name: string): string {
  const v = (query as Record<string, unknown> | undefined)?.[name]
  if (typeof v !== 'string' || v.length === 0) throw new CreemError(400, [`${name} must be a string`])
  return v
}
