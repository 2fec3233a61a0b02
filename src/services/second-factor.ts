/**
 * The console's second factor (docs/console.md#a-second-factor): TOTP enrolment and its ten recovery
 * codes, the check after the password and before a sensitive action (step-up), and the owner's
 * "every member needs a second factor". Codes are guessed under the same limits as passwords
 * (attempt-limit.ts), per member and per address; a TOTP step and a recovery code are each used once,
 * claimed by a conditional UPDATE.
 */
import { createHmac, randomInt } from 'node:crypto'
import { Conflict, InvalidField, NotFound } from '../domain/errors.js'
import { clientNetwork } from '../security/client-network.js'
import { matchTotpStep, newTotpSecret, totpUri } from '../security/totp.js'
import * as members from '../store/repos/members.js'
import * as repo from '../store/repos/second-factor.js'
import { recordActivity, type ActivityAction } from './activity.js'
import { limitedGuess, type Guess } from './attempt-limit.js'
import { actorOfSession, type ConsoleSession } from './console-auth.js'
import { brandingOf } from './merchant-settings.js'
import type { Deps } from './deps.js'

export const RECOVERY_CODE_COUNT = 10
/** A sensitive action asks for the second factor again when the session's last check is older than this. */
export const STEP_UP_MS = 5 * 60_000
export const MAX_CODE_FAILURES_PER_MEMBER = 5
export const MAX_CODE_FAILURES_PER_ADDRESS = 30

/** Recovery codes: ten letters and digits (no 0/o/1/l/i), about 50 bits, shown as two groups of five. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'
const newRecoveryCode = () => {
  const c = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('')
  return `${c.slice(0, 5)}-${c.slice(5)}`
}
const normalRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '')
const isTotpCode = (code: string) => /^\d{6}$/.test(code.replace(/\s/g, ''))

type Who = { s: ConsoleSession; ip: string; userAgent?: string }

const aad = (s: ConsoleSession) => `console-second-factor:${s.merchant.id}:${s.member.id}`
const recoveryHash = (deps: Deps, memberId: string, code: string) =>
  createHmac('sha256', deps.box.derive('console-recovery-codes')).update(`${memberId}:${normalRecoveryCode(code)}`).digest('hex')

/** An entry about the member's own second factor names them, as a sign-in does; the merchant's policy names the merchant. */
const log = (deps: Deps, w: Who, action: ActivityAction, detail?: Record<string, unknown>, subject: string = w.s.member.email) =>
  recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action, detail, subject })

const limits = (w: Who) => [
  { key: `second-factor:member:${w.s.member.id}`, max: MAX_CODE_FAILURES_PER_MEMBER },
  { key: `second-factor:address:${clientNetwork(w.ip)}`, max: MAX_CODE_FAILURES_PER_ADDRESS },
]

/**
 * Where a session stands: `ok`, `code` (the member has a second factor and this session has not
 * passed it: half signed in), or `enrol` (the merchant requires one and the member has none).
 */
export async function gateOf(deps: Deps, s: ConsoleSession) {
  const g = await repo.gateOf(deps.db, s.merchant.id, s.member.id, s.tokenHash)
  const state: 'ok' | 'code' | 'enrol' = g.enrolled ? (g.checkedAt ? 'ok' : 'code') : g.required ? 'enrol' : 'ok'
  return { ...g, state }
}

/** Whether a sensitive action must ask for the second factor first (members without one never are). */
export const needsStepUp = (deps: Deps, g: { enrolled: boolean; checkedAt: Date | null }) =>
  g.enrolled && (g.checkedAt === null || deps.clock().getTime() - g.checkedAt.getTime() > STEP_UP_MS)

export interface Enrolment { secret: string; uri: string }

/** The enrolment under way (`fresh`: a new one, replacing it); null once a second factor is confirmed. */
export async function enrolment(deps: Deps, w: Who, fresh: boolean): Promise<Enrolment | null> {
  const { s } = w
  const existing = await repo.factorOf(deps.db, s.member.id)
  if (existing?.confirmedAt) return null
  let secret: string
  if (!fresh) {
    // Shown only to the session that began it: another session of the member (left signed in
    // elsewhere, or someone else's) must not learn the secret about to be confirmed.
    if (!existing || existing.beganByTokenHash !== s.tokenHash) return null
    secret = deps.box.open(existing.secretEnc, aad(s))
  } else {
    secret = newTotpSecret()
    const begun = await repo.beginEnrolment(deps.db, { memberId: s.member.id, merchantId: s.merchant.id, secretEnc: deps.box.seal(secret, aad(s)), beganByTokenHash: s.tokenHash, createdAt: deps.clock() })
    if (!begun) return null
    await log(deps, w, 'second_factor_enrolment_started')
  }
  return { secret, uri: totpUri(secret, s.member.email, `Till (${brandingOf(s.merchant).name})`) }
}

/**
 * Confirms the enrolment with a code from the app; the member's ten recovery codes are made in the
 * same transaction and returned, once, to be shown.
 */
