/** The console's own tables: sign-in sessions, password-check counters and the activity log. */
import { and, asc, desc, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consoleActivity, consoleMembers, consoleSessions, consoleSignInFailures, events, merchants, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../schema.js'
import type { MemberRow } from './members.js'

export type ConsoleSessionRow = typeof consoleSessions.$inferSelect
export type ActivityRow = typeof consoleActivity.$inferSelect
export type MerchantRow = typeof merchants.$inferSelect

export async function insertSession(tx: Executor, row: typeof consoleSessions.$inferInsert) {
  await tx.insert(consoleSessions).values(row)
}

/** A session that is not revoked, of a member still in place, with its merchant and member. */
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

export async function insertActivity(tx: Executor, row: typeof consoleActivity.$inferInsert) {
  // The one unique index (a refund's entry) makes a repeat a no-op.
  await tx.insert(consoleActivity).values(row).onConflictDoNothing()
}

/** Newest first, the entries of this mode and those that have none; keyset on id. */
export async function listActivity(tx: Executor, merchantId: string, mode: 'test' | 'live', opts: { limit: number; before?: number }) {
  const rows = await tx.select().from(consoleActivity)
    .where(and(
      eq(consoleActivity.merchantId, merchantId),
      or(eq(consoleActivity.mode, mode), isNull(consoleActivity.mode)),
      opts.before !== undefined ? lt(consoleActivity.id, opts.before) : undefined,
    ))
    .orderBy(desc(consoleActivity.id))
    .limit(opts.limit + 1)
  return { rows: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit }
}

/** What a payment's timeline shows of an event's delivery: where, its state, how often tried, the last answer. */
export interface DeliverySummary {
  url: string
  status: string
  attempts: number
  last: { statusCode: number | null; error: string | null } | null
}

/**
 * A payment's timeline: the events naming its session, oldest first (events_session_idx, at most
 * 200), each with its deliveries summed up. Two queries however many events: the page must not take
 * the pool that every merchant's API shares.
 */
export async function timelineOfSession(tx: Executor, scope: { merchantId: string; mode: 'test' | 'live' }, sessionId: string) {
  const rows = await tx.select({ id: events.id, type: events.type, createdAt: events.createdAt }).from(events)
    .where(and(eq(events.merchantId, scope.merchantId), eq(events.mode, scope.mode), sql`(${events.data}->>'sessionId') = ${sessionId}`))
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(200)
  const deliveries = rows.length === 0 ? [] : await tx.select({
    eventId: webhookDeliveries.eventId,
    url: webhookEndpoints.url,
    status: webhookDeliveries.status,
    attempts: sql<number>`(select count(*)::int from ${webhookAttempts} a where a.delivery_id = ${webhookDeliveries.id})`,
    last: sql<DeliverySummary['last']>`(select json_build_object('statusCode', a.status_code, 'error', a.error) from ${webhookAttempts} a
      where a.delivery_id = ${webhookDeliveries.id} order by a.attempted_at desc, a.id desc limit 1)`,
  }).from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(inArray(webhookDeliveries.eventId, rows.map((e) => e.id)))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
  const byEvent = new Map(rows.map((e) => [e.id, [] as DeliverySummary[]]))
  for (const { eventId, ...d } of deliveries) byEvent.get(eventId)!.push(d)
  return rows.map((e) => ({ ...e, deliveries: byEvent.get(e.id)! }))
}
