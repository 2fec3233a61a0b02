/** The merchant's per-refund limit (domain/refund-limits.ts), kept in its console policy (store/repos/second-factor.ts). */
import { parseRefundLimits, type RefundLimits } from '../domain/refund-limits.js'
import * as repo from '../store/repos/second-factor.js'
import { recordActivity } from './activity.js'
import { actorOfSession, type ConsoleSession } from './console-auth.js'
import type { Deps } from './deps.js'

export const refundLimitsOf = async (deps: Deps, merchantId: string): Promise<RefundLimits> =>
  (await repo.policyOf(deps.db, merchantId))?.refundLimits ?? {}

/** From Settings (owners and admins): the text as typed, checked whole before anything is saved. */
export async function setRefundLimits(deps: Deps, w: { s: ConsoleSession; ip: string; userAgent?: string }, text: string) {
  const limits = parseRefundLimits(text)
  await repo.setPolicy(deps.db, w.s.merchant.id, { refundLimits: limits }, deps.clock())
  await recordActivity(deps, { ...actorOfSession(w.s, w.ip, w.userAgent), action: 'refund_limits_changed', subject: w.s.merchant.id, detail: { limits } })
  return limits
}
