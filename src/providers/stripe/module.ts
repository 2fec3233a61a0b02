/** Everything Till knows about Stripe beyond the adapter (src/providers/module.ts). */
import { InvalidField } from '../../domain/errors.js'
import { API_BASE_LABEL, checkDeclared, checkSettings, requireString } from '../credentials.js'
import type { ProviderModule, SettingField } from '../module.js'
import { STRIPE_CAPABILITIES } from './constants.js'
import { createStripeProvider } from './index.js'
import { secretsOf } from './sign.js'

const CREDENTIALS = [
  { name: 'secretKey', label: { en: 'Secret key', 'zh-CN': '密钥 (Secret key)', 'zh-HK': '密鑰 (Secret key)', ja: 'シークレットキー' }, help: 'Developers → API keys: sk_live_… / sk_test_…, or a restricted key rk_… with the permissions in docs/providers.md', secret: true },
  {
    name: 'webhookSecret', label: { en: 'Webhook signing secret', 'zh-CN': 'Webhook 签名密钥', 'zh-HK': 'Webhook 簽署密鑰', ja: 'Webhook 署名シークレット' }, secret: true, optional: true,
    help: "Developers → Webhooks → Till's endpoint → Signing secret (whsec_…; several, space-separated, while rolling it); left out, Till adds its endpoint and keeps the secret",
  },
] as const

const SETTINGS = [{ name: 'apiBase', label: API_BASE_LABEL, help: 'a local fake or stripe-mock; default https://api.stripe.com' }] as const satisfies readonly SettingField[]

const SECRET_KEY = /^(sk|rk)_(live|test)_[A-Za-z0-9_]{8,}$/
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=_-]{8,}$/

export const stripe: ProviderModule<'stripe'> = {
  id: 'stripe',
  name: { en: 'Stripe', 'zh-CN': 'Stripe' },
  capabilities: STRIPE_CAPABILITIES,
  credentials: CREDENTIALS,
  validateCredentials(c) {
    checkDeclared(c, CREDENTIALS, 'credentials')
    // A publishable key (pk_…) can create nothing and would only fail at the first payment.
    requireString(c, 'secretKey', 'credentials', SECRET_KEY, 'must be a secret key sk_live_…/sk_test_… or a restricted key rk_live_…/rk_test_…')
    // Left out, the adapter makes Till's endpoint on save and keeps its secret (index.ts completeCredentials).
    if (c.webhookSecret === undefined) return
    const secrets = secretsOf(String(c.webhookSecret))
    if (secrets.length === 0 || !secrets.every((s) => WEBHOOK_SECRET.test(s))) throw new InvalidField('credentials.webhookSecret', 'must be a signing secret whsec_… (several separated by spaces while rolling it)')
  },
  settings: SETTINGS,
  validateSettings: (s, allowPrivate) => checkSettings(s, allowPrivate, SETTINGS.map((f) => f.name)),
  identify(c) {
    const key = String(c.secretKey ?? '')
    const kind = key.slice(0, key.indexOf('_', 3) + 1)
    return [{ en: `key ${kind}…${key.slice(-4)}`, 'zh-CN': `密钥 ${kind}…${key.slice(-4)}` }]
  },
  page: { markColor: '#635bff' },
  createAdapter: (ctx) => createStripeProvider({ dispatcher: ctx.dispatcher, now: ctx.now }),
  fake: () => import('./fake/cli.js').then((m) => m.command),
}
