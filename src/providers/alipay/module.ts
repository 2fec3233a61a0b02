/** Everything Till knows about Alipay beyond the adapter (src/providers/module.ts). */
import { InvalidField } from '../../domain/errors.js'
import { API_BASE_LABEL, checkSettings, onlyKnown, type Fields } from '../credentials.js'
import type { ProviderModule, SettingField } from '../module.js'
import { ALIPAY_CAPABILITIES, DESKTOP_CHOICES, QR_CODE_VALID_MS, type AlipayChannel, type DesktopChoice } from './constants.js'
import { createAlipayProvider } from './index.js'
import { isCertificateMode, validateAlipayCredentials, type AlipayCredentials } from './keys.js'
import { certSn } from './sign.js'

const CREDENTIALS = [
  { name: 'appId', label: { en: 'APPID', 'zh-CN': 'APPID', 'zh-HK': 'APPID', ja: 'APPID' }, help: 'the application\'s APPID (digits)' },
  { name: 'privateKey', label: { en: 'Application private key', 'zh-CN': '应用私钥', 'zh-HK': '應用私鑰', ja: 'アプリの秘密鍵' }, help: 'RSA2, PKCS#8 or PKCS#1, PEM or base64', pem: true, secret: true },
  { name: 'alipayPublicKey', label: { en: 'Alipay public key (public-key mode)', 'zh-CN': '支付宝公钥（公钥模式）', 'zh-HK': '支付寶公鑰（公鑰模式）', ja: 'アリペイ公開鍵（公開鍵モード）' }, help: 'public-key mode: 支付宝公钥, PEM or base64', pem: true, optional: true },
  { name: 'appCert', label: { en: 'Application public-key certificate (certificate mode)', 'zh-CN': '应用公钥证书（证书模式）', 'zh-HK': '應用公鑰證書（證書模式）', ja: 'アプリの公開鍵証明書（証明書モード）' }, help: 'certificate mode: appCertPublicKey_<APPID>.crt', pem: true, optional: true },
  { name: 'alipayCert', label: { en: 'Alipay public-key certificate (certificate mode)', 'zh-CN': '支付宝公钥证书（证书模式）', 'zh-HK': '支付寶公鑰證書（證書模式）', ja: 'アリペイ公開鍵証明書（証明書モード）' }, help: 'certificate mode: alipayCertPublicKey_RSA2.crt', pem: true, optional: true },
  { name: 'alipayRootCert', label: { en: 'Alipay root certificate (certificate mode)', 'zh-CN': '支付宝根证书（证书模式）', 'zh-HK': '支付寶根證書（證書模式）', ja: 'アリペイのルート証明書（証明書モード）' }, help: 'certificate mode: alipayRootCert.crt', pem: true, optional: true },
] as const

const SETTINGS = [
  { name: 'apiBase', label: API_BASE_LABEL, help: 'a sandbox or a local fake, without /gateway.do; default https://openapi.alipay.com' },
  { name: 'desktop', label: { en: 'On a computer', 'zh-CN': '电脑上', 'zh-HK': '電腦上', ja: 'パソコンでは' }, help: 'qr (default: the QR code on Till\'s page) or page (Alipay\'s cashier page)', choices: DESKTOP_CHOICES },
  { name: 'sellerId', label: { en: 'Seller ID (PID)', 'zh-CN': '卖家 ID（PID）', 'zh-HK': '賣家 ID（PID）', ja: '販売者 ID（PID）' }, help: 'the Alipay account\'s PID (2088 and 12 digits): notifications and returns naming another seller_id are not this configuration\'s' },
] as const satisfies readonly SettingField[]

const PID = /^2088\d{12}$/

const PHONE = /Android|iPhone|iPad|iPod|HarmonyOS|Mobile|Windows Phone/i

/** Phones pay on Alipay's mobile cashier (wap); desktops scan the QR code, or use Alipay's cashier page when settings.desktop says so. */
export function channelForBrowser(userAgent: string | undefined, settings: Fields = {}): AlipayChannel {
  if (PHONE.test(userAgent ?? '')) return 'wap'
  return settings.desktop === 'page' ? 'page' : 'precreate'
}

function validateAlipaySettings(s: Fields, allowPrivate: boolean) {
  checkSettings(s, allowPrivate, SETTINGS.map((f) => f.name))
  if (s.desktop !== undefined && !DESKTOP_CHOICES.includes(s.desktop as DesktopChoice)) throw new InvalidField('settings.desktop', `must be one of ${DESKTOP_CHOICES.join(', ')}`)
  if (s.sellerId !== undefined && !(typeof s.sellerId === 'string' && PID.test(s.sellerId))) throw new InvalidField('settings.sellerId', 'must be an Alipay PID: 2088 followed by 12 digits')
}

function mode(c: AlipayCredentials) {
  if (!isCertificateMode(c)) return { en: 'public-key mode', 'zh-CN': '公钥模式', 'zh-HK': '公鑰模式', ja: '公開鍵モード' }
  let serial = '?'
  try {
    serial = certSn(c.alipayCert ?? '')
  } catch {
    // Shown as unknown.
  }
  return { en: `certificate mode, Alipay certificate ${serial}`, 'zh-CN': `证书模式，支付宝证书 ${serial}`, 'zh-HK': `證書模式，支付寶證書 ${serial}`, ja: `証明書モード、アリペイ証明書 ${serial}` }
}

export const alipay: ProviderModule<'alipay'> = {
  id: 'alipay',
  name: { en: 'Alipay', 'zh-CN': '支付宝', 'zh-HK': '支付寶', ja: 'アリペイ' },
  capabilities: ALIPAY_CAPABILITIES,
  credentials: CREDENTIALS,
  validateCredentials(c) {
    onlyKnown(c, CREDENTIALS.map((f) => f.name), 'credentials')
    validateAlipayCredentials(c)
  },
  settings: SETTINGS,
  validateSettings: validateAlipaySettings,
  identify: (c) => [{ en: `app ${String(c.appId ?? '')}`, 'zh-CN': `应用 ${String(c.appId ?? '')}`, 'zh-HK': `應用 ${String(c.appId ?? '')}`, ja: `アプリ ${String(c.appId ?? '')}` }, mode(c as unknown as AlipayCredentials)],
  channelFor: channelForBrowser,
  scanHelp: {
    en: 'Open Alipay on your phone, tap Scan, and point the camera at this code.',
    'zh-CN': '打开手机支付宝，点击“扫一扫”，扫描此二维码。',
    'zh-HK': '打開手機支付寶，點擊「掃一掃」，掃描此二維碼。',
    ja: 'スマートフォンでアリペイ（Alipay）アプリを開き、「スキャン」をタップして、このコードを読み取ってください。',
  },
  actionShownAgain(a, channel, now) {
    const qrCode = a.providerData.qrCode
    if (channel !== 'precreate' || a.channel !== 'precreate' || typeof qrCode !== 'string' || now.getTime() - a.createdAt.getTime() >= QR_CODE_VALID_MS) return null
    return { kind: 'qr', content: qrCode }
  },
  page: { markColor: '#1677ff' },
  createAdapter: (ctx) => createAlipayProvider({ now: ctx.now, dispatcher: ctx.dispatcher, statementLimits: ctx.statementLimits }),
  fake: () => import('./fake/cli.js').then((m) => m.command),
}
