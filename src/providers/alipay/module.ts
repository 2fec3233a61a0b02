/** Everything Till knows about Alipay beyond the adapter (src/providers/module.ts). */
import { InvalidField } from '../../domain/errors.js'
import { checkSettings, onlyKnown, type Fields } from '../credentials.js'
import type { ProviderModule } from '../module.js'
import { ALIPAY_CAPABILITIES, DESKTOP_CHOICES, QR_CODE_VALID_MS, type AlipayChannel, type DesktopChoice } from './constants.js'
import { createAlipayProvider } from './index.js'
import { isCertificateMode, validateAlipayCredentials, type AlipayCredentials } from './keys.js'
import { certSn } from './sign.js'

const CREDENTIALS = [
  { name: 'appId', label: { en: 'APPID', 'zh-CN': 'APPID' }, help: 'the application\'s APPID (digits)' },
  { name: 'privateKey', label: { en: 'Application private key', 'zh-CN': '应用私钥' }, help: 'RSA2, PKCS#8 or PKCS#1, PEM or base64', pem: true, secret: true },
  { name: 'alipayPublicKey', label: { en: 'Alipay public key (public-key mode)', 'zh-CN': '支付宝公钥（公钥模式）' }, help: 'public-key mode: 支付宝公钥, PEM or base64', pem: true, optional: true },
  { name: 'appCert', label: { en: 'Application public-key certificate (certificate mode)', 'zh-CN': '应用公钥证书（证书模式）' }, help: 'certificate mode: appCertPublicKey_<APPID>.crt', pem: true, optional: true },
  { name: 'alipayCert', label: { en: 'Alipay public-key certificate (certificate mode)', 'zh-CN': '支付宝公钥证书（证书模式）' }, help: 'certificate mode: alipayCertPublicKey_RSA2.crt', pem: true, optional: true },
  { name: 'alipayRootCert', label: { en: 'Alipay root certificate (certificate mode)', 'zh-CN': '支付宝根证书（证书模式）' }, help: 'certificate mode: alipayRootCert.crt', pem: true, optional: true },
] as const

const SETTINGS = [
  { name: 'apiBase', help: 'a sandbox or a local fake, without /gateway.do; default https://openapi.alipay.com' },
  { name: 'desktop', help: 'qr (default: the QR code on Till\'s page) or page (Alipay\'s cashier page)' },
] as const

const PHONE = /Android|iPhone|iPad|iPod|HarmonyOS|Mobile|Windows Phone/i

/** Phones pay on Alipay's mobile cashier (wap); desktops scan the QR code, or use Alipay's cashier page when settings.desktop says so. */
export function channelForBrowser(userAgent: string | undefined, settings: Fields = {}): AlipayChannel {
  if (PHONE.test(userAgent ?? '')) return 'wap'
  return settings.desktop === 'page' ? 'page' : 'precreate'
}

function validateAlipaySettings(s: Fields, allowPrivate: boolean) {
  checkSettings(s, allowPrivate, SETTINGS.map((f) => f.name))
  if (s.desktop !== undefined && !DESKTOP_CHOICES.includes(s.desktop as DesktopChoice)) throw new InvalidField('settings.desktop', `must be one of ${DESKTOP_CHOICES.join(', ')}`)
}

function mode(c: AlipayCredentials) {
  if (!isCertificateMode(c)) return { en: 'public-key mode', 'zh-CN': '公钥模式' }
  let serial = '?'
  try {
    serial = certSn(c.alipayCert ?? '')
  } catch {
    // Shown as unknown.
  }
  return { en: `certificate mode, Alipay certificate ${serial}`, 'zh-CN': `证书模式，支付宝证书 ${serial}` }
}

export const alipay: ProviderModule<'alipay'> = {
  id: 'alipay',
  name: { en: 'Alipay', 'zh-CN': '支付宝' },
  capabilities: ALIPAY_CAPABILITIES,
  credentials: CREDENTIALS,
  validateCredentials(c) {
    onlyKnown(c, CREDENTIALS.map((f) => f.name), 'credentials')
    validateAlipayCredentials(c)
  },
  settings: SETTINGS,
  validateSettings: validateAlipaySettings,
  identify: (c) => [{ en: `app ${String(c.appId ?? '')}`, 'zh-CN': `应用 ${String(c.appId ?? '')}` }, mode(c as unknown as AlipayCredentials)],
  channelFor: channelForBrowser,
  scanHelp: {
    en: 'Open Alipay on your phone, tap Scan, and point the camera at this code.',
    'zh-CN': '打开手机支付宝，点击“扫一扫”，扫描此二维码。',
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
