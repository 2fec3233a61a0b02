/**
 * Payment facts: what providers report about payments (and refunds, in refund-settle.ts), applied
 * in one transaction. Every state change commits with its event; the same fact applied twice changes
 * nothing the second time.
 */
import { newId } from '../domain/ids.js'
import type { Fact, PaymentFact } from '../providers/types.js'
import type { Tx } from '../store/db.js'
import { hasPaymentReport } from '../store/repos/discrepancies.js'
import { getRecordBySession, insertRecord } from '../store/repos/records.js'
import * as sessions from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { recordDiscrepancy } from './discrepancies.js'
import { applyDisputeFact } from './disputes.js'
import { queueReceipt } from './emails.js'
import { applyRefundFact } from './refund-settle.js'
import { transition } from './sessions.js'

async function applyPaymentFact(tx: Tx, deps: Deps, provider: string, configId: string | null, fact: PaymentFact) {
  const peek = await sessions.getAttemptUnscoped(tx, fact.attemptId)
  // A notification can only touch attempts made with the configuration its URL names.
  if (!peek || peek.provider !== provider || (peek.providerConfigId ?? null) !== configId) {
    deps.log.warn({ attemptId: fact.attemptId, provider, configId }, 'notification for an unknown attempt ignored')
    return
  }
  // Lock order everywhere: session, then its attempts (startAttempt and the expiry sweep agree).
  const session = (await sessions.getSessionUnscoped(tx, peek.sessionId, true))!
  const attempt = (await sessions.getAttemptUnscoped(tx, peek.id, true))!
  const now = deps.clock()
  if (fact.status === 'succeeded') {
    if (attempt.status === 'succeeded') return // duplicate
    // Paid is recorded only for the amount and currency the session asked for, both reported.
    if (fact.amount !== session.amount || fact.currency !== session.currency) {
      // Reconciliation asks again and again (hourly, once backed off) while the attempt is open: the same report is recorded once.
      if (await hasPaymentReport(tx, attempt.id, fact.amount, fact.currency)) return
      await recordDiscrepancy(tx, deps, {
        provider, providerConfigId: configId, merchantId: session.merchantId, kind: 'payment_amount',
        report: fact, expected: { attemptId: attempt.id, amount: session.amount, currency: session.currency },
      })
      return
    }
    // What the provider told us with the payment (Creem's transaction id) rides along to the record, for refunds.
    const providerData = fact.data ? { ...attempt.providerData, ...fact.data } : attempt.providerData
    await sessions.updateAttempt(tx, attempt.id, { status: 'succeeded', providerRef: fact.providerRef ?? attempt.providerRef, providerData, nextCheckAt: null }, now)
    const paid = await getRecordBySession(tx, session, session.id)
    if (paid) {
      // Paid twice through two channels: keep the money visible to the operator.
      await recordDiscrepancy(tx, deps, {
        provider, providerConfigId: configId, merchantId: session.merchantId, kind: 'paid_twice',
        report: fact, expected: { sessionId: session.id, paidBy: { recordId: paid.id, attemptId: paid.attemptId } },
      })
      return
    }
    await insertRecord(tx, {
      id: newId('rec'),
      sessionId: session.id,
      attemptId: attempt.id,
      merchantId: session.merchantId,
      mode: session.mode,
      provider: attempt.provider,
      providerConfigId: attempt.providerConfigId,
      providerRef: fact.providerRef ?? attempt.providerRef ?? attempt.id,
      providerData,
      amount: session.amount,
      currency: session.currency,
      status: 'paid',
      paidAt: fact.paidAt ?? now,
      createdAt: now,
    })
    const paidNow = await transition(tx, deps, session, 'confirm_paid', 'payment.succeeded', { chosenProvider: attempt.provider, providerConfigId: attempt.providerConfigId })
    if (paidNow) await queueReceipt(tx, deps, paidNow)
  } else if (fact.status === 'failed') {
    if (attempt.status !== 'processing') return
    await sessions.updateAttempt(tx, attempt.id, { status: 'failed', nextCheckAt: null }, now)
    // A failure of an order the customer has moved away from does not fail the session.
    const stillOpen = (await sessions.openAttempts(tx, session.id)).length > 0
    if (!stillOpen) await transition(tx, deps, session, 'confirm_failed', 'payment.failed')
  }
}

/** Applies a provider's normalized facts in one transaction. */
export async function applyFacts(deps: Deps, provider: string, configId: string | null, facts: Fact[]) {
  await deps.signals.transaction(deps.db, async (tx) => {
    for (const fact of facts) {
      if (fact.kind === 'payment') await applyPaymentFact(tx, deps, provider, configId, fact)
      else if (fact.kind === 'refund') await applyRefundFact(tx, deps, provider, configId, fact)
      else if (fact.kind === 'dispute') await applyDisputeFact(tx, deps, provider, configId, fact)
    }
  })
}
