/**
 * Protocol constants shared by the adapter and its fake (docs/providers.md#wechat-pay-wechat). Only names and numbers
 * live here: each side builds and checks messages with its own code, so a shared bug cannot pass.
 */
import type { Capabilities } from '../types.js'

export const DEFAULT_API_BASE = 'https://api.mch.weixin.qq.com'
/** WeChat Pay Global (cross-border) API v3 host. */
export const DEFAULT_GLOBAL_API_BASE = 'https://apihk.mch.weixin.qq.com'
/** Hosts of the official-account OAuth used to learn a JSAPI payer's openid. */
export const DEFAULT_OAUTH_BASE = 'https://open.weixin.qq.com'
export const DEFAULT_SNS_API_BASE = 'https://api.weixin.qq.com'

export const SIGN_SCHEME = 'WECHATPAY2-SHA256-RSA2048'
export const AEAD_ALGORITHM = 'AEAD_AES_256_GCM'
export const PUBLIC_KEY_ID_PREFIX = 'PUB_KEY_ID_'
/** Prefix of the deliberately wrong signatures WeChat sends to check that merchants verify. */
export const SIGNTEST_PREFIX = 'WECHATPAY/SIGNTEST/'
/** |now − Wechatpay-Timestamp| at or above this is refused, both ways. */
export const MAX_CLOCK_SKEW_SEC = 300

/** Response and notification headers, lowercase as Node presents them. */
export const H = {
  timestamp: 'wechatpay-timestamp',
  nonce: 'wechatpay-nonce',
  signature: 'wechatpay-signature',
  serial: 'wechatpay-serial',
  signatureType: 'wechatpay-signature-type',
  requestId: 'request-id',
} as const

export const PATHS = {
  native: '/v3/pay/transactions/native',
  jsapi: '/v3/pay/transactions/jsapi',
  h5: '/v3/pay/transactions/h5',
  byOutTradeNo: '/v3/pay/transactions/out-trade-no/',
  byTransactionId: '/v3/pay/transactions/id/',
  refunds: '/v3/refund/domestic/refunds',
  certificates: '/v3/certificates',
  oauthAuthorize: '/connect/oauth2/authorize',
  oauthAccessToken: '/sns/oauth2/access_token',
} as const

/** WeChat Pay Global (cross-border) API v3 paths (direct, "common" mode). */
export const GLOBAL_PATHS = {
  native: '/v3/global/transactions/native',
  jsapi: '/v3/global/transactions/jsapi',
  h5: '/v3/global/transactions/mweb',
  byOutTradeNo: '/v3/global/transactions/out-trade-no/',
  byTransactionId: '/v3/global/transactions/id/',
  refunds: '/v3/global/refunds',
  refundByOutRefundNo: '/v3/global/refunds/out-refund-no/',
  certificates: '/v3/global/certificates',
} as const

/** Notification retry delays in seconds after a failed delivery (§1.10): 15 retries, about 24 h. */
export const NOTIFY_RETRY_SCHEDULE_SEC = [15, 15, 30, 180, 600, 1200, 1800, 1800, 1800, 3600, 10800, 10800, 10800, 21600, 21600] as const

/** The acknowledgement body WeChat expects with a refusal. */
export const FAIL_BODY = { code: 'FAIL', message: '失败' } as const

export const CHANNELS = ['native', 'h5', 'jsapi'] as const
export type WechatChannel = (typeof CHANNELS)[number]

/** Every currency some WeChat service lists; a configuration's service narrows it (service.ts). */
export const WECHAT_CAPABILITIES: Capabilities = {
  currencies: ['CNY', 'HKD', 'JPY', 'USD', 'EUR'],
  channels: CHANNELS,
  partialRefunds: true,
  modes: ['live'],
}
