/**
 * Reconciliation: asks providers about attempts still `processing` and refunds still `pending`,
 * with backoff, so a lost notification never leaves money unrecorded. Claims are leased with
 * SKIP LOCKED and every provider call happens outside a transaction.
 */
import { nextAttemptCheck, nextRefundCheck } from '../domain/reconcile-backoff.js'
import { effectiveStatus, isOpen, type SessionStatus } from '../domain/session-machine.js'
import { ProviderError, type PaymentRef, type RefundState } from '../providers/types.js'
import type { Deps } from '../services/deps.js'
import { configFor } from '../services/attempts.js'
import { applyFacts } from '../services/payment-facts.js'
import { settleRefund } from '../services/refund-settle.js'
import { sendRefund } from '../services/refunds.js'
import { closeIfOpen, paymentRef } from '../services/session-close.js'
import * as records from '../store/repos/records.js'
import * as refundRepo from '../store/repos/refunds.js'
import * as sessions from '../store/repos/sessions.js'

export async function reconcileAttempts(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock()
  const due = await deps.db.transaction(async (tx) => {
    const rows = await sessions.claimDueAttempts(tx, now, limit)
    for (const a of rows) await sessions.bumpAttemptCheck(tx, a.id, nextAttemptCheck(now, a.checks))
    return rows
  })
  for (const a of due) {
    try {
      const provider = deps.providers.get(a.provider)
      if (!provider) continue
      const cfg = await configFor(deps, deps.db, a.provider, a.providerConfigId)
      const session = (await sessions.getSessionUnscoped(deps.db, a.sessionId))!
      const state = await provider.queryPayment(cfg, paymentRef(a))
      if (state.status === 'succeeded' || state.status === 'failed') {
        await applyFacts(deps, a.provider, a.providerConfigId, [
          { kind: 'payment', attemptId: a.id, status: state.status, providerRef: state.providerRef, amount: state.amount, currency: state.status === 'succeeded' ? state.currency ?? session.currency : undefined, paidAt: state.paidAt, data: state.data },
        ])
        continue
      }
      const superseded = (await sessions.latestAttemptId(deps.db, a.sessionId)) !== a.id
      const open = isOpen(effectiveStatus(session.status as SessionStatus, session.expiresAt, deps.clock()))
      if (state.status === 'closed' || superseded || !open) {
        const closed = state.status === 'closed' ? { closed: true as const } : await provider.closePayment(cfg, paymentRef(a))
        if ('alreadyPaid' in closed) await applyFacts(deps, a.provider, a.providerConfigId, [closed.alreadyPaid])
        else await closeIfOpen(deps, a.id)
      }
    } catch (e) {
      deps.log.warn({ err: e, attemptId: a.id }, 'attempt reconciliation failed; will retry')
    }
  }
  return due.length
}

export interface DrainOptions {
  /** Items one pass claims. */
  batch: number
  /** Passes running side by side (each claims its own rows: SKIP LOCKED, then leased by next check). */
  workers: number
  /** At most this many items per run, so a run always ends and the next timer tick comes round. */
  maxPerRun: number
}

export const DRAIN: DrainOptions = { batch: 20, workers: 4, maxPerRun: 400 }

/**
 * Runs `pass` (claims up to `limit` due items, handles them, returns how many it claimed) again and
 * again while work is due: after a crash hundreds of unsettled refunds are settled in one run, not
 * twenty per tick. Stops at the first pass that finds less than it asked for, or at the run's bound.
 */
export async function drainDue(pass: (limit: number) => Promise<number>, o: DrainOptions = DRAIN): Promise<number> {
  let budget = o.maxPerRun
  let total = 0
  const worker = async () => {
    while (budget > 0) {
      const limit = Math.min(o.batch, budget)
      budget -= limit
      const n = await pass(limit)
      total += n
      if (n < limit) return
    }
  }
  await Promise.all(Array.from({ length: o.workers }, worker))
  return total
}

export async function reconcileRefunds(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock()
  const due = await deps.db.transaction(async (tx) => {
    const rows = await refundRepo.claimDueRefunds(tx, now, limit)
    for (const r of rows) await refundRepo.updateRefund(tx, r.id, { nextCheckAt: nextRefundCheck(now, r.checks + 1), checks: r.checks + 1 })
    return rows
  })
  for (const r of due) {
    try {
      const record = (await records.getRecordUnscoped(deps.db, r.recordId))!
      const provider = deps.providers.get(record.provider)
      if (!provider) continue
      const cfg = await configFor(deps, deps.db, record.provider, record.providerConfigId)
      const payment: PaymentRef = { attemptId: record.attemptId ?? '', providerRef: record.providerRef, data: record.providerData }
      let state: RefundState | null
      try {
        state = await provider.queryRefund(cfg, { refundId: r.id, providerRefundRef: r.providerRef, amount: r.amount, createdAt: r.createdAt, payment })
      } catch (e) {
        // The provider never saw it (a crash before the call, a call it never received): ask again
        // with the same refund id. Never a refund the provider has answered: that one exists there,
        // whatever a lookup says.
        const answered = r.providerPending || r.providerRef !== null
        if (!(e instanceof ProviderError && e.code === 'not_found') || r.initiatedBy !== 'merchant' || answered) throw e
        state = await sendRefund(deps, record, r)
      }
      await deps.db.transaction((tx) => settleRefund(tx, deps, r.id, state))
    } catch (e) {
      deps.log.warn({ err: e, refundId: r.id }, 'refund reconciliation failed; will retry')
    }
  }
  return due.length
}
