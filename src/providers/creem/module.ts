/** Everything Till knows about Creem beyond the adapter (src/providers/module.ts). */
import { API_BASE_LABEL, checkDeclared, checkSettings } from '../credentials.js'
import type { ProviderModule, SettingField } from '../module.js'
import { CREEM_CAPABILITIES } from './constants.js'
import { createCreemProvider } from './index.js'

const CREDENTIALS = [
  { name: 'apiKey', label: { en: 'API key', 'zh-CN': 'API 密钥', 'zh-HK': 'API 密鑰', ja: 'API キー' }, help: 'Developers → API keys', secret: true },
  { name: 'webhookSecret', label: { en: 'Webhook secret', 'zh-CN': 'Webhook 密钥', 'zh-HK': 'Webhook 密鑰', ja: 'Webhook シークレット' }, help: 'Developers → Webhooks', secret: true },
] as const

const SETTINGS = [{ name: 'apiBase', label: API_BASE_LABEL, help: 'https://test-api.creem.io for test mode, or a local fake; default https://api.creem.io' }] as const satisfies readonly SettingField[]

export const creem: ProviderModule<'creem'> = {
  id: 'creem',
  name: { en: 'Creem', 'zh-CN': 'Creem', 'zh-HK': 'Creem', ja: 'Creem' },
  capabilities: CREEM_CAPABILITIES,
  credentials: CREDENTIALS,
  validateCredentials: (c) => checkDeclared(c, CREDENTIALS, 'credentials'),
  settings: SETTINGS,
  validateSettings: (s, allowPrivate) => checkSettings(s, allowPrivate, SETTINGS.map((f) => f.name)),
  identify(c) {
    const last4 = String(c.apiKey ?? '').slice(-4)
    return [{ en: `key …${last4}`, 'zh-CN': `密钥 …${last4}`, 'zh-HK': `密鑰 …${last4}`, ja: `キー …${last4}` }]
  },
  page: { markColor: '#111' },
  createAdapter: (ctx) => createCreemProvider({ products: ctx.products, dispatcher: ctx.dispatcher, now: ctx.now }),
  fake: () => import('./fake/cli.js').then((m) => m.command),
}
