/** The second factor's rows (store/schema-second-factor.ts): secrets, recovery codes, session checks, policies. */
import { and, eq, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import type { Executor } from '../db.js'
import { consoleSessions } from '../schema-console.js'
import { consoleRecoveryCodes, consoleSecondFactors, consoleSessionChecks, merchantConsolePolicies } from '../schema-second-factor.js'

export type SecondFactorRow = typeof consoleSecondFactors.$inferSelect
export type PolicyRow = typeof merchantConsolePolicies.$inferSelect

export async function factorOf(tx: Executor, memberId: string): Promise<SecondFactorRow | null> {
  const [r] = await tx.select().from(consoleSecondFactors).where(eq(consoleSecondFactors.memberId, memberId))
  return r ?? null
}

/** The ids of the merchant's members with a confirmed second factor. */
export async function enrolledMembers(tx: Executor, merchantId: string) {
  const rows = await tx.select({ id: consoleSecondFactors.memberId }).from(consoleSecondFactors)
    .where(and(eq(consoleSecondFactors.merchantId, merchantId), isNotNull(consoleSecondFactors.confirmedAt)))
  return rows.map((r) => r.id)
}

/** What a console request needs to know: the member's confirmed factor, the session's last check, the policy. */
export async function gateOf(tx: Executor, merchantId: string, memberId: string, tokenHash: string) {
  const { rows: [r] } = await tx.execute<{ enrolled: boolean; checked_at: Date | string | null; required: boolean }>(sql`
    select
      exists (select 1 from console_second_factors where member_id = ${memberId} and confirmed_at is not null) as enrolled,
      (select checked_at from console_session_checks where token_hash = ${tokenHash}) as checked_at,
      coalesce((select require_second_factor from merchant_console_policies where merchant_id = ${merchantId}), false) as required`)
  return { enrolled: r.enrolled, checkedAt: r.checked_at === null ? null : new Date(r.checked_at), required: r.required }
}

/** A new enrolment's secret, begun by the session `beganByTokenHash`, replacing one begun and not confirmed; none when a confirmed one is in place. */
export async function beginEnrolment(tx: Executor, row: { memberId: string; merchantId: string; secretEnc: string; beganByTokenHash: string; createdAt: Date }) {
  const rows = await tx.insert(consoleSecondFactors).values(row)
    .onConflictDoUpdate({
      target: consoleSecondFactors.memberId,
      set: { secretEnc: row.secretEnc, beganByTokenHash: row.beganByTokenHash, createdAt: row.createdAt, lastStep: 0 },
      setWhere: isNull(consoleSecondFactors.confirmedAt),
    })
    .returning({ memberId: consoleSecondFactors.memberId })
  return rows.length === 1
}

/**
 * Claims time step `step` for the member's factor: one statement, so of two racing uses of one code
 * exactly one finds `last_step` below it. `confirming`: the claim also confirms a begun enrolment
 * (and only such a one, begun by that session and with the secret the code was checked against: not
 * one begun again meanwhile); otherwise only a confirmed factor is matched.
 */
export async function claimStep(tx: Executor, memberId: string, step: number, confirming: { at: Date; tokenHash: string; secretEnc: string } | null) {
  const rows = await tx.update(consoleSecondFactors)
    .set(confirming ? { lastStep: step, confirmedAt: confirming.at } : { lastStep: step })
    .where(and(
      eq(consoleSecondFactors.memberId, memberId),
      lt(consoleSecondFactors.lastStep, step),
      ...(confirming
        ? [isNull(consoleSecondFactors.confirmedAt), eq(consoleSecondFactors.beganByTokenHash, confirming.tokenHash), eq(consoleSecondFactors.secretEnc, confirming.secretEnc)]
        : [isNotNull(consoleSecondFactors.confirmedAt)]),
    ))
    .returning({ memberId: consoleSecondFactors.memberId })
  return rows.length === 1
}

export async function insertRecoveryCodes(tx: Executor, memberId: string, hashes: string[], at: Date) {
  await tx.delete(consoleRecoveryCodes).where(eq(consoleRecoveryCodes.memberId, memberId))
  await tx.insert(consoleRecoveryCodes).values(hashes.map((codeHash) => ({ memberId, codeHash, createdAt: at })))
}

/** Uses a recovery code once: of two racing uses, the conditional UPDATE lets one through. */
export async function claimRecoveryCode(tx: Executor, memberId: string, codeHash: string, at: Date) {
  const rows = await tx.update(consoleRecoveryCodes).set({ usedAt: at })
    .where(and(eq(consoleRecoveryCodes.memberId, memberId), eq(consoleRecoveryCodes.codeHash, codeHash), isNull(consoleRecoveryCodes.usedAt)))
    .returning({ memberId: consoleRecoveryCodes.memberId })
  return rows.length === 1
}

export async function unusedRecoveryCodes(tx: Executor, memberId: string) {
  const [r] = await tx.select({ n: sql<number>`count(*)::int` }).from(consoleRecoveryCodes)
    .where(and(eq(consoleRecoveryCodes.memberId, memberId), isNull(consoleRecoveryCodes.usedAt)))
  return r.n
}

/**
 * Removes the member's factor and codes (disabled, or reset by an owner or the operator), and their
 * sessions' checks: a factor set up again later holds every session but the one that confirms it.
 */
export async function removeFactor(tx: Executor, memberId: string) {
  await tx.delete(consoleRecoveryCodes).where(eq(consoleRecoveryCodes.memberId, memberId))
  await tx.delete(consoleSessionChecks).where(inArray(consoleSessionChecks.tokenHash, tx.select({ t: consoleSessions.tokenHash }).from(consoleSessions).where(eq(consoleSessions.memberId, memberId))))
  const rows = await tx.delete(consoleSecondFactors).where(eq(consoleSecondFactors.memberId, memberId)).returning({ memberId: consoleSecondFactors.memberId })
  return rows.length === 1
}

export async function markSessionChecked(tx: Executor, tokenHash: string, at: Date) {
  await tx.insert(consoleSessionChecks).values({ tokenHash, checkedAt: at })
    .onConflictDoUpdate({ target: consoleSessionChecks.tokenHash, set: { checkedAt: at } })
}

export async function policyOf(tx: Executor, merchantId: string): Promise<PolicyRow | null> {
  const [r] = await tx.select().from(merchantConsolePolicies).where(eq(merchantConsolePolicies.merchantId, merchantId))
  return r ?? null
}

export async function setPolicy(tx: Executor, merchantId: string, patch: { requireSecondFactor?: boolean; refundLimits?: Record<string, number> }, at: Date) {
  await tx.insert(merchantConsolePolicies).values({ merchantId, ...patch, updatedAt: at })
    .onConflictDoUpdate({ target: merchantConsolePolicies.merchantId, set: { ...patch, updatedAt: at } })
}
