/** The console's sign-in: its sessions (a hashed token each) and the password-check counters. */
import { and, eq, isNull, lt, ne, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consoleMembers, consoleSessions, consoleSignInFailures } from '../schema-console.js'
import { merchants } from '../schema.js'
import type { MemberRow } from './members.js'

export type ConsoleSessionRow = typeof consoleSessions.$inferSelect
export type MerchantRow = typeof merchants.$inferSelect

export async function insertSession(tx: Executor, row: typeof consoleSessions.$inferInsert) {
  await tx.insert(consoleSessions).values(row)
}

/**
 * A session that is not revoked, of a member still in place, with its merchant and member. A session
 * without member_id (opened by a release before 0016 during a rolling upgrade) matches no member,
 * so it reads as signed out (test/console/old-sessions.test.ts).
 */
export async function findSession(tx: Executor, tokenHash: string): Promise<{ session: ConsoleSessionRow; merchant: MerchantRow; member: MemberRow } | null> {
  const [r] = await tx.select({ session: consoleSessions, merchant: merchants, member: consoleMembers }).from(consoleSessions)
    .innerJoin(merchants, eq(merchants.id, consoleSessions.merchantId))
    .innerJoin(consoleMembers, and(eq(consoleMembers.id, consoleSessions.memberId), eq(consoleMembers.merchantId, consoleSessions.merchantId)))
    .where(and(eq(consoleSessions.tokenHash, tokenHash), isNull(consoleSessions.revokedAt), isNull(consoleMembers.removedAt)))
  return r ?? null
}

export async function touchSession(tx: Executor, tokenHash: string, at: Date) {
  await tx.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.tokenHash, tokenHash))
}

export async function revokeSession(tx: Executor, tokenHash: string, at: Date) {
  await tx.update(consoleSessions).set({ revokedAt: at }).where(and(eq(consoleSessions.tokenHash, tokenHash), isNull(consoleSessions.revokedAt)))
}

/** Every live session of the merchant but `keep` (a password change signs the others out). */
export async function revokeOtherSessions(tx: Executor, merchantId: string, keep: string | null, at: Date) {
  const others = keep ? ne(consoleSessions.tokenHash, keep) : undefined
  await tx.update(consoleSessions).set({ revokedAt: at }).where(and(eq(consoleSessions.merchantId, merchantId), isNull(consoleSessions.revokedAt), others))
}

/**
 * Claims one password check on every key's window in one statement, and answers each key's count
 * after it, in the order of `keys`. Each row's lock is held only for the statement; keys are always
 * passed in the same order (account, then address), so two claims never wait on each other in a cycle.
 */
export async function claimAttempt(tx: Executor, keys: string[], windowStart: number): Promise<number[]> {
  const rows = await tx.insert(consoleSignInFailures).values(keys.map((key) => ({ key, windowStart, count: 1 })))
    .onConflictDoUpdate({ target: [consoleSignInFailures.key, consoleSignInFailures.windowStart], set: { count: sql`${consoleSignInFailures.count} + 1` } })
    .returning({ key: consoleSignInFailures.key, count: consoleSignInFailures.count })
  return keys.map((k) => rows.find((r) => r.key === k)!.count)
}

/**
 * Gives back a claim of the same window (a check that was refused, or that succeeded). One key per
 * statement: holding one row lock at a time, it cannot deadlock with a claim.
 */
export async function releaseAttempt(tx: Executor, keys: string[], windowStart: number) {
  for (const key of keys) {
    await tx.update(consoleSignInFailures).set({ count: sql`${consoleSignInFailures.count} - 1` })
      .where(and(eq(consoleSignInFailures.key, key), eq(consoleSignInFailures.windowStart, windowStart)))
  }
}

export async function purgeFailures(tx: Executor, before: number) {
  await tx.delete(consoleSignInFailures).where(lt(consoleSignInFailures.windowStart, before))
}
