/** An unhinted live session's configurations, one per provider (domain/provider-routing.ts has the rule). */
import type { Currency } from '../domain/money.js'
import { noRouteReason, routeUnhinted } from '../domain/provider-routing.js'
import { isLiveProvider, PROVIDERS } from '../providers/index.js'
import { fitsSession, supportsCurrency, type LiveProvider } from '../providers/registry.js'
import type { Executor } from '../store/db.js'
import { listProviderConfigs, type ProviderConfigRow } from '../store/repos/provider-configs.js'

export type RoutedConfig = ProviderConfigRow & { provider: LiveProvider['id'] }

/** The configurations an unhinted session in this currency and amount may use, and why there are none when there are none. */
export async function routeSession(ex: Executor, merchantId: string, currency: Currency, amount: number): Promise<{ routes: RoutedConfig[]; reason: string }> {
  const configs = (await listProviderConfigs(ex, merchantId))
    .filter((c): c is RoutedConfig => isLiveProvider(c.provider))
    .map((c) => ({ ...c, fits: fitsSession(c.provider, currency, amount, c.settings), lists: supportsCurrency(c.provider, currency, c.settings) }))
  const routing = routeUnhinted(configs)
  const providersFor = PROVIDERS.filter((p) => p.capabilities.currencies.includes(currency)).map((p) => p.id).sort()
  return { routes: routing.routes, reason: routing.routes.length ? '' : noRouteReason(currency, configs, routing, providersFor) }
}
