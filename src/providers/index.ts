/**
 * The live providers: the one list that names them (docs/architecture.md#adding-a-provider); and the
 * test mode's provider (mock/module.ts), which is not in the list: it has no stored configuration.
 */
import { alipay } from './alipay/module.js'
import { creem } from './creem/module.js'
import { stripe } from './stripe/module.js'
import type { Locale } from '../domain/locales.js'
import { inLocale, type ProviderModule } from './module.js'
import { mock } from './mock/module.js'
import { wechat } from './wechat/module.js'

export const PROVIDERS = [wechat, creem, alipay, stripe] as const

/** The test mode's provider: every test-mode session's, and the provider of its attempts and records. */
export const TEST_PROVIDER = mock

/** Whether an attempt's or record's provider is the test mode's (its configuration is not stored). */
export const isTestProvider = (id: string) => id === TEST_PROVIDER.id

/** Every provider id a metric's series or a label may carry: the test mode's, then the live ones. */
export const ALL_PROVIDER_IDS = [TEST_PROVIDER.id, ...PROVIDERS.map((p) => p.id)] as const

export type LiveProviderId = (typeof PROVIDERS)[number]['id']

export const isLiveProvider = (id: string): id is LiveProviderId => PROVIDERS.some((p) => p.id === id)

/** The module of a provider id. */
export const moduleOf = (id: LiveProviderId): ProviderModule => PROVIDERS.find((p) => p.id === id)!

/** A provider's name in a language; an id the list does not know (the mock) as it is. */
export const providerName = (id: string, locale: Locale) => (isLiveProvider(id) ? inLocale(moduleOf(id).name, locale) : id)
