/** How the fake shows its orders and refunds on the wire (Transaction §1.7, Refund §1.8), and its signing identity. */
import type { KeyObject } from 'node:crypto'
import { SIGN_SCHEME } from '../constants.js'
import { beijing, randomAlnum, randomDigits, signB64, wechatSigningString } from './crypto.js'
import type { FakeStore, Order, RefundRecord } from './store.js'

const TRADE_TYPE_DESC: Record<string, string> = {
  NOTPAY: '订单未支付',
  SUCCESS: '支付成功',
  CLOSED: '订单已关闭',
  REFUND: '转入退款',
}

/** Minor units per major unit; written out here rather than imported, so the fake stays independent of Till. */
const FACTOR: Record<string, number> = { CNY: 100, HKD: 100, USD: 100, EUR: 100, JPY: 1 }
export const RATE_SCALE = 100_000_000

/** An amount in the listed currency's minor units as CNY fen at `rate` (× 10^8 CNY per major unit), rounded half up. */
export const cnyFen = (amount: number, currency: string, rate: number) => Math.round((amount * rate) / ((FACTOR[currency] ?? 100) * 1_000_000))

/**
 * The Transaction (§1.7). Cross-border, the order number is `id`, the amount is in the listed
 * currency, and once paid it says what the payer was charged in CNY and at which rate (USERPAYMENT_RATE).
 */
export function transactionView(o: Order) {
  const paid = o.state === 'SUCCESS' || o.state === 'REFUND'
  const global = o.service === 'cross_border'
  return {
    appid: o.appId,
    mchid: o.mchId,
    out_trade_no: o.outTradeNo,
    ...(paid ? (global ? { id: o.transactionId } : { transaction_id: o.transactionId }) : {}),
    trade_type: o.tradeType,
    trade_state: o.state,
    trade_state_desc: TRADE_TYPE_DESC[o.state],
    ...(paid ? { bank_type: o.bankType ?? 'OTHERS' } : {}),
    attach: o.attach ?? '',
    ...(paid ? { success_time: beijing(o.successTimeMs!), payer: { openid: o.payerOpenid } } : {}),
    amount: !paid ? { total: o.total, currency: o.currency }
      : global ? { total: o.total, currency: o.currency, payer_total: o.payerTotal, payer_currency: 'CNY', exchange_rate: { type: 'USERPAYMENT_RATE', rate: o.rate } }
        : { total: o.total, payer_total: o.total, currency: 'CNY', payer_currency: 'CNY' },
  }
}

const globalRefundAmount = (r: RefundRecord) => ({
  refund: r.refund, total: r.total, currency: r.currency, payer_refund: r.payerRefund, payer_currency: 'CNY',
  exchange_rate: { type: 'USERPAYMENT_RATE', rate: r.rate },
})

/** The cross-border refund: `id`, REFUNDCLOSE, amounts in the listed currency and the payer's CNY. */
function globalRefundView(r: RefundRecord) {
  return {
    id: r.refundId,
    out_refund_no: r.outRefundNo,
    transaction_id: r.transactionId,
    out_trade_no: r.outTradeNo,
    channel: 'ORIGINAL',
    recv_account: '支付用户零钱',
    fund_source: 'REFUND_SOURCE_UNSETTLED_FUNDS',
    ...(r.status === 'SUCCESS' ? { success_time: beijing(r.successTimeMs!) } : {}),
    create_time: beijing(r.createTimeMs),
    status: r.status === 'CLOSED' ? 'REFUNDCLOSE' : r.status,
    amount: globalRefundAmount(r),
  }
}

/** The answer to a cross-border refund request: documented without a status (the result comes later). */
export function globalRefundCreatedView(r: RefundRecord) {
  return { id: r.refundId, out_refund_no: r.outRefundNo, create_time: beijing(r.createTimeMs), amount: globalRefundAmount(r) }
}

export function refundView(r: RefundRecord) {
  if (r.service === 'cross_border') return globalRefundView(r)
  return {
    refund_id: r.refundId,
    out_refund_no: r.outRefundNo,
    transaction_id: r.transactionId,
    out_trade_no: r.outTradeNo,
    channel: 'ORIGINAL',
    user_received_account: '支付用户零钱',
    ...(r.status === 'SUCCESS' ? { success_time: beijing(r.successTimeMs!) } : {}),
    create_time: beijing(r.createTimeMs),
    status: r.status,
    funds_account: 'AVAILABLE',
    amount: { total: r.total, refund: r.refund, from: [], payer_total: r.total, payer_refund: r.refund, settlement_refund: r.refund, settlement_total: r.total, discount_refund: 0, currency: 'CNY' },
    promotion_detail: [],
  }
}

/** The decrypted REFUND.* plaintext (§1.10): the status is named refund_status there. */
export function refundNoticeView(r: RefundRecord) {
  if (r.service === 'cross_border') {
    return {
      mchid: r.mchId, transaction_id: r.transactionId, out_trade_no: r.outTradeNo, refund_id: r.refundId, out_refund_no: r.outRefundNo,
      refund_status: r.status === 'CLOSED' ? 'REFUNDCLOSE' : r.status,
      ...(r.status === 'SUCCESS' ? { success_time: beijing(r.successTimeMs!) } : {}),
      recv_account: '支付用户零钱',
      amount: { total: r.total, refund: r.refund, currency: r.currency, payer_refund: r.payerRefund, payer_currency: 'CNY' },
    }
  }
  return {
    mchid: r.mchId,
    transaction_id: r.transactionId,
    out_trade_no: r.outTradeNo,
    refund_id: r.refundId,
    out_refund_no: r.outRefundNo,
    refund_status: r.status,
    ...(r.status === 'SUCCESS' ? { success_time: beijing(r.successTimeMs!) } : {}),
    user_received_account: '支付用户零钱',
    amount: { total: r.total, refund: r.refund, payer_total: r.total, payer_refund: r.refund },
  }
}

/**
 * Who signs now. Certificate mode: the newest certificate. Public-key mode: the public key's pair,
 * except for an API request that did not name PUB_KEY_ID_… in Wechatpay-Serial, which gets the
 * certificate as merchants mid-migration saw (pitfall P3). Notifications pass no request serial.
 */
export function signer(store: FakeStore, request?: { serial: string | undefined }): { serial: string; key: KeyObject } {
  const p = store.platform
  const cert = p.certs[0]
  if (p.mode === 'platformCert') return { serial: cert.serial, key: cert.privateKey }
  if (request && request.serial !== p.publicKeyId) return { serial: cert.serial, key: cert.privateKey }
  return { serial: p.publicKeyId, key: p.key.privateKey }
}

/** The headers that sign an answer: over its body, or for a statement over its SHA1. `requestSerial` is what the request named. */
export function signedAnswerHeaders(store: FakeStore, requestSerial: string | undefined, signed: string): Record<string, string> {
  const ts = String(Math.floor(store.nowMs() / 1000))
  const nonce = randomAlnum(32)
  const who = signer(store, { serial: requestSerial })
  return {
    'Wechatpay-Timestamp': ts,
    'Wechatpay-Nonce': nonce,
    'Wechatpay-Serial': who.serial,
    'Wechatpay-Signature-Type': SIGN_SCHEME,
    'Wechatpay-Signature': signB64(who.key, wechatSigningString(ts, nonce, signed)),
    'Request-ID': `08${randomDigits(10)}-${randomDigits(9)}`,
  }
}
