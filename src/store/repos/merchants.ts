import { and, eq, isNull } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { apiKeys, merchants } from '../schema.js'

export type MerchantRow = typeof merchants.$inferSelect
export type ApiKeyRow = typeof apiKeys.$inferSelect

export async function insertMerchant(tx: Executor, row: typeof merchants.$inferInsert) {
  const [m] = await tx.insert(merchants).values(row).returning()
  return m
}

export async function getMerchant(tx: Executor, id: string): Promise<MerchantRow | null> {
  const [m] = await tx.select().from(merchants).where(eq(merchants.id, id))
  return m ?? null
}

export async function countMerchants(tx: Executor): Promise<number> {
  const rows = await tx.select({ id: merchants.id }).from(merchants).limit(1)
  return rows.length
}

export async function insertApiKey(tx: Executor, row: typeof apiKeys.$inferInsert) {
  const [k] = await tx.insert(apiKeys).values(row).returning()
  return k
}

// Every API request runs it: built once (store/prepared.ts).
export async function listApiKeys(tx: Executor, merchantId: string) {
  return tx.select().from(apiKeys).where(eq(apiKeys.merchantId, merchantId)).orderBy(apiKeys.createdAt)
}

export async function revokeApiKey(tx: Executor, merchantId: string, keyId: string, at: Date) {
  const [k] = await tx
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning()
  return k ?? null
}

export async function getApiKey(tx: Executor, merchantId: string, keyId: string): Promise<ApiKeyRow | null> {
  const [k] = await tx.select().from(apiKeys).where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.id, keyId)))
  return k ?? null
}
