import { and, eq, lt, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { idempotencyKeys } from '../schema.js'
import type { Scope } from './scope.js'

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect

const where = (scope: Scope, key: string) =>
  and(eq(idempotencyKeys.merchantId, scope.merchantId), eq(idempotencyKeys.mode, scope.mode), eq(idempotencyKeys.key, key))

/**
 * Claims the key for this request. Returns null when claimed; otherwise the existing row. A row
 * whose lease lapsed without a response (its process died) is taken over by this request.
 */
export async function claimKey(tx: Executor, scope: Scope, key: string, fingerprint: string, now: Date, leaseMs: number) {
  const lockedUntil = new Date(now.getTime() + leaseMs)
  const inserted = await tx
    .insert(idempotencyKeys)
    .values({ ...scope, key, fingerprint, lockedUntil, createdAt: now })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key })
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
  await tx.update(idempotencyKeys).set({ responseStatus: status, responseBody: body, lockedUntil: null }).where(where(scope, key))
}

export async function releaseKey(tx: Executor, scope: Scope, key: string) {
  await tx.delete(idempotencyKeys).where(and(where(scope, key), sql`${idempotencyKeys.responseStatus} is null`))
}

/** Keys are kept 24 h. */
export async function purgeKeys(tx: Executor, before: Date) {
  await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before))
}
