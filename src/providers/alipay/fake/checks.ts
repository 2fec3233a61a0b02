/**
 * The gateway's checks, in the order it makes them: the method, the app, the common parameters,
 * certificate serials, the signature (isv.* errors, docs/providers.md#testing-offline-till-fake-alipay lists the sources);
 * then each API's business fields (ACQ.* errors).
 */
import { signingText, verifyRsa2 } from '../sign.js'
import type { FakeApp, FakeStore, Product } from './store.js'
import { parseBeijing, parseYuan } from './wire.js'

export const TRADE_METHODS = ['alipay.trade.precreate', 'alipay.trade.query', 'alipay.trade.close', 'alipay.trade.refund', 'alipay.trade.fastpay.refund.query'] as const
export const BILL_METHOD = 'alipay.data.dataservice.bill.downloadurl.query'
export const API_METHODS = [...TRADE_METHODS, BILL_METHOD] as const
export const PAGE_METHODS = ['alipay.trade.page.pay', 'alipay.trade.wap.pay'] as const
export type ApiMethod = (typeof API_METHODS)[number]
export type TradeMethod = (typeof TRADE_METHODS)[number]
export type PageMethod = (typeof PAGE_METHODS)[number]

export class GatewayError extends Error {
  constructor(
    readonly code: string,
    readonly subCode: string,
    readonly subMsg: string,
    readonly o: {
      /** Under `error_response`: the gateway could not tell which API was called. */
      errorResponse?: boolean
      /** Not signed: the app is unknown. */
      unsigned?: boolean
      /** Business fields Alipay adds to this error (a refused refund's refund_fee…). */
      extra?: Record<string, string>
      /** What exactly was wrong, for the request log (Alipay's sub_msg is often just 参数无效). */
      note?: string
    } = {},
  ) {
    super(`${subCode}: ${subMsg}`)
  }
}

const missing = (subCode: string, subMsg: string, o: GatewayError['o'] = {}) => new GatewayError('40001', subCode, subMsg, o)
const invalid = (subCode: string, subMsg: string, o: GatewayError['o'] = {}) => new GatewayError('40002', subCode, subMsg, o)
export const business = (subCode: string, subMsg: string, o: GatewayError['o'] = {}) => new GatewayError('40004', subCode, subMsg, o)
export const invalidParameter = (note: string, extra?: Record<string, string>) => business('ACQ.INVALID_PARAMETER', '参数无效', { note, extra })

export const isApiMethod = (m: string): m is ApiMethod => (API_METHODS as readonly string[]).includes(m)
export const isPageMethod = (m: string): m is PageMethod => (PAGE_METHODS as readonly string[]).includes(m)

/** Step 1: which API; without one there is no `<method>_response` to answer under. */
export function checkMethod(params: Record<string, string>): ApiMethod | PageMethod {
  const m = params.method
  if (!m) throw missing('isv.missing-method', '缺少方法名参数', { errorResponse: true, unsigned: true })
  if (!isApiMethod(m) && !isPageMethod(m)) throw invalid('isv.invalid-method', '不存在的方法名', { errorResponse: true, unsigned: true, note: 'the fake serves only the APIs Till uses' })
  return m
}

/**
 * Steps 2 to 5: the app, the common parameters, certificate serials (certificate mode), and the
 * signature over every parameter but `sign`. `verified` reports the signature check once made.
 */
