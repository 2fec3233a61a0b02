/**
 * Password reset for console members (docs/console.md#password-reset): a one-time link that expires
 * (its token's SHA-256 stored), asked for by the member ("Forgot password?", mailed) or made by an
 * owner on the Team page (mailed, or shown to copy without SMTP). Using it sets the password only
 * (a second factor is still asked at sign-in) and ends every console session of the member.
 */
import { NotFound } from '../domain/errors.js'
import type { Locale } from '../domain/locales.js'
import { hashPassword } from '../security/api-keys.js'
import { clientNetwork } from '../security/client-network.js'
import { newToken, tokenHash } from '../security/tokens.js'
import type { Executor } from '../store/db.js'
import { claimAttempt } from '../store/repos/console-sign-in.js'
import * as members from '../store/repos/members.js'
import * as resets from '../store/repos/password-resets.js'
import { recordActivity } from './activity.js'
import { windowOf } from './attempt-limit.js'
import { actorOfSession, checkNewPassword, type ConsoleSession } from './console-auth.js'
import { queueMemberMail } from './member-mail.js'
import type { Deps } from './deps.js'

/** A reset link works this long. */
export const RESET_MS = 30 * 60_000
/** Requests per email address, and per client network, in a sign-in throttle window (15 minutes). */
export const MAX_RESETS_PER_ACCOUNT = 3
export const MAX_RESETS_PER_ADDRESS = 20

/** Writes a reset of `m` and queues its mail (when this instance sends mail); the link and whether it was queued. */
async function issue(deps: Deps, tx: Executor, m: members.MemberRow, madeBy: string | null, locale: Locale) {
  const token = newToken()
  const now = deps.clock()
  const expiresAt = new Date(now.getTime() + RESET_MS)
  const link = `${deps.config.baseUrl}/console/reset/${token}`
  await resets.insertReset(tx, { tokenHash: tokenHash(token), merchantId: m.merchantId, memberId: m.id, madeBy, createdAt: now, expiresAt })
  const mailed = await queueMemberMail(tx, deps, { kind: 'password_reset', merchantId: m.merchantId, to: m.email, link, locale, expiresAt })
  return { link, mailed }
}

/**
 * "Forgot password?": the same answer whether or not a member has the address, in the same time.
 * Requests are claimed per address and per client network with the sign-in's atomic counters (under
 * keys of their own, so they never lock anyone's sign-in), and never given back: a burst gets no more
 * links than the limit. The answer does not wait for the member to be looked up and the link made
 * (`issued`, which the console does not await): writing them would take a known address longer.
 */
export async function requestReset(deps: Deps, input: { email: string; ip: string; userAgent?: string; locale: Locale }): Promise<{ result: 'ok' | 'throttled'; issued: Promise<void> }> {
  const email = input.email.trim().toLowerCase()
  const [account, address] = await claimAttempt(deps.db, [`reset:account:${email}`, `reset:address:${clientNetwork(input.ip)}`], windowOf(deps.clock()))
  if (account > MAX_RESETS_PER_ACCOUNT || address > MAX_RESETS_PER_ADDRESS) return { result: 'throttled', issued: Promise.resolve() }
  if (!deps.config.smtpUrl || !email) return { result: 'ok', issued: Promise.resolve() }
  const issued = (async () => {
    const m = await members.memberByEmail(deps.db, email)
    if (!m) return
    await deps.db.transaction((tx) => issue(deps, tx, m, null, input.locale))
    await recordActivity(deps, { merchantId: m.merchantId, memberId: m.id, actor: m.email, action: 'password_reset_requested', subject: m.email, ip: input.ip, userAgent: input.userAgent })
  })().catch((err: unknown) => deps.log.error({ err }, 'a password reset asked for could not be made'))
  return { result: 'ok', issued }
}

/** From an owner's Team page: a reset link for a member, mailed to them, or (no SMTP) to hand over. */
export async function makeReset(deps: Deps, w: { s: ConsoleSession; ip: string; userAgent?: string }, memberId: string, locale: Locale) {
  const m = (await members.membersOf(deps.db, w.s.merchant.id)).find((x) => x.id === memberId)
  if (!m) throw new NotFound()
  const { link, mailed } = await deps.db.transaction((tx) => issue(deps, tx, m, w.s.member.id, locale))
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'password_reset_link_made', subject: m.email, detail: { mailed } })
  return { link, mailed, email: m.email }
}

/** The member a reset link is for, while it can still be used. */
export async function openReset(deps: Deps, token: string) {
  const r = await resets.findReset(deps.db, tokenHash(token), deps.clock())
  return r && (await members.membersOf(deps.db, r.merchantId)).find((m) => m.id === r.memberId) || null
}

/**
 * Sets the new password: the link is used once (of two racing uses, one sets it; every other open
 * link of the member ends with it), and every console session of the member ends in the same
 * transaction.
 */
export async function useReset(deps: Deps, token: string, password: string, ip: string, userAgent?: string) {
  checkNewPassword(password)
  const hash = await hashPassword(password)
  const now = deps.clock()
  const member = await deps.db.transaction(async (tx) => {
    const r = await resets.claimReset(tx, tokenHash(token), now)
    if (!r) throw new NotFound()
    const m = (await members.lockMembers(tx, r.merchantId)).find((x) => x.id === r.memberId)
    if (!m) throw new NotFound()
    await members.setMemberPassword(tx, m.id, hash)
    await members.revokeMemberSessions(tx, m.merchantId, m.id, null, now)
    return m
  })
  await recordActivity(deps, { merchantId: member.merchantId, memberId: member.id, actor: member.email, action: 'password_reset', subject: member.email, ip, userAgent })
}
