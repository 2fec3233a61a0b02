/**
 * The merchant closes a session it no longer wants (POST /api/v1/sessions/{id}/cancel|expire, as
 * Stripe's Checkout expire): its open provider orders are closed at the provider first, then the
 * session moves and its event goes out, once, in one transaction (services/payments.ts).
 */
import { NotFound, SessionTerminal } from '../domain/errors.js'
import { effectiveStatus, isOpen, type SessionStatus } from '../domain/session-machine.js'
import type { PaymentRef } from '../providers/types.js'
import type { Scope } from '../store/repos/scope.js'
import * as sessions from '../store/repos/sessions.js'
import type { AttemptRow } from '../store/repos/sessions.js'
import { configFor } from './attempts.js'
import type { Deps } from './deps.js'
import { applyFacts } from './payment-facts.js'
import { cancelSession, expireSession, readSession } from './sessions.js'

export const paymentRef = (a: Pick<AttemptRow, 'id' | 'providerRef' | 'providerData'>): PaymentRef => ({
  attemptId: a.id,
  providerRef: a.providerRef,
  data: a.providerData,
})

/**
 * An attempt the provider closed, closed on Till's side only while still open: a payment recorded
 * meanwhile (its notification, or Creem, which cannot close) stays succeeded.
 */
export const closeIfOpen = (deps: Deps, attemptId: string) => deps.db.transaction(async (tx) => {
  const current = await sessions.getAttemptUnscoped(tx, attemptId, true)
  if (current?.status === 'processing') await sessions.updateAttempt(tx, attemptId, { status: 'closed', nextCheckAt: null }, deps.clock())
})

/**
 * Closes one open attempt at its provider. A close that finds the order paid records the payment
 * (the session is then paid, and the merchant's close is refused). A provider that cannot be reached
 * does not stop the close: the attempt stays open and reconciliation closes it (or records its
 * payment) as for any closed session.
 */
async function closeAtProvider(deps: Deps, a: AttemptRow) {
  const provider = deps.providers.get(a.provider)
  if (!provider) return
  try {
    const cfg = await configFor(deps, deps.db, a.provider, a.providerConfigId)
    const closed = await provider.closePayment(cfg, paymentRef(a))
    if ('alreadyPaid' in closed) return await applyFacts(deps, a.provider, a.providerConfigId, [closed.alreadyPaid])
    await closeIfOpen(deps, a.id)
  } catch (err) {
    deps.log.warn({ err, attemptId: a.id }, 'closing an attempt at its provider failed; reconciliation closes it')
  }
}

/** The session canceled or expired by its merchant, as the API answers it; `session_terminal` unless it was open. */
export async function closeByMerchant(deps: Deps, scope: Scope, id: string, how: 'cancel' | 'expire') {
  const s = await sessions.getSession(deps.db, scope, id)
  if (!s) throw new NotFound()
  const status = effectiveStatus(s.status as SessionStatus, s.expiresAt, deps.clock())
  if (!isOpen(status)) throw new SessionTerminal(status)
  for (const a of await sessions.openAttempts(deps.db, s.id)) await closeAtProvider(deps, a)
  // Under the session's lock: a payment recorded meanwhile (above, or by a notification) refuses it as `session is paid`.
  await (how === 'cancel' ? cancelSession : expireSession)(deps, s.id)
  return readSession(deps, scope, id)
}
