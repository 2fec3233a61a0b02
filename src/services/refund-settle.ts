/** Settling refunds: the provider's answer, a notification or a reconciliation query lands here. */
import type { DiscrepancyKind } from '../domain/discrepancies.js'
import { refundEventData, refundEventType } from '../domain/events.js'
import { newId } from '../domain/ids.js'
import { nextRefundCheck } from '../domain/reconcile-backoff.js'
import { inRecordCurrency, recordStatus, refundable } from '../domain/refund-math.js'
import { nextStatus, type SessionStatus } from '../domain/session-machine.js'
import type { RefundFact, RefundState } from '../providers/types.js'
import type { Tx } from '../store/db.js'
import { appendEvent, hasRefundEvent } from '../store/repos/events.js'
import * as records from '../store/repos/records.js'
import * as refundRepo from '../store/repos/refunds.js'
import type { RecordRow } from '../store/repos/records.js'
import type { RefundRow } from '../store/repos/refunds.js'
import * as sessions from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { recordDiscrepancy } from './discrepancies.js'
import { queueRefundNotice } from './emails.js'
import type { KeyAnswer } from './idempotency.js'

/** A keyed request's answer (services/idempotency.ts `answering`) for the settled record and refund, stored with the settlement's event. */
type KeyAnswerOf = (record: RecordRow, refund: RefundRow) => KeyAnswer | null

/** Recomputes a record from its refunds; a full refund makes the session `refunded`. */
async function recompute(tx: Tx, deps: Deps, record: RecordRow): Promise<RecordRow> {
  const sums = await refundRepo.refundSums(tx, record.id)
  const refunded = sums.succeeded
  const updated = await records.setRecordRefunds(tx, record, refunded, recordStatus(record.amount, refunded, sums.pendingCount > 0))
  if (refunded >= record.amount) {
    const s = (await sessions.getSessionUnscoped(tx, record.sessionId, true))!
    if (nextStatus(s.status as SessionStatus, 'refund_full')) await sessions.setSessionStatus(tx, s.id, 'refunded', deps.clock())
  }
  return updated
}

/**
 * Stores a provider's answer for a refund; `null` when the call has no known outcome (a timeout, a
 * 5xx). The record must already be locked by the caller. Idempotent: a settled refund stays as it
 * is; refund.pending is emitted once per refund.
 *
 * Only a real answer marks the refund `providerPending`: reconciliation sends a refund again, with
 * the same id, when the provider shows none, and never one the provider has answered.
 */
export async function settleLocked(tx: Tx, deps: Deps, record: RecordRow, refund: RefundRow, state: RefundState | null, answer?: KeyAnswerOf) {
  const now = deps.clock()
  if (refund.status !== 'pending') return { record, refund }
  if (state === null) {
    if (!refund.providerPending) await announcePending(tx, deps, record, refund, now, answer)
    return { record, refund }
  }
  if (state.status === 'pending') {
    const updated = await refundRepo.setProviderPending(tx, refund, state.providerRefundRef ?? refund.providerRef, now)
    const rec = await recompute(tx, deps, record)
    if (!refund.providerPending) await announcePending(tx, deps, rec, updated, now, answer)
    return { record: rec, refund: updated }
  }
  const updated = await refundRepo.setRefundOutcome(tx, refund, {
    status: state.status,
    providerRef: state.providerRefundRef ?? refund.providerRef,
    failureReason: state.failureReason ?? null,
    updatedAt: now,
  })
  const rec = await recompute(tx, deps, record)
  const session = await emit(tx, deps, rec, updated, now, answer)
  if (updated.status === 'succeeded') await queueRefundNotice(tx, deps, session, updated)
  return { record: rec, refund: updated }
}

/** The event is the settlement's last statement: it stores the answer too (the record and refund settleLocked returns). */
async function emit(tx: Tx, deps: Deps, record: RecordRow, refund: RefundRow, now: Date, answer?: KeyAnswerOf) {
  const session = (await sessions.getSessionUnscoped(tx, record.sessionId))!
  await appendEvent(tx, record, refundEventType(refund.status), refundEventData(refund, record, session), now, { answer: answer?.(record, refund) })
  return session
}

/** refund.pending, unless an unanswered call already sent it (providerPending stays false then). */
async function announcePending(tx: Tx, deps: Deps, record: RecordRow, refund: RefundRow, now: Date, answer?: KeyAnswerOf) {
  if (!(await hasRefundEvent(tx, record, record.sessionId, 'refund.pending', refund.id))) await emit(tx, deps, record, refund, now, answer)
}

/**
 * Locks record then refund (always in that order, so concurrent settlements cannot deadlock). A
 * caller that knows the refund's record (it has just reserved the refund) passes it and saves a read.
 */
