/**
 * Alipay's OpenAPI v2 gateway as Till uses it (docs/providers.md#alipay-alipay): names and numbers
 * only. The adapter and `till fake alipay` each build and check messages with their own code.
 */
import type { Capabilities } from '../types.js'

/** The production gateway's origin; the gateway itself is {origin}/gateway.do. */
export const DEFAULT_API_BASE = 'https://openapi.alipay.com'
export const GATEWAY_PATH = '/gateway.do'

export const METHODS = {
  precreate: 'alipay.trade.precreate',
  pagePay: 'alipay.trade.page.pay',
  wapPay: 'alipay.trade.wap.pay',
  query: 'alipay.trade.query',
  close: 'alipay.trade.close',
  refund: 'alipay.trade.refund',
  refundQuery: 'alipay.trade.fastpay.refund.query',
  billDownloadUrl: 'alipay.data.dataservice.bill.downloadurl.query',
} as const

/** The product each channel's order names (the Java SDK's AlipayTrade*Model `product_code`). */
export const PRODUCT_CODES = {
  precreate: 'FACE_TO_FACE_PAYMENT',
  page: 'FAST_INSTANT_TRADE_PAY',
  wap: 'QUICK_WAP_WAY',
} as const

/**
 * The common parameters that travel in the gateway URL's query; everything else (biz_content) in
 * the form body. The same list as the official Node SDK's `formatUrl`.
 */
export const URL_PARAMS = [
  'app_id', 'method', 'format', 'charset', 'sign_type', 'sign', 'timestamp', 'version',
  'notify_url', 'return_url', 'auth_token', 'app_auth_token', 'app_cert_sn', 'alipay_root_cert_sn', 'ws_service_url',
] as const

/** Gateway answer codes (公共错误码). */
export const CODE_SUCCESS = '10000'
export const CODE_UNAVAILABLE = '20000'

/** What a notification is answered with when Till has taken it; anything else makes Alipay send it again. */
export const ACK_SUCCESS = 'success'
export const ACK_FAIL = 'fail'

/** A precreate qr_code can be scanned for 2 hours at most, whatever the order's expiry. */
export const QR_CODE_VALID_MS = 2 * 3600_000

/**
 * Alipay advises querying a refund no sooner than 10 s after it was asked for: an earlier query may
 * not see it yet. Till waits a minute before taking "no refund" as "never received".
 */
export const REFUND_QUERY_SETTLE_MS = 60_000

export const CHANNELS = ['precreate', 'page', 'wap'] as const
export type AlipayChannel = (typeof CHANNELS)[number]

/** What a desktop browser gets: the QR code on Till's page, or Alipay's own cashier page. */
export const DESKTOP_CHOICES = ['qr', 'page'] as const
export type DesktopChoice = (typeof DESKTOP_CHOICES)[number]

/** Mainland Alipay takes CNY only; cross-border (Alipay+ / Antom) is another product. */
export const ALIPAY_CAPABILITIES: Capabilities = {
  currencies: ['CNY'],
  channels: CHANNELS,
  partialRefunds: true,
  modes: ['live'],
}
