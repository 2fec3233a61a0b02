/** Provider ids → capabilities (declared data), credential rules and, where built, the adapter. */
import type { Currency } from '../domain/money.js'
import { checkSettings, type Fields } from './credentials.js'
import { CREEM_CAPABILITIES } from './creem/constants.js'
import { validateCreemCredentials } from './creem/credentials.js'
import type { Capabilities, PaymentProvider } from './types.js'
import { WECHAT_CAPABILITIES } from './wechat/constants.js'
import { validateWechatCredentials } from './wechat/credentials.js'

export interface LiveProvider {
  id: 'wechat' | 'creem'
  name: string
  capabilities: Capabilities
  validateCredentials(c: Fields): void
  /** allowPrivate: PROVIDER_ALLOW_PRIVATE=1. */
  validateSettings(s: Fields, allowPrivate: boolean): void
}

export const LIVE_PROVIDERS: Record<LiveProvider['id'], LiveProvider> = {
  wechat: {
    id: 'wechat',
    name: 'WeChat Pay',
    capabilities: WECHAT_CAPABILITIES,
    validateCredentials: validateWechatCredentials,
    validateSettings: (s, allowPrivate) => checkSettings(s, allowPrivate),
  },
  creem: {
    id: 'creem',
    name: 'Creem',
    capabilities: CREEM_CAPABILITIES,
    validateCredentials: validateCreemCredentials,
    validateSettings: (s, allowPrivate) => checkSettings(s, allowPrivate),
  },
}

export const isLiveProvider = (id: string): id is LiveProvider['id'] => Object.hasOwn(LIVE_PROVIDERS, id)

export const supportsCurrency = (id: LiveProvider['id'], currency: Currency) =>
  LIVE_PROVIDERS[id].capabilities.currencies.includes(currency)

/** At least the provider's smallest amount for the currency (Creem: 100 minor units). */
export const supportsAmount = (id: LiveProvider['id'], currency: Currency, amount: number) =>
  amount >= (LIVE_PROVIDERS[id].capabilities.minAmount?.[currency] ?? 1)

/** Whether a provider can take a session: its currency and its amount. */
export const fitsSession = (id: LiveProvider['id'], currency: Currency, amount: number) => supportsCurrency(id, currency) && supportsAmount(id, currency, amount)

export interface ProviderRegistry {
  get(id: string): PaymentProvider | undefined
}

export function createRegistry(adapters: PaymentProvider[]): ProviderRegistry {
  const byId = new Map(adapters.map((a) => [a.id as string, a]))
  return { get: (id) => byId.get(id) }
}
