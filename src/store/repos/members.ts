/** Console members, their invitations and the sessions they hold (docs/console.md#members-and-roles). */
import { and, asc, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consoleInvitations, consoleMembers, consoleSessions } from '../schema-console.js'

export type MemberRow = typeof consoleMembers.$inferSelect
export type InvitationRow = typeof consoleInvitations.$inferSelect

const active = (merchantId: string) => and(eq(consoleMembers.merchantId, merchantId), isNull(consoleMembers.removedAt))

export async function insertMember(tx: Executor, row: typeof consoleMembers.$inferInsert) {
  await tx.insert(consoleMembers).values(row)
}

/** The member in place with this email, whatever its case (console_members_email_lower_uq: at most one). */
export async function memberByEmail(tx: Executor, email: string): Promise<MemberRow | null> {
  const [m] = await tx.select().from(consoleMembers).where(and(sql`lower(${consoleMembers.email}) = ${email.toLowerCase()}`, isNull(consoleMembers.removedAt)))
  return m ?? null
}

export async function membersOf(tx: Executor, merchantId: string) {
  return tx.select().from(consoleMembers).where(active(merchantId)).orderBy(asc(consoleMembers.createdAt), asc(consoleMembers.id))
}

/**
 * The merchant's members in place, locked (`FOR UPDATE`): every change of roles or membership takes
 * them first, so two owners demoting each other at once cannot leave the merchant with none.
 */
export async function lockMembers(tx: Executor, merchantId: string) {
  return tx.select().from(consoleMembers).where(active(merchantId)).orderBy(asc(consoleMembers.id)).for('update')
}

/**
 * Whether the member is still in place with this password hash, holding their row (`FOR SHARE`) to the
 * end of the transaction: a new password or a removal (which end every session) waits for it, and one
 * that went first is seen.
 */
export async function holdSamePassword(tx: Executor, memberId: string, passwordHash: string) {
  const rows = await tx.select({ id: consoleMembers.id }).from(consoleMembers)
    .where(and(eq(consoleMembers.id, memberId), eq(consoleMembers.passwordHash, passwordHash), isNull(consoleMembers.removedAt))).for('share')
  return rows.length === 1
}

export async function setMemberRole(tx: Executor, memberId: string, role: string) {
  await tx.update(consoleMembers).set({ role }).where(eq(consoleMembers.id, memberId))
}

export async function setMemberPassword(tx: Executor, memberId: string, passwordHash: string) {
  await tx.update(consoleMembers).set({ passwordHash }).where(eq(consoleMembers.id, memberId))
}

export async function setMemberLogin(tx: Executor, memberId: string, email: string, passwordHash: string) {
  await tx.update(consoleMembers).set({ email, passwordHash }).where(eq(consoleMembers.id, memberId))
}

export async function markRemoved(tx: Executor, memberId: string, at: Date) {
  await tx.update(consoleMembers).set({ removedAt: at }).where(and(eq(consoleMembers.id, memberId), isNull(consoleMembers.removedAt)))
}

/** Ends every open session of the member but `keep`. */
export async function revokeMemberSessions(tx: Executor, merchantId: string, memberId: string, keep: string | null, at: Date) {
  await tx.update(consoleSessions).set({ revokedAt: at }).where(and(
    eq(consoleSessions.merchantId, merchantId), eq(consoleSessions.memberId, memberId), isNull(consoleSessions.revokedAt),
    keep ? ne(consoleSessions.tokenHash, keep) : undefined,
  ))
}

/** The merchant's open sessions (not revoked, not past `since` idle), newest first, with whose they are. */
export async function openSessions(tx: Executor, merchantId: string, seenSince: Date, createdSince: Date) {
  return tx.select({
    tokenHash: consoleSessions.tokenHash, memberId: consoleSessions.memberId, email: consoleMembers.email,
    ip: consoleSessions.ip, userAgent: consoleSessions.userAgent, createdAt: consoleSessions.createdAt, lastSeenAt: consoleSessions.lastSeenAt,
  }).from(consoleSessions)
    .innerJoin(consoleMembers, eq(consoleMembers.id, consoleSessions.memberId))
    .where(and(eq(consoleSessions.merchantId, merchantId), isNull(consoleSessions.revokedAt), gt(consoleSessions.lastSeenAt, seenSince), gt(consoleSessions.createdAt, createdSince)))
    .orderBy(desc(consoleSessions.lastSeenAt))
}

/** Ends one session of the merchant (of `memberId` only, when given); whether one ended. */
export async function revokeSessionOf(tx: Executor, merchantId: string, tokenHash: string, memberId: string | null, at: Date) {
  const rows = await tx.update(consoleSessions).set({ revokedAt: at }).where(and(
    eq(consoleSessions.merchantId, merchantId), eq(consoleSessions.tokenHash, tokenHash), isNull(consoleSessions.revokedAt),
    memberId ? eq(consoleSessions.memberId, memberId) : undefined,
  )).returning({ memberId: consoleSessions.memberId })
  return rows.length > 0 ? rows[0] : null
}

export async function insertInvitation(tx: Executor, row: typeof consoleInvitations.$inferInsert) {
  await tx.insert(consoleInvitations).values(row)
}

/** Invitations not used, not expired. */
export async function pendingInvitations(tx: Executor, merchantId: string, now: Date) {
  return tx.select().from(consoleInvitations)
    .where(and(eq(consoleInvitations.merchantId, merchantId), isNull(consoleInvitations.usedAt), gt(consoleInvitations.expiresAt, now)))
    .orderBy(desc(consoleInvitations.createdAt))
}

/**
 * Marks an unused, unexpired invitation used and answers it: of two racing accepts, one gets it. Every
 * other open invitation of the merchant to that email ends with it: one left over would let the
 * member, once removed, join again.
 */
export async function claimInvitation(tx: Executor, tokenHash: string, now: Date): Promise<InvitationRow | null> {
  const [r] = await tx.update(consoleInvitations).set({ usedAt: now })
    .where(and(eq(consoleInvitations.tokenHash, tokenHash), isNull(consoleInvitations.usedAt), gt(consoleInvitations.expiresAt, now)))
    .returning()
  if (!r) return null
  await tx.update(consoleInvitations).set({ usedAt: now })
    .where(and(eq(consoleInvitations.merchantId, r.merchantId), eq(consoleInvitations.email, r.email), isNull(consoleInvitations.usedAt)))
  return r
}

export async function findInvitation(tx: Executor, tokenHash: string, now: Date): Promise<InvitationRow | null> {
  const [r] = await tx.select().from(consoleInvitations)
    .where(and(eq(consoleInvitations.tokenHash, tokenHash), isNull(consoleInvitations.usedAt), gt(consoleInvitations.expiresAt, now)))
  return r ?? null
}

/** The invitation's email, or null when there was none open. */
export async function withdrawInvitation(tx: Executor, merchantId: string, tokenHash: string, now: Date) {
  const rows = await tx.update(consoleInvitations).set({ usedAt: now })
    .where(and(eq(consoleInvitations.merchantId, merchantId), eq(consoleInvitations.tokenHash, tokenHash), isNull(consoleInvitations.usedAt)))
    .returning({ email: consoleInvitations.email })
  return rows[0]?.email ?? null
}
