/**
 * Console sign-in (docs/console.md): email and password (scrypt, security/api-keys.ts), an opaque
 * random session token whose SHA-256 is stored, idle and absolute expiry, revocation, and password
 * checks limited per account and per address so that guessing is slow from anywhere.
 */
import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { InvalidField, NotFound } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { hashPassword, verifyPassword } from '../security/api-keys.js'
import { clientNetwork } from '../security/client-network.js'
import { newToken, tokenHash } from '../security/tokens.js'
import * as repo from '../store/repos/console-sign-in.js'
import { endResets } from '../store/repos/password-resets.js'
import * as members from '../store/repos/members.js'
import { removeFactor } from '../store/repos/second-factor.js'
import { getMerchant } from '../store/repos/merchants.js'
import { merchants } from '../store/schema.js'
import { recordActivity } from './activity.js'
import { limitedGuess, THROTTLE_WINDOW_MS, type Guess } from './attempt-limit.js'
import { loginEmail, settingEmail } from './merchants.js'
import type { Deps } from './deps.js'

/** Signed out after this long without a request. */
export const IDLE_MS = 2 * 3600_000
/** And after this long in any case. */
export const ABSOLUTE_MS = 24 * 3600_000
export { THROTTLE_WINDOW_MS }
export const MAX_FAILURES_PER_ACCOUNT = 5
export const MAX_FAILURES_PER_ADDRESS = 30
/** last_seen_at is written at most this often. */
const TOUCH_MS = 60_000

const normalEmail = (email: string) => email.trim().toLowerCase()
const accountKey = (email: string) => `account:${normalEmail(email)}`
const addressKey = (ip: string) => `address:${clientNetwork(ip)}`

// Spent on an unknown email, so it takes as long as a wrong password.
let dummyHash: Promise<string> | null = null

/** One guess at an account's password, wherever it is asked (sign-in, change password). */
const guess = (deps: Deps, email: string, ip: string, check: () => Promise<boolean>) =>
  limitedGuess(deps, [{ key: accountKey(email), max: MAX_FAILURES_PER_ACCOUNT }, { key: addressKey(ip), max: MAX_FAILURES_PER_ADDRESS }], check)

export type SignInResult =
  | { ok: true; token: string; merchantId: string; memberId: string }
  | { ok: false; reason: 'invalid' | 'throttled' }

export async function signIn(deps: Deps, input: { email: string; password: string; ip: string; userAgent?: string; previousToken?: string }): Promise<SignInResult> {
  const email = normalEmail(input.email)
  // Member emails are unique ignoring case (console_members_email_lower_uq): at most one matches.
  const m = email ? await members.memberByEmail(deps.db, email) : null
  const result = await guess(deps, email, input.ip, async () => {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'))
    const stored = m?.passwordHash ?? await dummyHash
    return (await verifyPassword(input.password, stored)) && m !== null && m.passwordHash !== null
  })
  const who = m && { merchantId: m.merchantId, memberId: m.id, actor: m.email, ip: input.ip, userAgent: input.userAgent }
  if (result !== 'ok') {
    if (result === 'invalid' && who) await recordActivity(deps, { ...who, action: 'sign_in_failed' })
    return { ok: false, reason: result }
  }
  const member = m!
  // A new token at every sign-in; the one the browser had (if any) stops working.
  const now = deps.clock()
  const token = newToken()
  const opened = await deps.db.transaction(async (tx) => {
    // The password checked must still be the member's: a reset, a change or a removal that committed
    // meanwhile ended every session, and must end this one too (it waits for this one otherwise).
    if (!(await members.holdSamePassword(tx, member.id, member.passwordHash!))) return false
    if (input.previousToken) await repo.revokeSession(tx, tokenHash(input.previousToken), now)
    await repo.insertSession(tx, {
      tokenHash: tokenHash(token),
      merchantId: member.merchantId,
      memberId: member.id,
      csrfToken: newToken(),
      createdAt: now,
      lastSeenAt: now,
      ip: input.ip,
      userAgent: input.userAgent?.slice(0, 300) ?? null,
    })
    return true
  })
  await recordActivity(deps, { ...who!, action: opened ? 'sign_in' : 'sign_in_failed' })
  return opened ? { ok: true, token, merchantId: member.merchantId, memberId: member.id } : { ok: false, reason: 'invalid' }
}

export interface ConsoleSession {
  tokenHash: string
  csrfToken: string
  merchant: repo.MerchantRow
  member: members.MemberRow
}

