/**
 * Disputes (chargebacks) a provider reports on a paid record: recorded, and told to the merchant as
 * payment.disputed / payment.dispute_closed in the same transaction (domain/disputes.ts decides which).
 * Serialised on the record's row lock, so a repeated or concurrent report changes nothing more.
 * Till never answers a dispute: the merchant does, at the provider.
 */
import { disputeEvents, disputeMoves, disputeOutcome } from '../domain/disputes.js'
import { disputeEventData } from '../domain/events.js'
import { newId } from '../domain/ids.js'
import type { DisputeFact } from '../providers/types.js'
import type { Tx } from '../store/db.js'
import * as repo from '../store/repos/disputes.js'
import { appendEvent } from '../store/repos/events.js'
import { getRecordBySession, getRecordUnscoped } from '../store/repos/records.js'
import type { Scope } from '../store/repos/scope.js'
import * as sessions from '../store/repos/sessions.js'
import type { Deps } from './deps.js'

export async function applyDisputeFact(tx: Tx, deps: Deps, provider: string, configId: string | null, fact: DisputeFact) {
  const attempt = await sessions.getAttemptUnscoped(tx, fact.attemptId)
  // A notification can only touch payments made with the configuration its URL names.
  const paid = attempt && attempt.provider === provider && (attempt.providerConfigId ?? null) === configId ? await getRecordBySession(tx, attempt, attempt.sessionId) : null
  if (!paid || paid.attemptId !== attempt!.id) {
    deps.log.warn({ attemptId: fact.attemptId, provider, configId, dispute: fact.providerDisputeRef }, 'dispute on a payment Till has no record of: ignored')
    return
  }
  const record = (await getRecordUnscoped(tx, paid.id, true))!
  if (fact.currency !== record.currency || fact.amount <= 0 || fact.amount > record.amount) {
    deps.log.warn({ recordId: record.id, dispute: fact.providerDisputeRef, amount: fact.amount, currency: fact.currency }, 'dispute amount or currency does not fit the payment: ignored')
    return
  }
  const now = deps.clock()
  const closedAt = disputeOutcome(fact.status) ? now : null
  const before = await repo.getRecordDisputeUnscoped(tx, record.id, fact.providerDisputeRef)
  let row: repo.DisputeRow
  if (!before) {
    row = await repo.insertDispute(tx, {
      id: newId('dsp'), recordId: record.id, sessionId: record.sessionId, merchantId: record.merchantId, mode: record.mode,
      provider, providerConfigId: configId, providerRef: fact.providerDisputeRef, amount: fact.amount, currency: record.currency,
      reason: fact.reason ?? null, status: fact.status, dueBy: fact.dueBy ?? null, closedAt, createdAt: now, updatedAt: now,
    })
  } else if (disputeMoves(before.status, fact.status)) {
    row = await repo.updateDispute(tx, before.id, { status: fact.status, reason: fact.reason ?? before.reason, amount: fact.amount, dueBy: fact.dueBy ?? before.dueBy, closedAt, updatedAt: now })
  } else {
    return // the same state again, or a stale read of a closed dispute
  }
  const types = disputeEvents(before?.status ?? null, row.status)
  if (!types.length) return
  const session = (await sessions.getSessionUnscoped(tx, record.sessionId))!
  const data = disputeEventData({ ...row, outcome: disputeOutcome(row.status) }, record, session)
  for (const type of types) await appendEvent(tx, record, type, data, now)
}

/** What the console shows of a dispute. */
export function disputeView(d: repo.DisputeRow) {
  return {
    id: d.id, providerDisputeRef: d.providerRef, amount: d.amount, currency: d.currency, reason: d.reason, status: d.status,
    outcome: disputeOutcome(d.status), dueBy: d.dueBy, closedAt: d.closedAt, createdAt: d.createdAt,
  }
}

/** A record's disputes, oldest first, within the merchant's scope. */
export const recordDisputes = async (deps: Deps, scope: Scope, recordId: string) => (await repo.listRecordDisputes(deps.db, scope, recordId)).map(disputeView)
