/**
 * The live providers: the one list that names them (docs/architecture.md#adding-a-provider). The
 * mock, test mode's provider, is not a module: the core builds it itself.
 */
import { alipay } from './alipay/module.js'
import { creem } from './creem/module.js'
import { stripe } from './stripe/module.js'
import type { Locale } from '../domain/locales.js'
import { inLocale, type ProviderModule } from './module.js'
import { wechat } from './wechat/module.js'

export const PROVIDERS = [wechat, creem, alipay, stripe] as const

export type LiveProviderId = (typeof PROVIDERS)[number]['id']

export const isLiveProvider = (id: string): id is LiveProviderId => PROVIDERS.some((p) => p.id === id)

/** The module of a provider id. */
export const moduleOf = (id: LiveProviderId): ProviderModule => PROVIDERS.find((p) => p.id === id)!

/** A provider's name in a language; an id the list does not know (the mock) as it is. */
export const providerName = (id: string, locale: Locale) => (isLiveProvider(id) ? inLocale(moduleOf(id).name, locale) : id)
