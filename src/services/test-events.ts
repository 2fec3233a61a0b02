/**
 * "Send test event" (console Webhooks): a real event of the chosen type with sample data, sent to
 * one endpoint only, signed and retried like any other, so the merchant sees it arrive (or not) and
 * its attempts. Its data names made-up ids and, for a session's or refund's, the metadata `{"till_test_event": "true"}`.
 */
import { BadRequest, NotFound } from '../domain/errors.js'
import { disputeEventData, reconciliationEventData, refundEventData, sessionEventData, type EventType } from '../domain/events.js'
import { newId } from '../domain/ids.js'
import { PROVIDERS, TEST_PROVIDER } from '../providers/index.js'
import { schedule } from '../store/repos/deliveries.js'
import { appendEvent } from '../store/repos/events.js'
import type { Scope } from '../store/repos/scope.js'
import { getEndpoint } from '../store/repos/webhook-endpoints.js'
import type { Deps } from './deps.js'

export const TEST_METADATA = { till_test_event: 'true' }

function sampleData(type: EventType, now: Date): Record<string, unknown> {
  const session = { id: newId('sess'), status: 'paid', amount: 1000, currency: 'CNY', metadata: TEST_METADATA }
  const record = { id: newId('rec'), provider: TEST_PROVIDER.id, providerRef: 'test_event', paidAt: now, amount: 1000, refundedAmount: 0, status: 'paid' }
  switch (type) {
    case 'payment.succeeded': return sessionEventData(session, record)
    case 'payment.failed': return sessionEventData({ ...session, status: 'pending' })
    case 'session.canceled': return sessionEventData({ ...session, status: 'canceled' })
    case 'session.expired': return sessionEventData({ ...session, status: 'expired' })
    // A merchant-wide event: it names a made-up report instead of a session, so no metadata marks it.
    case 'reconciliation.mismatches_found': return reconciliationEventData({
      id: newId('stm'), provider: PROVIDERS[0].id, providerConfigId: newId('pc'), day: now.toISOString().slice(0, 10),
      counts: { matched: 41, missing_in_till: 1 }, openMismatches: 1, newMismatches: 1, totalsDiffer: [],
    })
    case 'payment.disputed':
    case 'payment.dispute_closed': {
      const closed = type === 'payment.dispute_closed'
      return disputeEventData({
        id: newId('dsp'), providerRef: 'dp_test_event', amount: 1000, currency: 'CNY', reason: 'fraudulent', status: closed ? 'won' : 'needs_response',
        outcome: closed ? 'won' : null, dueBy: new Date(now.getTime() + 7 * 86_400_000), closedAt: closed ? now : null,
      }, record, session)
    }
    default: {
      const status = type === 'refund.succeeded' ? 'succeeded' : type === 'refund.failed' ? 'failed' : 'pending'
      const refunded = status === 'succeeded' ? 1000 : 0
      return refundEventData({ id: newId('ref'), amount: 1000, status, reason: 'test event' }, { ...record, refundedAmount: refunded, status: refunded ? 'refunded' : 'paid' }, session)
    }
  }
}

export async function sendTestEvent(deps: Deps, scope: Scope, endpointId: string, type: EventType) {
  return deps.db.transaction(async (tx) => {
    const endpoint = await getEndpoint(tx, scope, endpointId)
    if (!endpoint) throw new NotFound()
    if (!endpoint.enabled) throw new BadRequest('webhook endpoint is disabled')
    const now = deps.clock()
    const e = await appendEvent(tx, scope, type, sampleData(type, now), now, { fanOut: false })
    await schedule(tx, e.id, [endpoint.id], now)
    return { eventId: e.id }
  })
}
