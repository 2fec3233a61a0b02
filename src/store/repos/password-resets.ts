/** Console password resets (schema-member-mail.ts): one-time links, stored as their token's SHA-256. */
import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consolePasswordResets } from '../schema-member-mail.js'

export type PasswordResetRow = typeof consolePasswordResets.$inferSelect

export async function insertReset(tx: Executor, row: typeof consolePasswordResets.$inferInsert) {
  await tx.insert(consolePasswordResets).values(row)
}

const open = (tokenHash: string, now: Date) =>
  and(eq(consolePasswordResets.tokenHash, tokenHash), isNull(consolePasswordResets.usedAt), gt(consolePasswordResets.expiresAt, now))

export async function findReset(tx: Executor, tokenHash: string, now: Date): Promise<PasswordResetRow | null> {
  const [r] = await tx.select().from(consolePasswordResets).where(open(tokenHash, now))
  return r ?? null
}

/**
 * Marks an unused, unexpired reset used and answers it, with every other open reset of its member
 * (one new password ends them all): of two racing uses, one gets it.
 */
export async function claimReset(tx: Executor, tokenHash: string, now: Date): Promise<PasswordResetRow | null> {
  const [r] = await tx.update(consolePasswordResets).set({ usedAt: now }).where(open(tokenHash, now)).returning()
  if (!r) return null
  await endResets(tx, r.memberId, now)
  return r
}

/** Ends every open reset of the member: a password set by any way makes the links before it void. */
export async function endResets(tx: Executor, memberId: string, now: Date) {
  await tx.update(consolePasswordResets).set({ usedAt: now }).where(and(eq(consolePasswordResets.memberId, memberId), isNull(consolePasswordResets.usedAt)))
}
