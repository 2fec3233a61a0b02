/**
 * Request checks in the order docs/providers.md#testing-offline-till-fake-wechat gives: authentication over the raw method, target
 * and body bytes; Accept; JSON and unknown fields; then each field's rules (§1.5, §1.8).
 * Written from the protocol text alone: nothing here comes from the adapter.
 */
import { MAX_CLOCK_SKEW_SEC } from '../constants.js'
import { isOurScheme, merchantSigningString, parseAuthorization, parseRfc3339, verifyB64 } from './crypto.js'
import type { FakeMerchant, FakeStore, TradeType } from './store.js'

export class WxError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

const signError = () => new WxError(401, 'SIGN_ERROR', '签名错误')
export const param = (message: string) => new WxError(400, 'PARAM_ERROR', message)

export interface RawRequest {
  method: string
  /** The request target exactly as received: path and query, still escaped. */
  target: string
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)

/** Step 1: who is calling, and did they sign exactly these bytes within the time window. */
export function authenticate(store: FakeStore, req: RawRequest): FakeMerchant {
  const auth = parseAuthorization(one(req.headers.authorization))
  if (!auth || !isOurScheme(auth)) throw signError()
  const f = auth.fields
  for (const k of ['mchid', 'nonce_str', 'signature', 'timestamp', 'serial_no']) if (!f[k]) throw signError()
  const merchant = store.merchants.get(f.mchid)
  if (!merchant || f.serial_no.toUpperCase() !== merchant.serialNo.toUpperCase()) throw signError()
  if (!/^\d+$/.test(f.timestamp) || Math.abs(store.nowMs() / 1000 - Number(f.timestamp)) > MAX_CLOCK_SKEW_SEC) throw signError()
  const message = merchantSigningString(req.method, req.target, f.timestamp, f.nonce_str, req.body)
  if (!verifyB64(merchant.publicKey, message, f.signature)) throw signError()
  return merchant
}

/** Step 2: Accept, then JSON (POST only), then fields nobody documented. */
export function readBody(store: FakeStore, req: RawRequest, allowed: readonly string[] | null): Record<string, any> {
  if (store.knobs.enforceAccept && !one(req.headers.accept)) throw param('请求头Accept不能为空')
  if (allowed === null) return {}
  let body: unknown
  try {
    body = JSON.parse(req.body.toString('utf8'))
  } catch {
    throw param('请求体不是合法的JSON')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw param('请求体不是JSON对象')
  if (store.knobs.rejectUnknownFields) {
    for (const k of Object.keys(body)) if (!allowed.includes(k)) throw param(`参数中含有非法的额外参数: ${k}`)
  }
  return body as Record<string, any>
}

/** The fields of the Go SDK's PrepayRequest (wechatpay-go v0.2.21, native/jsapi/h5; payer is JSAPI's). */
export const ORDER_FIELDS = ['appid', 'mchid', 'description', 'out_trade_no', 'time_expire', 'attach', 'notify_url', 'goods_tag', 'limit_pay', 'support_fapiao', 'amount', 'payer', 'detail', 'scene_info', 'settle_info'] as const
export const REFUND_FIELDS = ['transaction_id', 'out_trade_no', 'out_refund_no', 'reason', 'notify_url', 'funds_account', 'amount', 'goods_detail'] as const
export const CLOSE_FIELDS = ['mchid'] as const

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v)
const chars = (s: string) => Array.from(s).length

function checkNotifyUrl(v: unknown, required: boolean) {
  if (v === undefined && !required) return
  if (typeof v !== 'string' || v.includes('?') || !/^https?:\/\/[^\s/]+/.test(v) || !URL.canParse(v)) throw param('notify_url格式不正确')
}

export interface ValidOrder {
  appid: string
  description: string
  out_trade_no: string
  time_expire?: string
  expiresAtMs: number
  attach?: string
  notify_url: string
  total: number
  openid?: string
  clientIp?: string
  /** The listed currency (the mainland's is always CNY). */
  currency?: string
}

