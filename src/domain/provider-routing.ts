/**
 * Which configuration of each provider an unhinted live session may be paid with
 * (docs/providers.md#which-configuration-a-session-uses). Pure: the caller says which configurations
 * fit the session (its currency and amount); hints are not routed here (services/sessions.ts).
 */

export interface RouteCandidate {
  provider: string
  label: string
  isDefault: boolean
  enabled: boolean
  /** The configuration lists the session's currency and takes its amount. */
  fits: boolean
  /** It lists the currency (whatever the amount): when it does not fit, the amount is below its minimum. */
  lists?: boolean
}

export interface Routing<C extends RouteCandidate> {
  /** One configuration per provider that can take the session, in the order the providers first appear. */
  routes: C[]
  /** Providers with no fitting default and more than one other enabled configuration that fits: only a hint can choose. */
  ambiguous: { provider: string; labels: string[] }[]
}

/**
 * Per provider: its default when it fits; otherwise its one enabled configuration that fits. Two or
 * more such leave the provider out (the session names one in providerHints), and so does a disabled
 * default: the merchant turned the provider's default off, not over to another configuration.
 */
export function routeUnhinted<C extends RouteCandidate>(configs: readonly C[]): Routing<C> {
  const providers = [...new Set(configs.map((c) => c.provider))]
  const routes: C[] = []
  const ambiguous: Routing<C>['ambiguous'] = []
  for (const provider of providers) {
    const own = configs.filter((c) => c.provider === provider)
    if (own.some((c) => c.isDefault && !c.enabled)) continue
    const usable = own.filter((c) => c.enabled && c.fits)
    const chosen = usable.find((c) => c.isDefault) ?? (usable.length === 1 ? usable[0] : undefined)
    if (chosen) routes.push(chosen)
    else if (usable.length > 1) ambiguous.push({ provider, labels: usable.map((c) => c.label).sort() })
  }
  return { routes, ambiguous }
}

/**
 * Why no configuration can take a session, and what would: the ambiguous ones to name in a hint,
 * else disabled ones that fit, else the providers that can take the currency at all.
 */
export function noRouteReason(currency: string, configs: readonly RouteCandidate[], routing: Routing<RouteCandidate>, providersFor: readonly string[]): string {
  const base = `no provider available for ${currency} in live mode`
  if (routing.ambiguous.length) {
    const names = routing.ambiguous.map((a) => a.labels.map((l) => `${a.provider}/${l}`).join(', ')).join('; ')
    return `${base}: several configurations take it (${names}); name one in providerHints or make one the default`
  }
  const disabled = configs.filter((c) => !c.enabled && (c.fits || c.isDefault)).map((c) => `${c.provider}/${c.label}`)
  if (disabled.length) return `${base}: enable ${disabled.join(' or ')}`
  const small = configs.filter((c) => c.enabled && c.lists && !c.fits).map((c) => `${c.provider}/${c.label}`)
  if (small.length) return `${base}: the amount is below the smallest ${small.join(' or ')} takes`
  if (providersFor.length) return `${base}: add an enabled configuration of ${providersFor.join(' or ')} that lists ${currency}`
  return `${base}: no provider Till supports takes ${currency}`
}