export function authenticate(store: FakeStore, params: Record<string, string>, verified: (ok: boolean) => void): FakeApp {
  if (!params.app_id) throw missing('isv.missing-app-id', '缺少AppID参数', { unsigned: true })
  const app = store.apps.get(params.app_id)
  if (!app) throw invalid('isv.invalid-app-id', '无效的AppID参数', { unsigned: true })
  if (!params.sign_type) throw missing('isv.missing-signature-type', '缺少签名类型参数')
  if (params.sign_type === 'RSA') throw new GatewayError('40003', 'isv.missing-signature-config', '验签出错, 未配置对应签名算法的公钥或者证书', { note: 'the app has an RSA2 key only' })
  if (params.sign_type !== 'RSA2') throw invalid('isv.invalid-signature-type', '无效签名类型')
  if (!params.sign) throw missing('isv.missing-signature', '缺少签名参数')
  if (!params.timestamp) throw missing('isv.missing-timestamp', '缺少时间戳参数')
  const ts = parseBeijing(params.timestamp)
  const skew = store.knobs.maxTimestampSkewSec
  if (ts === null || (skew !== null && Math.abs(ts - store.nowMs()) > skew * 1000)) {
    throw invalid('isv.invalid-timestamp', '非法的时间戳参数', { note: 'timestamp is yyyy-MM-dd HH:mm:ss, Beijing time' })
  }
  if (!params.version) throw missing('isv.missing-version', '缺少版本参数')
  if ((params.charset ?? '').toLowerCase() !== 'utf-8') throw invalid('isv.invalid-charset', '字符集错误', { note: 'the fake takes charset=utf-8 only' })
  if (params.format !== undefined && params.format.toUpperCase() !== 'JSON') throw invalid('isv.invalid-format', '无效的数据格式')
  if (app.mode === 'cert') {
    if (!params.app_cert_sn) throw missing('isv.missing-app-cert-sn', '缺少应用公钥证书序列号')
    if (params.app_cert_sn !== app.appCertSn) throw invalid('isv.app-cert-not-exist', '应用公钥证书不存在')
    if (!params.alipay_root_cert_sn) throw missing('isv.missing-alipay-root-cert-sn', '缺少支付宝根证书序列号')
    if (!params.alipay_root_cert_sn.split('_').includes(store.pki.rootCertSn)) throw invalid('isv.invalid-alipay-root-cert-sn', '无效支付宝根证书序列号')
  }
  const text = signingText(params)
  const ok = verifyRsa2(text, params.sign, app.publicKey)
  verified(ok)
  if (!ok) {
    // The gateway shows the text it verified, with & escaped as it writes it.
    throw invalid('isv.invalid-signature', `验签出错，建议检查签名字符串或签名私钥与应用公钥是否匹配，网关生成的验签字符串为：${text.replace(/&/g, '&amp;')}`)
  }
  return app
}

/** biz_content as an object. */
export function bizContent(params: Record<string, string>): Record<string, unknown> {
  if (params.biz_content === undefined) throw invalidParameter('biz_content is missing')
  let biz: unknown
  try {
    biz = JSON.parse(params.biz_content)
  } catch {
    throw invalid('isv.invalid-parameter', '参数无效', { note: 'biz_content is not JSON' })
  }
  if (!biz || typeof biz !== 'object' || Array.isArray(biz)) throw invalid('isv.invalid-parameter', '参数无效', { note: 'biz_content is not a JSON object' })
  return biz as Record<string, unknown>
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)
const chars = (s: string) => Array.from(s).length
const MAX_TOTAL_FEN = 10_000_000_000 // 100000000.00 yuan
const DAY_MS = 24 * 3600_000
const PRODUCT_CODES: Record<Product, readonly (string | undefined)[]> = {
  precreate: [undefined, 'FACE_TO_FACE_PAYMENT', 'OFFLINE_PAYMENT'],
  page: ['FAST_INSTANT_TRADE_PAY'],
  wap: ['QUICK_WAP_WAY'],
}

export interface OrderRequest {
  outTradeNo: string
  total: number
  subject: string
  body?: string
  expiresAtMs: number
  notifyUrl?: string
  returnUrl?: string
  quitUrl?: string
  passbackParams?: string
  fingerprint: string
}

