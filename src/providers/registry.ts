/** What a configuration can take (read from its module, through index.ts's moduleOf), and the built adapters. */
import type { Currency } from '../domain/money.js'
import type { Fields } from './credentials.js'
import { moduleOf, type LiveProviderId } from './index.js'
import type { ProviderModule } from './module.js'
import type { PaymentProvider } from './types.js'

export type LiveProvider = ProviderModule<LiveProviderId>

/** Whether a configuration (its settings may narrow the provider's currencies) can list the currency. */
export const supportsCurrency = (id: LiveProviderId, currency: Currency, settings: Fields = {}) =>
  (moduleOf(id).currenciesOf?.(settings) ?? moduleOf(id).capabilities.currencies).includes(currency)

/** At least the provider's smallest amount for the currency, where it has one. */
export const supportsAmount = (id: LiveProviderId, currency: Currency, amount: number) =>
  amount >= (moduleOf(id).capabilities.minAmount?.[currency] ?? 1)

/** Whether a provider configuration can take a session: its currency and its amount. */
export const fitsSession = (id: LiveProviderId, currency: Currency, amount: number, settings: Fields = {}) =>
  supportsCurrency(id, currency, settings) && supportsAmount(id, currency, amount)

export interface ProviderRegistry {
  get(id: string): PaymentProvider | undefined
}

export function createRegistry(adapters: PaymentProvider[]): ProviderRegistry {
  const byId = new Map(adapters.map((a) => [a.id as string, a]))
  return { get: (id) => byId.get(id) }
}
