/**
 * WeChat Pay v3 wire shapes and their pure conversions into Till's normalized facts (docs/architecture.md).
 * No I/O. Field names follow docs/providers.md#wechat-pay-wechat; every response field is optional on read.
 */
import type { AttemptInput, PaymentFact, PaymentState, RefundFact, RefundState } from '../types.js'
import { ProviderError } from '../types.js'
import type { WechatChannel } from './constants.js'

export interface Amount {
  total: number
  currency: 'CNY'
}

export interface OrderRequest {
  appid: string
  mchid: string
  description: string
  out_trade_no: string
  time_expire: string
  notify_url: string
  amount: Amount
  payer?: { openid: string }
  scene_info?: { payer_client_ip: string; h5_info: { type: 'iOS' | 'Android' | 'Wap' } }
}

export interface Transaction {
  appid?: string
  mchid?: string
  out_trade_no?: string
  transaction_id?: string
  trade_type?: string
  trade_state?: string
  trade_state_desc?: string
  success_time?: string
  payer?: { openid?: string }
  amount?: { total?: number; payer_total?: number; currency?: string; payer_currency?: string }
}

export interface RefundRequest {
  out_trade_no?: string
  transaction_id?: string
  out_refund_no: string
  reason?: string
  notify_url: string
  amount: { refund: number; total: number; currency: 'CNY' }
}

export interface Refund {
  refund_id?: string
  out_refund_no?: string
  transaction_id?: string
  out_trade_no?: string
  status?: string
  success_time?: string
  amount?: { total?: number; refund?: number; currency?: string }
}

/** Decrypted REFUND.* plaintext: like Refund, but the status is `refund_status`. */
export interface RefundNotice extends Omit<Refund, 'status'> {
  mchid?: string
  refund_status?: string
}

export interface ErrorBody {
  code?: string
  message?: string
}

export interface NotificationEnvelope {
  id?: string
  create_time?: string
  event_type?: string
  resource_type?: string
  summary?: string
  resource?: { algorithm?: string; ciphertext?: string; associated_data?: string; nonce?: string; original_type?: string }
}

export interface CertificateEntry {
  serial_no: string
  effective_time?: string
  expire_time?: string
  encrypt_certificate: { algorithm: string; nonce: string; associated_data?: string; ciphertext: string }
}

/** 6 to 32 characters of [0-9A-Za-z_-|*]: our attempt ids (`att_` + 24 base62) always fit. */
export const isValidOutTradeNo = (s: string) => /^[0-9A-Za-z_\-|*]{6,32}$/.test(s)
export const isValidOutRefundNo = (s: string) => /^[0-9A-Za-z_\-|*@]{1,64}$/.test(s)
const OUR_REFUND_ID = /^ref_[0-9A-Za-z]{24}$/