export async function settleRefund(tx: Tx, deps: Deps, refundId: string, state: RefundState | null, recordId?: string, answer?: KeyAnswerOf) {
  const peek = recordId ? { recordId } : await refundRepo.getRefundUnscoped(tx, refundId)
  if (!peek) return null
  const record = (await records.getRecordUnscoped(tx, peek.recordId, true))!
  const refund = (await refundRepo.getRefundUnscoped(tx, refundId, true))!
  // An answer in another currency settled nothing Till asked for: the refund stays pending, reconciliation asks again.
  if (state && !inRecordCurrency(state, record.currency)) {
    await recordDiscrepancy(tx, deps, {
      provider: record.provider, providerConfigId: record.providerConfigId, merchantId: record.merchantId, kind: 'refund_currency',
      report: state, expected: { refundId: refund.id, currency: record.currency },
    })
    return { record, refund }
  }
  return settleLocked(tx, deps, record, refund, state, answer)
}

const factState = (fact: RefundFact): RefundState => ({ status: fact.status, providerRefundRef: fact.providerRefundRef, failureReason: fact.failureReason })

/**
 * A refund reported by a provider: ours (settle it) or one started outside Till (record it). A report
 * that does not match what Till asked for (an id Till never issued, another currency or amount, more
 * than is refundable, no amount or payment to match) changes nothing and is recorded as a discrepancy.
 */
export async function applyRefundFact(tx: Tx, deps: Deps, provider: string, configId: string | null, fact: RefundFact) {
  const discrepancy = (kind: DiscrepancyKind, expected: object, merchantId?: string) =>
    recordDiscrepancy(tx, deps, { provider, providerConfigId: configId, merchantId, kind, report: fact, expected })
  if (fact.refundId) {
    const ours = await refundRepo.getRefundUnscoped(tx, fact.refundId)
    const record = ours ? await records.getRecordUnscoped(tx, ours.recordId, true) : null
    if (!ours || !record || record.provider !== provider || (record.providerConfigId ?? null) !== configId) {
      return discrepancy('unknown_refund', { refund: 'none with this id under this configuration' }, record?.merchantId)
    }
    const refund = (await refundRepo.getRefundUnscoped(tx, ours.id, true))!
    if (!inRecordCurrency(fact, record.currency)) return discrepancy('refund_currency', { refundId: refund.id, currency: record.currency }, record.merchantId)
    // Settled by our own id, the amount is ours; a provider naming another one refunded something else.
    if (fact.amount !== undefined && fact.amount !== refund.amount) return discrepancy('refund_amount', { refundId: refund.id, amount: refund.amount }, record.merchantId)
    await settleLocked(tx, deps, record, refund, factState(fact))
    return
  }
  if (!fact.attemptId || !fact.providerRefundRef || fact.amount === undefined) {
    return discrepancy('unmatched_refund', { fields: 'attemptId, providerRefundRef and amount' })
  }
  const attempt = await sessions.getAttemptUnscoped(tx, fact.attemptId)
  if (!attempt || attempt.provider !== provider || (attempt.providerConfigId ?? null) !== configId) {
    return discrepancy('unmatched_refund', { payment: 'an attempt of this configuration' })
  }
  const record = await records.getRecordBySession(tx, attempt, attempt.sessionId)
  if (!record) return discrepancy('unmatched_refund', { payment: 'a paid session' }, attempt.merchantId)
  const locked = (await records.getRecordUnscoped(tx, record.id, true))!
  if (!inRecordCurrency(fact, locked.currency)) return discrepancy('refund_currency', { recordId: locked.id, currency: locked.currency }, locked.merchantId)
  // Ours by the provider's id; or ours whose answer (with that id) has not been stored yet: a provider
  // that does not know our refund id (Creem) can notify before its answer to our call is saved.
  const known = (await refundRepo.findRefundByProviderRef(tx, locked.id, fact.providerRefundRef))
    ?? (fact.matchUnanswered ? await refundRepo.findUnanswered(tx, locked.id, fact.amount, fact.status) : null)
  if (known) {
    if (fact.amount !== known.amount) return discrepancy('refund_amount', { refundId: known.id, amount: known.amount }, locked.merchantId)
    let refund = (await refundRepo.getRefundUnscoped(tx, known.id, true))!
    // Settled by an answer without the provider's id: this report is that refund; keep its id.
    if (refund.status !== 'pending' && refund.providerRef === null) refund = await refundRepo.updateRefund(tx, refund.id, { providerRef: fact.providerRefundRef })
    await settleLocked(tx, deps, locked, refund, factState(fact))
    return
  }
  // Started outside Till (the provider's dashboard): never more than what is left of the payment.
  const pending = await refundRepo.pendingRefundSum(tx, locked.id)
  const available = refundable(locked.amount, locked.refundedAmount, pending.sum)
  if (fact.amount <= 0 || fact.amount > available) {
    return discrepancy('refund_amount', { recordId: locked.id, refundable: available, currency: locked.currency }, locked.merchantId)
  }
  const now = deps.clock()
  const refund = await refundRepo.insertRefund(tx, {
    id: newId('ref'),
    recordId: locked.id,
    merchantId: locked.merchantId,
    mode: locked.mode,
    amount: fact.amount,
    status: 'pending',
    providerRef: fact.providerRefundRef,
    reason: fact.reason ?? null,
    initiatedBy: 'provider',
    // Left pending, reconciliation asks after it as after ours: its final notification may be lost.
    nextCheckAt: nextRefundCheck(now, 0),
    createdAt: now,
    updatedAt: now,
  })
  await settleLocked(tx, deps, locked, refund, factState(fact))
}
