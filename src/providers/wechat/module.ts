/** Everything Till knows about WeChat Pay beyond the adapter (src/providers/module.ts). */
import { onlyKnown, type Fields } from '../credentials.js'
import type { ProviderModule } from '../module.js'
import { channelForUserAgent, oauthAuthorizeUrl } from './browser.js'
import { WECHAT_CAPABILITIES } from './constants.js'
import { validateWechatCredentials } from './credentials.js'
import { credentialsOf } from './http.js'
import { createWechatProvider } from './index.js'
import { checkWechatSettingsChange, listedCurrencies, SETTINGS, validateWechatSettings } from './service.js'

/** A code_url stays valid for 2 hours (docs/providers.md#wechat-pay-wechat). */
const CODE_URL_VALID_MS = 2 * 3600_000

const CREDENTIALS = [
  { name: 'mchId', label: { en: 'Merchant number (mchid)', 'zh-CN': '商户号（mchid）', 'zh-HK': '商戶號（mchid）', ja: '加盟店番号（mchid）' }, help: 'digits' },
  { name: 'appId', label: { en: 'AppID', 'zh-CN': 'AppID', 'zh-HK': 'AppID', ja: 'AppID' }, help: 'wx…' },
  { name: 'merchantSerialNo', label: { en: 'Merchant certificate serial number', 'zh-CN': '商户证书序列号', 'zh-HK': '商戶證書序號', ja: '加盟店証明書のシリアル番号' }, help: 'hex' },
  { name: 'privateKey', label: { en: 'Merchant private key (apiclient_key.pem)', 'zh-CN': '商户私钥（apiclient_key.pem）', 'zh-HK': '商戶私鑰（apiclient_key.pem）', ja: '加盟店の秘密鍵（apiclient_key.pem）' }, help: 'PKCS#8 PEM', pem: true, secret: true },
  { name: 'apiV3Key', label: { en: 'APIv3 key', 'zh-CN': 'APIv3 密钥', 'zh-HK': 'APIv3 密鑰', ja: 'APIv3 キー' }, help: '32 characters', secret: true },
  { name: 'platformPublicKeyId', label: { en: 'WeChat Pay public key ID (optional)', 'zh-CN': '微信支付公钥 ID（可选）', 'zh-HK': '微信支付公鑰 ID（選填）', ja: 'WeChat Pay 公開鍵 ID（任意）' }, help: 'public-key mode: PUB_KEY_ID_…', optional: true },
  { name: 'platformPublicKey', label: { en: 'WeChat Pay public key (optional)', 'zh-CN': '微信支付公钥（可选）', 'zh-HK': '微信支付公鑰（選填）', ja: 'WeChat Pay 公開鍵（任意）' }, help: 'public-key mode: PEM', pem: true, optional: true },
  { name: 'appSecret', label: { en: 'Official account AppSecret (optional, for JSAPI)', 'zh-CN': '公众号 AppSecret（可选，用于 JSAPI）', 'zh-HK': '公眾號 AppSecret（選填，用於 JSAPI）', ja: '公式アカウントの AppSecret（任意、JSAPI 用）' }, help: 'JSAPI only', secret: true, optional: true },
] as const

export const wechat: ProviderModule<'wechat'> = {
  id: 'wechat',
  name: { en: 'WeChat Pay', 'zh-CN': '微信支付', 'zh-HK': '微信支付', ja: 'WeChat Pay' },
  capabilities: WECHAT_CAPABILITIES,
  credentials: CREDENTIALS,
  validateCredentials(c: Fields) {
    onlyKnown(c, CREDENTIALS.map((f) => f.name), 'credentials')
    validateWechatCredentials(c)
  },
  settings: SETTINGS,
  validateSettings: validateWechatSettings,
  currenciesOf: listedCurrencies,
  checkSettingsChange: checkWechatSettingsChange,
  identify: (c) => [
    { en: `merchant ${String(c.mchId ?? '')}`, 'zh-CN': `商户号 ${String(c.mchId ?? '')}`, 'zh-HK': `商戶號 ${String(c.mchId ?? '')}`, ja: `加盟店番号 ${String(c.mchId ?? '')}` },
    { en: `serial ${String(c.merchantSerialNo ?? '')}`, 'zh-CN': `序列号 ${String(c.merchantSerialNo ?? '')}`, 'zh-HK': `序號 ${String(c.merchantSerialNo ?? '')}`, ja: `シリアル番号 ${String(c.merchantSerialNo ?? '')}` },
  ],
  // Native (QR) on desktops, H5 on phones, JSAPI inside WeChat.
  channelFor: channelForUserAgent,
  scanHelp: {
    en: 'Open WeChat on your phone, tap + and then Scan, and point the camera at this code.',
    'zh-CN': '打开手机微信，点击右上角“+”，选择“扫一扫”，扫描此二维码。',
    'zh-HK': '打開手機微信，點擊右上角「+」，選擇「掃一掃」，掃描此二維碼。',
    ja: 'スマートフォンで WeChat を開き、右上の「+」から「スキャン」をタップして、このコードを読み取ってください。',
  },
  actionShownAgain(a, channel, now) {
    const codeUrl = a.providerData.codeUrl
    if (channel !== 'native' || a.channel !== 'native' || typeof codeUrl !== 'string' || now.getTime() - a.createdAt.getTime() >= CODE_URL_VALID_MS) return null
    return { kind: 'qr', content: codeUrl }
  },
  // JSAPI inside WeChat: the payer's openid comes first, through the official account's silent
  // snsapi_base OAuth. WeChat lets JSAPI run only from pages directly in a registered payment
  // directory (not below it), so the return lives at one fixed directory: {BASE_URL}/c/wechat/.
  browserStep: {
    path: 'wechat',
    channel: 'jsapi',
    app: { en: 'WeChat', 'zh-CN': '微信', 'zh-HK': '微信', ja: 'WeChat' },
    startUrl(cfg, o) {
      const c = credentialsOf(cfg)
      if (!c.appSecret) return null
      const apiBase = typeof cfg.settings.apiBase === 'string' ? cfg.settings.apiBase : undefined
      return oauthAuthorizeUrl({ appId: c.appId, redirectUri: o.redirectUri, state: o.state, apiBase })
    },
    missing: 'JSAPI needs the official account appSecret in the WeChat Pay credentials',
  },
  page: { markColor: '#07c160', script: new URL('./web/pay.js', import.meta.url) },
  createAdapter: (ctx) => createWechatProvider({ now: ctx.now, dispatcher: ctx.dispatcher, statementLimits: ctx.statementLimits }),
  fake: () => import('./fake/cli.js').then((m) => m.command),
}
