/**
 * WeChat Pay Global (cross-border) API v3 wire shapes and their pure conversions, direct ("common")
 * mode. Signing, verification, notifications and AES-GCM are the mainland's (sign.ts); what differs
 * is here: `trade_type`, the listed `currency`, `merchant_category_code`, the order id named `id`,
 * refund ids named `id`, `REFUNDCLOSE`, and the exchange fields (`payer_total`, `payer_currency`,
 * `exchange_rate{type, rate}`). Every response field is optional on read. See docs/providers.md.
 */
import type { Currency } from '../../domain/money.js'
import type { AttemptInput, Charged, PaymentFact, PaymentState, RefundFact, RefundState } from '../types.js'
import { ProviderError } from '../types.js'
import type { WechatChannel } from './constants.js'
import { channelFields, orderCommon, paymentFact, paymentState, refundState, type NotificationEnvelope, type Transaction } from './wire.js'

export type { NotificationEnvelope }

export const TRADE_TYPES: Record<WechatChannel, 'NATIVE' | 'JSAPI' | 'MWEB'> = { native: 'NATIVE', jsapi: 'JSAPI', h5: 'MWEB' }

/** `exchange_rate.rate` is an integer: the rate times 10^8 (documented example 80000000). */
export const RATE_SCALE = 100_000_000

export interface GlobalOrderRequest {
  appid: string
  mchid: string
  description: string
  out_trade_no: string
  trade_type: 'NATIVE' | 'JSAPI' | 'MWEB'
  merchant_category_code: string
  time_expire: string
  notify_url: string
  amount: { total: number; currency: Currency }
  payer?: { openid: string }
  scene_info?: { payer_client_ip: string }
}

export interface ExchangeRate {
  /** USERPAYMENT_RATE: listed currency → the payer's (CNY); SETTLEMENT_RATE: listed → settlement. */
  type?: string
  rate?: number
}

export interface GlobalTransaction {
  appid?: string
  mchid?: string
  out_trade_no?: string
  /** The WeChat order number (the mainland API calls it transaction_id). */
  id?: string
  transaction_id?: string
  trade_type?: string
  trade_state?: string
  trade_state_desc?: string
  success_time?: string
  payer?: { openid?: string }
  amount?: { total?: number; currency?: string; payer_total?: number; payer_currency?: string; exchange_rate?: ExchangeRate }
}

export interface GlobalRefundRequest {
  mchid: string
  appid: string
  out_trade_no?: string
  transaction_id?: string
  out_refund_no: string
  reason?: string
  notify_url: string
  amount: { refund: number; total: number; currency: Currency }
}

export interface GlobalRefund {
  /** The WeChat refund number. */
  id?: string
  refund_id?: string
  out_refund_no?: string
  transaction_id?: string
  out_trade_no?: string
  status?: string
  /** In REFUND.* notification plaintext. */
  refund_status?: string
  mchid?: string
  success_time?: string
  amount?: { refund?: number; total?: number; currency?: string; payer_refund?: number; payer_currency?: string; exchange_rate?: ExchangeRate }
}

export interface MerchantProfile {
  mchId: string
  appId: string
  merchantCategoryCode: string
}

/** The order body for one channel; throws `rejected` for what WeChat would refuse, before any call. */
export function globalOrderRequest(channel: WechatChannel, m: MerchantProfile, listed: readonly Currency[], a: AttemptInput): GlobalOrderRequest {
  if (!listed.includes(a.currency)) throw new ProviderError('rejected', 'unsupported_currency', `this WeChat Pay Global configuration lists ${listed.join(', ') || 'nothing'}, not ${a.currency}`, false)
  return {
    ...orderCommon(m, a),
    trade_type: TRADE_TYPES[channel],
    merchant_category_code: m.merchantCategoryCode,
    // Minor units of the listed currency: JPY has none below the yen, so 1500 is ¥1,500.
    amount: { total: a.amount, currency: a.currency },
    ...channelFields(channel, a, false),
  }
}

/** `rate` × 10^-8 as a decimal string without trailing zeros: 92000000 → "0.92". */
export function rateText(rate: number): string {
  const whole = Math.floor(rate / RATE_SCALE)
  const frac = String(rate % RATE_SCALE).padStart(8, '0').replace(/0+$/, '')
  return frac ? `${whole}.${frac}` : String(whole)
}

/**
 * What the customer paid, when WeChat reports it in another currency than the listed one. Only a
 * USERPAYMENT_RATE is the customer's rate; a SETTLEMENT_RATE (listed → settlement) is not shown.
 */
export function chargedOf(amount: GlobalTransaction['amount']): Charged | undefined {
  if (!amount || !Number.isInteger(amount.payer_total) || !amount.payer_currency || amount.payer_currency === amount.currency) return undefined
  const r = amount.exchange_rate
  const rate = r?.type === 'USERPAYMENT_RATE' && Number.isInteger(r.rate) && r.rate! > 0 ? rateText(r.rate!) : undefined
  return { amount: amount.payer_total!, currency: amount.payer_currency, ...(rate ? { rate } : {}) }
}

/** As the mainland's Transaction: the order number read from `id`. */
const asMainland = (t: GlobalTransaction): Transaction => ({ ...t, transaction_id: t.id ?? t.transaction_id })
const chargedData = (t: GlobalTransaction) => {
  const charged = chargedOf(t.amount)
  return charged ? { data: { charged } } : {}
}

/** trade_state → attempt status as on the mainland; a paid one also says what the payer was charged. */
export function globalPaymentState(t: GlobalTransaction): PaymentState {
  const s = paymentState(asMainland(t))
  return s.status === 'succeeded' ? { ...s, ...chargedData(t) } : s
}

export function globalPaymentFact(t: GlobalTransaction): PaymentFact {
  const f = paymentFact(asMainland(t))
  return f.status === 'succeeded' ? { ...f, ...chargedData(t) } : f
}

/** The global API closes a refund as REFUNDCLOSE; the rest reads as on the mainland. */
export const globalRefundState = (status: string | undefined, refundId?: string, currency?: string): RefundState =>
  refundState(status === 'REFUNDCLOSE' ? 'CLOSED' : status, refundId, currency)

const OUR_REFUND_ID = /^ref_[0-9A-Za-z]{24}$/

/** A REFUND.* notification (or a refund object) as a refund fact; either id field name is read. */
export function globalRefundFact(n: GlobalRefund): RefundFact {
  const refundId = n.refund_id ?? n.id
  const s = globalRefundState(n.refund_status ?? n.status, refundId)
  return {
    kind: 'refund',
    refundId: n.out_refund_no && OUR_REFUND_ID.test(n.out_refund_no) ? n.out_refund_no : undefined,
    providerRefundRef: refundId,
    attemptId: n.out_trade_no,
    status: s.status,
    amount: n.amount?.refund,
    currency: n.amount?.currency,
    ...(s.failureReason ? { failureReason: s.failureReason } : {}),
  }
}
