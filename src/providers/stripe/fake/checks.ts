/**
 * How the fake reads and refuses a request as Stripe does: the secret key as a Bearer token (or
 * Basic user), form bodies with bracketed keys parsed to objects, Stripe's error shape
 * `{error: {type, code, message, param}}`, and the Checkout Session's rules Till relies on.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { CURRENCIES, MAX_EXPIRY_SEC, MIN_EXPIRY_SEC } from '../constants.js'
import type { Account, FakeStore } from './store.js'

export class StripeError extends Error {
  constructor(readonly status: number, readonly type: string, message: string, readonly code?: string, readonly param?: string) {
    super(message)
  }

  body() {
    return { error: { type: this.type, message: this.message, ...(this.code ? { code: this.code } : {}), ...(this.param ? { param: this.param } : {}) } }
  }
}

export const invalid = (message: string, param?: string, code = 'parameter_invalid') => new StripeError(400, 'invalid_request_error', message, code, param)
export const missing = (what: string, id: string) => new StripeError(404, 'invalid_request_error', `No such ${what}: '${id}'`, 'resource_missing', 'id')

export function authenticate(store: FakeStore, headers: IncomingHttpHeaders): Account {
  const auth = headers.authorization ?? ''
  let key = ''
  if (auth.startsWith('Bearer ')) key = auth.slice(7)
  else if (auth.startsWith('Basic ')) key = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0]
  const account = store.accounts.get(key)
  if (!account) throw new StripeError(401, 'invalid_request_error', key ? `Invalid API Key provided: ${key.slice(0, 8)}…` : 'You did not provide an API key.')
  return account
}

/** `a[b][0][c]=v` → {a: {b: [{c: v}]}}: arrays where the keys are numbers. */
export function parseForm(text: string): Record<string, any> {
  const root: Record<string, any> = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[')
    let node: any = root
    path.forEach((p, i) => {
      const last = i === path.length - 1
      if (last) node[p] = value
      else node = node[p] ??= /^\d+$/.test(path[i + 1]) ? [] : {}
    })
  }
  return root
}

const int = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN)

export interface SessionInput {
  amount: number
  currency: string
  name: string
  clientReferenceId: string | null
  metadata: Record<string, string>
  piMetadata: Record<string, string>
  successUrl: string
  cancelUrl: string | null
  expiresAt: number
  locale: string | null
}

/** POST /v1/checkout/sessions in payment mode with one inline-priced line item, checked as Stripe would. */
export function readSession(b: Record<string, any>, nowSec: number): SessionInput {
  if (b.mode !== 'payment') throw invalid('This fake takes mode=payment only.', 'mode')
  const items = b.line_items
  if (!Array.isArray(items) || items.length !== 1) throw invalid('line_items must hold one item.', 'line_items')
  const item = items[0] ?? {}
  const pd = item.price_data ?? {}
  const amount = int(pd.unit_amount)
  const quantity = int(item.quantity ?? '1')
  if (!(CURRENCIES as readonly string[]).includes(String(pd.currency ?? '').toUpperCase()) || pd.currency !== String(pd.currency).toLowerCase()) throw invalid(`Invalid currency: ${pd.currency}.`, 'line_items[0][price_data][currency]')
  if (!Number.isInteger(amount) || amount < 1 || amount > 99_999_999) throw invalid('unit_amount must be a positive integer.', 'line_items[0][price_data][unit_amount]')
  if (quantity !== 1) throw invalid('quantity must be 1 here.', 'line_items[0][quantity]')
  const name = pd.product_data?.name
  if (typeof name !== 'string' || !name) throw invalid('Missing required param: line_items[0][price_data][product_data][name].', 'line_items[0][price_data][product_data][name]', 'parameter_missing')
  if (typeof b.success_url !== 'string' || !URL.canParse(b.success_url)) throw invalid('Not a valid URL', 'success_url', 'url_invalid')
  if (b.cancel_url !== undefined && !URL.canParse(b.cancel_url)) throw invalid('Not a valid URL', 'cancel_url', 'url_invalid')
  const expiresAt = b.expires_at === undefined ? nowSec + MAX_EXPIRY_SEC : int(b.expires_at)
  if (!(expiresAt >= nowSec + MIN_EXPIRY_SEC && expiresAt <= nowSec + MAX_EXPIRY_SEC)) {
    throw invalid('The `expires_at` timestamp must be at least 30 minutes and less than 24 hours from Checkout Session creation.', 'expires_at')
  }
  const ref = b.client_reference_id
  if (ref !== undefined && (typeof ref !== 'string' || ref.length > 200)) throw invalid('client_reference_id must be at most 200 characters.', 'client_reference_id')
  return {
    amount, currency: pd.currency, name, clientReferenceId: ref ?? null, metadata: b.metadata ?? {}, piMetadata: b.payment_intent_data?.metadata ?? {},
    successUrl: b.success_url, cancelUrl: b.cancel_url ?? null, expiresAt, locale: b.locale ?? null,
  }
}

/** `expand[]=x` (Till's way) or `expand[0]=x` (stripe-node's) in a query. */
export const expands = (q: unknown, what: string) =>
  Object.entries((q ?? {}) as Record<string, unknown>).some(([k, v]) => (k === 'expand' || k.startsWith('expand[')) && (Array.isArray(v) ? v : [v]).includes(what))
