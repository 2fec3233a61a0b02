import { and, eq, lt, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { statement } from '../prepared.js'
import { idempotencyKeys } from '../schema.js'
import type { Scope } from './scope.js'

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect

const p = sql.placeholder
// Every POST with a key claims and answers it: built once (store/prepared.ts).
const claimStmt = statement('idempotency_claim', (ex) => ex.insert(idempotencyKeys)
  .values({ merchantId: p('merchantId'), mode: p('mode'), key: p('key'), fingerprint: p('fingerprint'), lockedUntil: p('lockedUntil'), createdAt: p('createdAt') })
  .onConflictDoNothing()
  .returning({ key: idempotencyKeys.key }))
const saveStmt = statement('idempotency_save', (ex) => ex.update(idempotencyKeys)
  .set({ responseStatus: p('status') as unknown as number, responseBody: p('body') as unknown as string, lockedUntil: null })
  .where(and(eq(idempotencyKeys.merchantId, p('merchantId')), eq(idempotencyKeys.mode, p('mode')), eq(idempotencyKeys.key, p('key')))))

const where = (scope: Scope, key: string) =>
  and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.mode, scope.mode), eq(idempotencyKeys.key, key))

/**
 * Claims the key for this request. Returns null when claimed; otherwise the existing row. A row
 * whose lease lapsed without a response (its process died) is taken over by this request.
 */
export async function claimKey(tx: Executor, scope: Scope, key: string, fingerprint: string, now: Date, leaseMs: number) {
  const lockedUntil = new Date(now.getTime() + leaseMs)
  const inserted = await claimStmt(tx, { merchantId: scope.merchantId, mode: scope.mode, key, fingerprint, lockedUntil, createdAt: now })
  if (inserted.length) return null
  const takenOver = await tx
    .update(idempotencyKeys)
    .set({ lockedUntil })
    .where(and(where(scope, key), eq(idempotencyKeys.fingerprint, fingerprint), sql`${idempotencyKeys.responseStatus} is null`, lt(idempotencyKeys.lockedUntil, now)))
    .returning({ key: idempotencyKeys.key })
  if (takenOver.length) return null
  const [row] = await tx.select().from(idempotencyKeys).where(where(scope, key))
  return row
}

export async function saveResponse(tx: Executor, scope: Scope, key: string, status: number, body: string) {
  // Drizzle encodes a placeholder in .set() through its column like any value; its types admit none.
  await saveStmt(tx, { merchantId: scope.merchantId, mode: scope.mode, key, status, body })
}

export async function releaseKey(tx: Executor, scope: Scope, key: string) {
  await tx.delete(idempotencyKeys).where(and(where(scope, key), sql`${idempotencyKeys.responseStatus} is null`))
}

/** Keys are kept 24 h. */
export async function purgeKeys(tx: Executor, before: Date) {
  await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before))
}