/** The signed-in merchant of a cookie token, or null (unknown, revoked, idle too long, too old). */
export async function loadConsoleSession(deps: Deps, token: string): Promise<ConsoleSession | null> {
  const hashed = tokenHash(token)
  const found = await repo.findSession(deps.db, hashed)
  if (!found) return null
  const now = deps.clock().getTime()
  const { session, merchant, member } = found
  if (now - session.lastSeenAt.getTime() > IDLE_MS || now - session.createdAt.getTime() > ABSOLUTE_MS) {
    await repo.revokeSession(deps.db, hashed, new Date(now))
    return null
  }
  if (now - session.lastSeenAt.getTime() > TOUCH_MS) await repo.touchSession(deps.db, hashed, new Date(now))
  return { tokenHash: hashed, csrfToken: session.csrfToken, merchant, member }
}

/** The activity log's who and from where for a console request. */
export const actorOfSession = (s: ConsoleSession, ip: string, userAgent?: string) =>
  ({ merchantId: s.merchant.id, memberId: s.member.id, actor: s.member.email, ip, userAgent })

export async function signOut(deps: Deps, s: ConsoleSession, ip: string, userAgent?: string) {
  await repo.revokeSession(deps.db, s.tokenHash, deps.clock())
  await recordActivity(deps, { ...actorOfSession(s, ip, userAgent), action: 'sign_out' })
}

export function checkNewPassword(password: string) {
  if (password.length < 8) throw new InvalidField('password', 'must be at least 8 characters')
  if (password.length > 200) throw new InvalidField('password', 'must be at most 200 characters')
}

/**
 * From the console: the current password is asked again, as one guess of the account's sign-in
 * limit; every other session of the member ends.
 */
export async function changePassword(deps: Deps, s: ConsoleSession, current: string, next: string, ip: string, userAgent?: string): Promise<Guess> {
  checkNewPassword(next)
  const who = actorOfSession(s, ip, userAgent)
  const result = await guess(deps, s.member.email, ip, async () => s.member.passwordHash !== null && verifyPassword(current, s.member.passwordHash))
  if (result === 'invalid') await recordActivity(deps, { ...who, action: 'password_change_failed' })
  if (result !== 'ok') return result
  const hash = await hashPassword(next)
  const now = deps.clock()
  await deps.db.transaction(async (tx) => {
    await members.setMemberPassword(tx, s.member.id, hash)
    await members.revokeMemberSessions(tx, s.merchant.id, s.member.id, s.tokenHash, now)
    await endResets(tx, s.member.id, now)
  })
  await recordActivity(deps, { ...who, action: 'password_changed' })
  return 'ok'
}

/**
 * From the operator (admin API, `till merchants set-password`): sets or resets the merchant's login,
 * the owner member with the merchant's email, or the member with the email given (made an owner if it
 * was not one, or made when there is none), removes that member's second factor, and signs every
 * session of the merchant out.
 */
export async function setPassword(deps: Deps, merchantId: string, input: { password: string; email?: string }) {
  checkNewPassword(input.password)
  const given = input.email === undefined ? undefined : loginEmail(input.email)
  const hash = await hashPassword(input.password)
  const m = await getMerchant(deps.db, merchantId)
  if (!m) throw new NotFound()
  const email = given ?? m.email
  if (!email) throw new InvalidField('email', 'is required: this merchant has no console login yet')
  const now = deps.clock()
  let secondFactorReset = false
  await settingEmail(() => deps.db.transaction(async (tx) => {
    await tx.update(merchants).set({ passwordHash: hash, email }).where(eq(merchants.id, merchantId))
    const team = await members.lockMembers(tx, merchantId)
    // A member already holding the email given is the one reset (the last owner's way back when Till sends no mail).
    const login = team.find((x) => x.email === given) ?? team.find((x) => x.email === (m.email ?? email)) ?? team.find((x) => x.email === email)
    if (login) {
      await members.setMemberLogin(tx, login.id, email, hash)
      if (login.role !== 'owner') await members.setMemberRole(tx, login.id, 'owner')
      // The way back for an owner who lost both phone and recovery codes: the reset sign-in has no second factor.
      secondFactorReset = await removeFactor(tx, login.id)
      await endResets(tx, login.id, now)
    } else {
      await members.insertMember(tx, { id: newId('mem'), merchantId, email, passwordHash: hash, role: 'owner', createdAt: now })
    }
    await repo.revokeOtherSessions(tx, merchantId, null, now)
  }))
  return { set: { id: m.id, email, passwordSet: true as const }, secondFactorReset }
}