/** RFC 3339 in Beijing time (+08:00), whole seconds, rounded down so the order never outlives the session. */
export function toBeijingTime(d: Date): string {
  const b = new Date(Math.floor(d.getTime() / 1000) * 1000 + 8 * 3600_000)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${b.getUTCFullYear()}-${p(b.getUTCMonth() + 1)}-${p(b.getUTCDate())}T${p(b.getUTCHours())}:${p(b.getUTCMinutes())}:${p(b.getUTCSeconds())}+08:00`
}

export function parseWechatTime(s: string | undefined): Date | undefined {
  if (!s) return undefined
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export const DESCRIPTION_MAX = 127

/** The payer's bill line: the session's description cut to 127 characters, or a fallback naming the session. */
export function orderDescription(description: string | null, sessionId: string): string {
  const text = description?.trim() || `Payment ${sessionId}`
  const chars = Array.from(text)
  return chars.length > DESCRIPTION_MAX ? chars.slice(0, DESCRIPTION_MAX).join('') : text
}

export interface MerchantIds {
  mchId: string
  appId: string
}

/** The fields every order carries, on either service; throws `rejected` for ids WeChat would refuse. */
export function orderCommon(m: MerchantIds, a: AttemptInput) {
  if (!isValidOutTradeNo(a.attemptId)) throw new ProviderError('rejected', 'invalid_out_trade_no', `${a.attemptId} is not a valid out_trade_no`, false)
  if (a.notifyUrl.includes('?')) throw new ProviderError('rejected', 'invalid_notify_url', 'notify_url must carry no query string', false)
  return {
    appid: m.appId,
    mchid: m.mchId,
    description: orderDescription(a.description, a.sessionId),
    out_trade_no: a.attemptId,
    time_expire: toBeijingTime(a.expiresAt),
    notify_url: a.notifyUrl,
  }
}

/** JSAPI names the payer; H5 needs the customer's IP (the mainland also an h5_info type). */
export function channelFields(channel: WechatChannel, a: AttemptInput, h5Info: boolean) {
  if (channel === 'jsapi') {
    if (!a.payerId) throw new ProviderError('rejected', 'openid_required', 'JSAPI needs the payer openid', false)
    return { payer: { openid: a.payerId } }
  }
  if (channel === 'h5') {
    if (!a.clientIp) throw new ProviderError('rejected', 'client_ip_required', 'H5 needs the customer IP address', false)
    return { scene_info: h5Info ? { payer_client_ip: a.clientIp, h5_info: { type: 'Wap' as const } } : { payer_client_ip: a.clientIp } }
  }
  return {}
}

/** The order body for one channel. Throws `rejected` for input WeChat would refuse, before any call. */
export function orderRequest(channel: WechatChannel, m: MerchantIds, a: AttemptInput): OrderRequest {
  if (a.currency !== 'CNY') throw new ProviderError('rejected', 'unsupported_currency', `WeChat Pay takes CNY only, not ${a.currency}`, false)
  return { ...orderCommon(m, a), amount: { total: a.amount, currency: 'CNY' }, ...channelFields(channel, a, true) } as OrderRequest
}

/** H5: WeChat returns the browser to redirect_url after paying; its domain must be the configured H5 domain. */
export const h5RedirectUrl = (h5Url: string, returnUrl: string) => `${h5Url}&redirect_url=${encodeURIComponent(returnUrl)}`

/** trade_state → attempt status. REFUND means it was paid first. PAYERROR is the only definitive failure. */
export function paymentState(t: Transaction): PaymentState {
  switch (t.trade_state) {
    case 'SUCCESS':
    case 'REFUND':
      return { status: 'succeeded', providerRef: t.transaction_id, amount: t.amount?.total, currency: t.amount?.currency, paidAt: parseWechatTime(t.success_time) }
    case 'CLOSED':
    case 'REVOKED':
      return { status: 'closed' }
    case 'PAYERROR':
      return { status: 'failed' }
    default:
      // NOTPAY, USERPAYING and anything new: keep asking.
      return { status: 'pending' }
  }
}

/** A paid Transaction (query or TRANSACTION.SUCCESS plaintext) as a payment fact. */
export function paymentFact(t: Transaction): PaymentFact {
  const s = paymentState(t)
  return {
    kind: 'payment',
    attemptId: t.out_trade_no ?? '',
    status: s.status === 'succeeded' ? 'succeeded' : s.status === 'failed' ? 'failed' : 'pending',
    providerRef: t.transaction_id,
    amount: t.amount?.total,
    currency: t.amount?.currency,
    paidAt: s.paidAt,
  }
}

/**
 * Refund status → Till's. ABNORMAL is not a failure: WeChat still holds the amount until the
 * merchant settles it in the merchant platform, and it may still end SUCCESS, so it stays pending
 * (reconciliation keeps asking) and the amount stays reserved. CLOSED is final. `currency` is the
 * one a refund object's amount names, for the core to check against the record's.
 */
export function refundState(status: string | undefined, refundId?: string, currency?: string): RefundState {
  const named = { providerRefundRef: refundId, ...(currency ? { currency } : {}) }
  switch (status) {
    case 'SUCCESS':
      return { status: 'succeeded', ...named }
    case 'CLOSED':
      return { status: 'failed', ...named, failureReason: 'CLOSED: the refund was closed by WeChat Pay' }
    case 'ABNORMAL':
      return { status: 'pending', ...named, failureReason: 'ABNORMAL: the refund could not reach the payer; handle it in the merchant platform' }
    default:
      return { status: 'pending', ...named }
  }
}

/**
 * A REFUND.* notification as a refund fact; refunds started outside Till carry no refund id of ours.
 * The mainland's plaintext names no currency: its API refunds CNY only, so an absent one is CNY.
 */
export function refundFact(n: RefundNotice): RefundFact {
  const s = refundState(n.refund_status, n.refund_id)
  return {
    kind: 'refund',
    refundId: n.out_refund_no && OUR_REFUND_ID.test(n.out_refund_no) ? n.out_refund_no : undefined,
    providerRefundRef: n.refund_id,
    attemptId: n.out_trade_no,
    status: s.status,
    amount: n.amount?.refund,
    currency: n.amount?.currency ?? 'CNY',
    ...(s.failureReason ? { failureReason: s.failureReason } : {}),
  }
}

/**
 * A non-2xx answer as a ProviderError. A 4xx is a definite refusal whatever its code (codes beyond
 * the documented refund list are unconfirmed, so the class decides); 429 and 5xx may or may not have
 * been acted on, so they are `unknown` and our ids (out_trade_no, out_refund_no) make the retry safe.
 */
export function errorFrom(status: number, body: ErrorBody | null): ProviderError {
  const code = body?.code ?? `HTTP_${status}`
  const message = `WeChat Pay ${status} ${code}${body?.message ? `: ${body.message}` : ''}`
  if (status >= 400 && status < 500 && status !== 429) return new ProviderError('rejected', code, message, false)
  return new ProviderError('unknown', code, message)
}
