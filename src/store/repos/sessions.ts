import { and, eq, inArray, lte, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { attempts, sessions } from '../schema.js'
import type { Scope } from './scope.js'

export type SessionRow = typeof sessions.$inferSelect
export type AttemptRow = typeof attempts.$inferSelect

export async function insertSession(tx: Executor, row: typeof sessions.$inferInsert) {
  const [s] = await tx.insert(sessions).values(row).returning()
  return s
}

export async function getSession(tx: Executor, scope: Scope, id: string): Promise<SessionRow | null> {
  const [s] = await tx
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.merchantId, scope.merchantId), eq(sessions.mode, scope.mode)))
  return s ?? null
}

/** Unscoped, by id: for the customer's pages and provider notifications, which carry no key. */
export async function getSessionById(tx: Executor, id: string, forUpdate = false): Promise<SessionRow | null> {
  const q = tx.select().from(sessions).where(eq(sessions.id, id))
  const [s] = forUpdate ? await q.for('update') : await q
  return s ?? null
}

export async function updateSession(tx: Executor, id: string, patch: Partial<typeof sessions.$inferInsert>, now: Date) {
  const [s] = await tx.update(sessions).set({ ...patch, updatedAt: now }).where(eq(sessions.id, id)).returning()
  return s
}

/** Ids of open sessions past their expiry, claimed so that concurrent sweeps never act twice. */
export async function claimExpired(tx: Executor, now: Date, limit: number): Promise<SessionRow[]> {
  return tx
    .select()
    .from(sessions)
    .where(and(inArray(sessions.status, ['pending', 'processing']), lte(sessions.expiresAt, now)))
    .limit(limit)
    .for('update', { skipLocked: true })
}

export async function insertAttempt(tx: Executor, row: typeof attempts.$inferInsert) {
  const [a] = await tx.insert(attempts).values(row).returning()
  return a
}

export async function getAttempt(tx: Executor, id: string, forUpdate = false): Promise<AttemptRow | null> {
  const q = tx.select().from(attempts).where(eq(attempts.id, id))
  const [a] = forUpdate ? await q.for('update') : await q
  return a ?? null
}

export async function openAttempts(tx: Executor, sessionId: string): Promise<AttemptRow[]> {
  return tx.select().from(attempts).where(and(eq(attempts.sessionId, sessionId), eq(attempts.status, 'processing')))
}

export async function updateAttempt(tx: Executor, id: string, patch: Partial<typeof attempts.$inferInsert>, now: Date) {
  await tx.update(attempts).set({ ...patch, updatedAt: now }).where(eq(attempts.id, id))
}

/** Attempts still processing whose next check is due, leased with SKIP LOCKED. */
export async function claimDueAttempts(tx: Executor, now: Date, limit: number): Promise<AttemptRow[]> {
  return tx
    .select()
    .from(attempts)
    .where(and(eq(attempts.status, 'processing'), lte(attempts.nextCheckAt, now)))
    .limit(limit)
    .for('update', { skipLocked: true })
}

export async function bumpAttemptCheck(tx: Executor, id: string, next: Date) {
  await tx.update(attempts).set({ nextCheckAt: next, checks: sql`${attempts.checks} + 1` }).where(eq(attempts.id, id))
}

/** The newest attempt of a session: older open ones were abandoned by a channel switch. */
export async function latestAttemptId(tx: Executor, sessionId: string): Promise<string | null> {
  const [a] = await tx.select({ id: attempts.id }).from(attempts).where(eq(attempts.sessionId, sessionId)).orderBy(sql`${attempts.createdAt} desc`).limit(1)
  return a?.id ?? null
}