export async function confirmEnrolment(deps: Deps, w: Who, code: string): Promise<{ result: Guess; codes?: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
  const result = await limitedGuess(deps, limits(w), async () => {
    const factor = await repo.factorOf(deps.db, w.s.member.id)
    if (!factor || factor.confirmedAt || factor.beganByTokenHash !== w.s.tokenHash) return false
    const step = matchTotpStep(deps.box.open(factor.secretEnc, aad(w.s)), code, deps.clock())
    if (step === null) return false
    const now = deps.clock()
    return deps.db.transaction(async (tx) => {
      if (!(await repo.claimStep(tx, w.s.member.id, step, { at: now, tokenHash: w.s.tokenHash, secretEnc: factor.secretEnc }))) return false
      await repo.insertRecoveryCodes(tx, w.s.member.id, codes.map((c) => recoveryHash(deps, w.s.member.id, c)), now)
      await repo.markSessionChecked(tx, w.s.tokenHash, now)
      return true
    })
  })
  if (result === 'invalid') await log(deps, w, 'second_factor_failed', { during: 'enrolment' })
  if (result !== 'ok') return { result }
  await log(deps, w, 'second_factor_enabled')
  return { result, codes }
}

/** A TOTP code of a step not used before, within the drift; claims the step. */
async function totpPasses(deps: Deps, s: ConsoleSession, code: string) {
  const factor = await repo.factorOf(deps.db, s.member.id)
  if (!factor?.confirmedAt) return false
  const step = matchTotpStep(deps.box.open(factor.secretEnc, aad(s)), code, deps.clock())
  return step !== null && repo.claimStep(deps.db, s.member.id, step, null)
}

/**
 * The check after the password, or before a sensitive action: a TOTP code, or one of the recovery
 * codes (used up by it). The session is marked checked now.
 */
export async function checkSecondFactor(deps: Deps, w: Who, code: string, during: 'sign_in' | 'step_up'): Promise<Guess> {
  let recovery = false
  const result = await limitedGuess(deps, limits(w), async () => {
    if (isTotpCode(code)) return totpPasses(deps, w.s, code)
    recovery = normalRecoveryCode(code).length === 10
    return recovery && repo.claimRecoveryCode(deps.db, w.s.member.id, recoveryHash(deps, w.s.member.id, code), deps.clock())
  })
  if (result === 'invalid') await log(deps, w, 'second_factor_failed', { during })
  if (result !== 'ok') return result
  await repo.markSessionChecked(deps.db, w.s.tokenHash, deps.clock())
  await log(deps, w, recovery ? 'recovery_code_used' : 'second_factor_passed', { during, ...(recovery ? { left: await repo.unusedRecoveryCodes(deps.db, w.s.member.id) } : {}) })
  return result
}

export class SecondFactorRequired extends Conflict {
  constructor() {
    super('this merchant requires a second factor for every member: it cannot be turned off')
  }
}

export class OwnSecondFactor extends InvalidField {
  constructor() {
    super('member', 'is you: turn your own second factor off with a code from your app')
  }
}

/** Turns the member's second factor off, with a fresh code from the app. */
export async function disableSecondFactor(deps: Deps, w: Who, code: string): Promise<Guess> {
  if ((await gateOf(deps, w.s)).required) throw new SecondFactorRequired()
  const result = await limitedGuess(deps, limits(w), () => totpPasses(deps, w.s, code))
  if (result === 'invalid') await log(deps, w, 'second_factor_failed', { during: 'disable' })
  if (result !== 'ok') return result
  await repo.removeFactor(deps.db, w.s.member.id)
  await log(deps, w, 'second_factor_disabled')
  return result
}

export const membersWithSecondFactor = (deps: Deps, merchantId: string) => repo.enrolledMembers(deps.db, merchantId)

export const recoveryCodesLeft = (deps: Deps, s: ConsoleSession) => repo.unusedRecoveryCodes(deps.db, s.member.id)

/**
 * For a member who lost both their phone and their codes: removes their second factor, so they sign
 * in with their password and (if the merchant requires it) enrol again, by an owner from the members
 * page. The operator's `till merchants set-password` does the same for the owner it resets (console-auth.ts).
 */
export async function resetSecondFactor(deps: Deps, merchantId: string, memberId: string, by: { actor: string; memberId?: string; ip?: string; userAgent?: string }) {
  // One's own is turned off with a fresh code (disableSecondFactor), never by this.
  if (memberId === by.memberId) throw new OwnSecondFactor()
  const member = (await members.membersOf(deps.db, merchantId)).find((m) => m.id === memberId)
  if (!member) throw new NotFound()
  const removed = await repo.removeFactor(deps.db, memberId)
  await recordActivity(deps, { merchantId, ...by, action: 'second_factor_reset', subject: member.email })
  return { member: member.email, removed }
}

export async function setRequireSecondFactor(deps: Deps, w: Who, required: boolean) {
  await repo.setPolicy(deps.db, w.s.merchant.id, { requireSecondFactor: required }, deps.clock())
  await log(deps, w, 'second_factor_policy_changed', { required }, w.s.merchant.id)
}
