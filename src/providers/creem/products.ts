/**
 * Creem has no amount on a checkout, only a product (docs/providers.md#creem-creem.2): Till makes one one-time
 * product per (configuration, amount, currency) and remembers it. The memory is injected (the
 * service layer backs it with the provider_products table), so the adapter touches no database.
 */
import type { Currency } from '../../domain/money.js'
import type { ProviderConfig } from '../types.js'

export interface ProductStore {
  find(configId: string, amount: number, currency: string): Promise<string | null>
  /** Keeps the first product remembered for the key and answers it: concurrent first uses agree. */
  remember(configId: string, amount: number, currency: string, productId: string): Promise<string>
  /** Drops a product Creem no longer knows (deleted, or the configuration moved to another account). */
  forget(configId: string, amount: number, currency: string, productId: string): Promise<void>
}

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
  }
}

export type CreateProduct = (cfg: ProviderConfig, amount: number, currency: Currency) => Promise<string>

/**
 * The product for an amount: remembered, or created once. Within a process, callers asking for the
 * same key at once share one creation; across processes the store's first writer wins, and a
 * losing process's product is simply never used.
 */
export function productResolver(store: ProductStore, create: CreateProduct) {
  const inflight = new Map<string, Promise<string>>()
  return {
    async get(cfg: ProviderConfig, amount: number, currency: Currency): Promise<string> {
      const known = await store.find(cfg.id, amount, currency)
      if (known) return known
      const key = `${cfg.id}|${amount}|${currency}`
      let p = inflight.get(key)
      if (!p) {
        p = create(cfg, amount, currency).then((id) => store.remember(cfg.id, amount, currency, id))
        inflight.set(key, p)
        p.finally(() => inflight.delete(key)).catch(() => {})
      }
      return p
    },
    forget: (cfg: ProviderConfig, amount: number, currency: Currency, productId: string) => store.forget(cfg.id, amount, currency, productId),
  }
}
