/**
 * Creem needs a product on every checkout; the checkout's custom_price sets the amount. Till makes
 * one one-time product per (configuration, currency) and remembers it under the product's own
 * price (PRODUCT_PRICE), so rows kept from the one-product-per-amount days are never confused with
 * it. The memory is injected (the service layer backs it with the provider_products table), so the
 * adapter touches no database.
 */
import type { Currency } from '../../domain/money.js'
import type { ProductStore, ProviderConfig } from '../types.js'
import { PRODUCT_PRICE } from './constants.js'

export type { ProductStore }

/** For tests and `till fake` scripts without a database. */
export function memoryProductStore(): ProductStore {
  const m = new Map<string, string>()
  const key = (c: string, a: number, cur: string) => `${c}|${a}|${cur}`
  return {
    find: async (c, a, cur) => m.get(key(c, a, cur)) ?? null,
    remember: async (c, a, cur, id) => {
      if (!m.has(key(c, a, cur))) m.set(key(c, a, cur), id)
      return m.get(key(c, a, cur))!
    },
    forget: async (c, a, cur, id) => {
      if (m.get(key(c, a, cur)) === id) m.delete(key(c, a, cur))
    },
    list: async (c) => [...m.entries()].filter(([k]) => k.startsWith(`${c}|`)).map(([, id]) => id),
  }
}

export type CreateProduct = (cfg: ProviderConfig, currency: Currency) => Promise<string>

/**
 * The product for a currency: remembered, or created once. Within a process, callers asking for
 * the same key at once share one creation; across processes the store's first writer wins, and a
 * losing process's product is simply never used.
 */
export function productResolver(store: ProductStore, create: CreateProduct) {
  const inflight = new Map<string, Promise<string>>()
  return {
    find: (cfg: ProviderConfig, currency: Currency) => store.find(cfg.id, PRODUCT_PRICE, currency),
    async get(cfg: ProviderConfig, currency: Currency): Promise<string> {
      const known = await store.find(cfg.id, PRODUCT_PRICE, currency)
      if (known) return known
      const key = `${cfg.id}|${currency}`
      let p = inflight.get(key)
      if (!p) {
        p = create(cfg, currency).then((id) => store.remember(cfg.id, PRODUCT_PRICE, currency, id))
        inflight.set(key, p)
        p.finally(() => inflight.delete(key)).catch(() => {})
      }
      return p
    },
    forget: (cfg: ProviderConfig, currency: Currency, productId: string) => store.forget(cfg.id, PRODUCT_PRICE, currency, productId),
  }
}