function checkUrl(v: string | undefined, name: string) {
  if (v !== undefined && !(/^https?:\/\//.test(v) && URL.canParse(v))) throw invalidParameter(`${name} is not an http(s) URL`)
}

/** `timeout_express` (1m to 15d, or 1c: the end of the Beijing day) or `time_expire`, which wins. */
function expiry(store: FakeStore, biz: Record<string, unknown>, product: Product): number {
  const now = store.nowMs()
  if (biz.time_expire !== undefined) {
    const at = parseBeijing(biz.time_expire)
    if (at === null || at <= now) throw invalidParameter('time_expire is yyyy-MM-dd HH:mm:ss, Beijing time, in the future')
    return at
  }
  if (biz.timeout_express !== undefined) {
    const t = str(biz.timeout_express)
    if (t === '1c') return Math.ceil((now + 8 * 3600_000 + 1) / DAY_MS) * DAY_MS - 8 * 3600_000
    const m = t ? /^([1-9]\d*)([mhd])$/.exec(t) : null
    const ms = m ? Number(m[1]) * { m: 60_000, h: 3600_000, d: DAY_MS }[m[2] as 'm' | 'h' | 'd'] : 0
    if (!m || ms > 15 * DAY_MS) throw invalidParameter('timeout_express is 1m to 15d, or 1c')
    return now + ms
  }
  // Nothing given: a precreate code lasts two hours, a cashier order the longest Alipay allows.
  return now + (product === 'precreate' ? 2 * 3600_000 : 15 * DAY_MS)
}

/** The business fields of precreate, page.pay and wap.pay (and return_url, notify_url from the common ones). */
export function readOrder(store: FakeStore, product: Product, params: Record<string, string>, biz: Record<string, unknown>): OrderRequest {
  const outTradeNo = str(biz.out_trade_no)
  if (!outTradeNo || !/^[0-9A-Za-z_]{1,64}$/.test(outTradeNo)) throw invalidParameter('out_trade_no: 1 to 64 letters, digits and underscores')
  if (biz.total_amount === undefined) throw invalidParameter('total_amount is missing')
  const total = parseYuan(biz.total_amount, store.knobs.strictAmounts)
  if (total === null || total < 1) throw invalidParameter(`total_amount must be yuan with at most two decimals, at least 0.01${store.knobs.strictAmounts ? ' (strictAmounts: a string with exactly two decimals)' : ''}`)
  if (total > MAX_TOTAL_FEN) throw business('ACQ.TOTAL_FEE_EXCEED', '订单金额超过限额')
  const currency = str(biz.trans_currency) ?? str(biz.settle_currency)
  if (currency !== undefined && currency !== 'CNY') throw business('ACQ.CURRENCY_NOT_SUPPORT', '订单币种不支持', { note: 'mainland Alipay takes CNY' })
  const subject = str(biz.subject)
  if (!subject || chars(subject) > 256) throw invalidParameter('subject: 1 to 256 characters')
  if (/[/=&]/.test(subject)) throw invalidParameter('subject must not contain special characters such as / = &')
  const body = str(biz.body)
  if (body !== undefined && chars(body) > 128) throw invalidParameter('body: at most 128 characters')
  if (!PRODUCT_CODES[product].includes(str(biz.product_code))) throw invalidParameter(`product_code must be ${PRODUCT_CODES[product].filter(Boolean).join(' or ')}`)
  const notifyUrl = str(params.notify_url)
  const returnUrl = product === 'precreate' ? undefined : str(params.return_url)
  const quitUrl = product === 'wap' ? str(biz.quit_url) : undefined
  checkUrl(notifyUrl, 'notify_url')
  checkUrl(returnUrl, 'return_url')
  checkUrl(quitUrl, 'quit_url')
  const passbackParams = str(biz.passback_params)
  return {
    outTradeNo, total, subject, body, expiresAtMs: expiry(store, biz, product), notifyUrl, returnUrl, quitUrl, passbackParams,
    fingerprint: JSON.stringify([product, total, subject, body ?? null]),
  }
}

/** trade_no or out_trade_no (trade_no wins when both are given). */
export function tradeRef(biz: Record<string, unknown>): { tradeNo?: string; outTradeNo?: string } {
  const tradeNo = str(biz.trade_no)
  const outTradeNo = str(biz.out_trade_no)
  if (!tradeNo && !outTradeNo) throw invalidParameter('trade_no or out_trade_no is required')
  return tradeNo ? { tradeNo } : { outTradeNo }
}

export interface RefundRequest {
  amount: number
  /** Without one, the refund's number is the out_trade_no (a full refund). */
  outRequestNo?: string
  reason?: string
}

export function readRefund(store: FakeStore, biz: Record<string, unknown>): RefundRequest {
  if (biz.refund_amount === undefined) throw invalidParameter('refund_amount is missing')
  const amount = parseYuan(biz.refund_amount, store.knobs.strictAmounts)
  if (amount === null || amount < 1) throw business('ACQ.REASON_TRADE_REFUND_FEE_ERR', '退款金额无效', { note: 'refund_amount must be yuan with at most two decimals, at least 0.01' })
  const outRequestNo = str(biz.out_request_no)
  if (outRequestNo !== undefined && chars(outRequestNo) > 64) throw invalidParameter('out_request_no: at most 64 characters')
  const reason = str(biz.refund_reason)
  if (reason !== undefined && chars(reason) > 256) throw invalidParameter('refund_reason: at most 256 characters')
  return { amount, outRequestNo, reason }
}