/** Step 3 for orders: the §1.5 field rules, per trade type. */
export function validateOrder(store: FakeStore, m: FakeMerchant, type: TradeType, b: Record<string, any>): ValidOrder {
  if (typeof b.appid !== 'string' || !b.appid) throw param('缺少参数appid')
  if (typeof b.mchid !== 'string' || !b.mchid) throw param('缺少参数mchid')
  if (b.mchid !== m.mchId || !m.appIds.includes(b.appid)) throw new WxError(400, 'APPID_MCHID_NOT_MATCH', 'appid和mch_id不匹配')
  if (typeof b.description !== 'string' || chars(b.description) < 1 || chars(b.description) > 127) throw param('description长度应在1到127之间')
  if (typeof b.out_trade_no !== 'string' || !/^[0-9A-Za-z_\-|*]{6,32}$/.test(b.out_trade_no)) throw param('out_trade_no格式不正确')
  let expiresAtMs = store.nowMs() + 7 * 24 * 3600_000
  if (b.time_expire !== undefined) {
    const t = parseRfc3339(b.time_expire)
    if (t === null) throw param('time_expire格式不正确，应为RFC3339')
    if (t <= store.nowMs()) throw param('time_expire已过期')
    expiresAtMs = Math.min(t, expiresAtMs)
  }
  if (b.attach !== undefined && (typeof b.attach !== 'string' || chars(b.attach) > 128)) throw param('attach长度不能超过128')
  if (b.limit_pay !== undefined && !(Array.isArray(b.limit_pay) && b.limit_pay.every((x: unknown) => typeof x === 'string'))) throw param('limit_pay格式不正确')
  checkNotifyUrl(b.notify_url, true)
  const a = b.amount
  if (typeof a !== 'object' || a === null) throw param('缺少参数amount')
  for (const k of Object.keys(a)) if (!['total', 'currency'].includes(k)) throw param(`参数中含有非法的额外参数: amount.${k}`)
  if (!isInt(a.total) || a.total < 1) throw param('amount.total必须为正整数（单位为分）')
  if (a.currency !== undefined && a.currency !== 'CNY') throw param('amount.currency仅支持CNY')
  let openid: string | undefined
  if (type === 'JSAPI') {
    openid = b.payer?.openid
    if (typeof openid !== 'string' || !openid) throw param('JSAPI下单缺少payer.openid')
  }
  let clientIp: string | undefined
  if (type === 'MWEB') {
    clientIp = b.scene_info?.payer_client_ip
    if (typeof clientIp !== 'string' || !clientIp) throw param('H5下单缺少scene_info.payer_client_ip')
    if (!['iOS', 'Android', 'Wap'].includes(b.scene_info?.h5_info?.type)) throw param('H5下单缺少scene_info.h5_info.type')
  }
  return { appid: b.appid, description: b.description, out_trade_no: b.out_trade_no, time_expire: b.time_expire, expiresAtMs, attach: b.attach, notify_url: b.notify_url, total: a.total, openid, clientIp }
}

export interface ValidRefund {
  outTradeNo?: string
  transactionId?: string
  outRefundNo: string
  reason?: string
  notifyUrl?: string
  refund: number
  total: number
  currency?: string
}

/**
 * Step 3 for refunds: the §1.8 field rules (the order-level rules need the order, see api.ts).
 * The mainland refunds CNY only; cross-border, the currency must be the order's (checked in api.ts).
 */
export function validateRefund(b: Record<string, any>, crossBorder = false): ValidRefund {
  const hasTrade = typeof b.out_trade_no === 'string' && b.out_trade_no !== ''
  const hasTx = typeof b.transaction_id === 'string' && b.transaction_id !== ''
  if (!hasTrade && !hasTx) throw param('transaction_id和out_trade_no必须二选一')
  if (typeof b.out_refund_no !== 'string' || !/^[0-9A-Za-z_\-|*@]{1,64}$/.test(b.out_refund_no)) throw param('out_refund_no格式不正确')
  if (b.reason !== undefined && (typeof b.reason !== 'string' || chars(b.reason) > 80)) throw param('reason长度不能超过80')
  checkNotifyUrl(b.notify_url, false)
  const a = b.amount
  if (typeof a !== 'object' || a === null) throw param('缺少参数amount')
  if (!isInt(a.refund) || a.refund < 1) throw param('amount.refund必须为正整数')
  if (!isInt(a.total) || a.total < 1) throw param('amount.total必须为正整数')
  if (crossBorder ? typeof a.currency !== 'string' : a.currency !== 'CNY') throw param(crossBorder ? '缺少参数amount.currency' : 'amount.currency仅支持CNY')
  return { outTradeNo: hasTrade ? b.out_trade_no : undefined, transactionId: hasTx ? b.transaction_id : undefined, outRefundNo: b.out_refund_no, reason: b.reason, notifyUrl: b.notify_url, refund: a.refund, total: a.total, currency: a.currency }
}
