/**
 * provider_products: the product a provider configuration uses, keyed by (amount, currency): for
 * a provider that needs one product per currency, remembered under its listed price (checkouts
 * set their own amount). The first writer wins.
 */
import { and, eq } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { providerProducts } from '../schema.js'

const key = (configId: string, amount: number, currency: string) =>
  and(eq(providerProducts.providerConfigId, configId), eq(providerProducts.amount, amount), eq(providerProducts.currency, currency))

export async function findProduct(tx: Executor, configId: string, amount: number, currency: string): Promise<string | null> {
  const [row] = await tx.select({ productId: providerProducts.productId }).from(providerProducts).where(key(configId, amount, currency))
  return row?.productId ?? null
}

/** Inserts unless another instance did first, then answers whichever product is stored: concurrent first uses agree. */
export async function rememberProduct(tx: Executor, configId: string, amount: number, currency: string, productId: string, now: Date): Promise<string> {
  await tx.insert(providerProducts).values({ providerConfigId: configId, amount, currency, productId, createdAt: now }).onConflictDoNothing()
  return (await findProduct(tx, configId, amount, currency)) ?? productId
}

/** Forgets a product only if it is still the one stored, so a fresher one made meanwhile stays. */
export async function forgetProduct(tx: Executor, configId: string, amount: number, currency: string, productId: string): Promise<void> {
  await tx.delete(providerProducts).where(and(key(configId, amount, currency), eq(providerProducts.productId, productId)))
}

export async function listProducts(tx: Executor, configId: string): Promise<string[]> {
  const rows = await tx.select({ productId: providerProducts.productId }).from(providerProducts).where(eq(providerProducts.providerConfigId, configId))
  return rows.map((r) => r.productId)
}

/** The table as an adapter's product store (ProductStore in providers/types.ts). */
export function productStore(db: Executor, clock: () => Date) {
  return {
    find: (configId: string, amount: number, currency: string) => findProduct(db, configId, amount, currency),
    remember: (configId: string, amount: number, currency: string, productId: string) => rememberProduct(db, configId, amount, currency, productId, clock()),
    forget: (configId: string, amount: number, currency: string, productId: string) => forgetProduct(db, configId, amount, currency, productId),
    list: (configId: string) => listProducts(db, configId),
  }
}
