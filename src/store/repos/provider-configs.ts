import { and, eq, inArray, ne } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { rawStatement, tableRows } from '../prepared.js'
import { providerConfigs } from '../schema.js'

export type ProviderConfigRow = typeof providerConfigs.$inferSelect

export async function insertProviderConfig(tx: Executor, row: typeof providerConfigs.$inferInsert) {
  const [c] = await tx.insert(providerConfigs).values(row).returning()
  return c
}

export async function getProviderConfig(tx: Executor, merchantId: string, id: string, forUpdate = false) {
  const q = tx.select().from(providerConfigs).where(and(eq(providerConfigs.merchantId, merchantId), eq(providerConfigs.id, id)))
  const [c] = forUpdate ? await q.for('update') : await q
  return c ?? null
}

// Read with every live provider's refund and notification: plain SQL (store/prepared.ts).
const configRows = tableRows(providerConfigs)
const byIdStmt = rawStatement('provider_config_get_row', `select ${configRows.columns} from provider_configs where id = $1`)

/** For a provider notification or a refund: the configuration named, whoever owns it. */
export async function getProviderConfigUnscoped(tx: Executor, id: string): Promise<ProviderConfigRow | null> {
  return configRows.first(await byIdStmt(tx, [id]))
}

export async function findByLabel(tx: Executor, merchantId: string, provider: string, label: string) {
  const [c] = await tx
    .select()
    .from(providerConfigs)
    .where(and(eq(providerConfigs.merchantId, merchantId), eq(providerConfigs.provider, provider), eq(providerConfigs.label, label)))
  return c ?? null
}

export async function listProviderConfigs(tx: Executor, merchantId: string) {
  return tx.select().from(providerConfigs).where(eq(providerConfigs.merchantId, merchantId)).orderBy(providerConfigs.createdAt)
}

/** Every merchant's enabled configurations of these providers: the daily reconciliation's. */
export async function listEnabledUnscoped(tx: Executor, providers: string[]) {
  if (!providers.length) return []
  return tx.select().from(providerConfigs).where(and(eq(providerConfigs.enabled, true), inArray(providerConfigs.provider, providers))).orderBy(providerConfigs.createdAt)
}

export async function updateProviderConfig(tx: Executor, id: string, patch: Partial<typeof providerConfigs.$inferInsert>) {
  const [c] = await tx.update(providerConfigs).set(patch).where(eq(providerConfigs.id, id)).returning()
  return c
}

/** One default per provider: clearing the others comes before setting the new one. */
export async function clearOtherDefaults(tx: Executor, merchantId: string, provider: string, keepId: string) {
  await tx
    .update(providerConfigs)
    .set({ isDefault: false })
    .where(and(eq(providerConfigs.merchantId, merchantId), eq(providerConfigs.provider, provider), ne(providerConfigs.id, keepId)))
}
