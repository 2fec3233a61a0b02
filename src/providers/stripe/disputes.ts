/**
 * Stripe's charge.dispute.created|closed: the Dispute is read back from Stripe (never the event's
 * copy believed), and its PaymentIntent's metadata names Till's attempt. Only a dispute on a payment
 * Till took becomes a fact (services/disputes.ts records it and tells the merchant); Till never
 * answers it: the merchant does, in the Stripe Dashboard.
 */
import { accept, ignore, refuse } from '../json-acks.js'
import type { DisputeFact, NotificationResult, ProviderConfig } from '../types.js'
import { META, PATHS } from './constants.js'
import type { StripeClient } from './http.js'
import { idOf, objectOf, type Dispute } from './wire.js'

/** The fact a Dispute read back from Stripe (its payment_intent expanded) makes, or why it makes none. */
export function disputeFact(d: Dispute): DisputeFact | string {
  const attemptId = objectOf(d.payment_intent)?.metadata?.[META.attempt]
  if (!attemptId) return `dispute ${d.id ?? '?'} on ${idOf(d.charge) ?? '?'}: a payment Till did not take`
  if (!d.id || !d.status || !Number.isInteger(d.amount) || !d.currency) return `dispute ${d.id ?? '?'} read back without its id, status, amount or currency`
  const due = d.evidence_details?.due_by
  return {
    kind: 'dispute',
    attemptId,
    providerDisputeRef: d.id,
    status: d.status,
    ...(d.reason ? { reason: d.reason } : {}),
    amount: d.amount!,
    currency: d.currency.toUpperCase(),
    ...(typeof due === 'number' ? { dueBy: new Date(due * 1000) } : {}),
  }
}

export async function disputeEvent(client: StripeClient, cfg: ProviderConfig, type: string, obj: Dispute): Promise<NotificationResult> {
  if (!obj.id) return refuse(400, `${type} without a dispute id`)
  let d: Dispute
  try {
    d = await client.call<Dispute>(cfg, 'GET', `${PATHS.disputes}/${encodeURIComponent(obj.id)}?expand[]=payment_intent`)
  } catch (e) {
    // Unreadable, Stripe sends it again. A 404 too: a signed event names a dispute of the endpoint's own
    // account, so a key that cannot read it is another account's or mode's (replaced), and must be put right.
    return refuse(503, `dispute ${obj.id} could not be read back: ${(e as Error).message}`)
  }
  const fact = disputeFact(d)
  return typeof fact === 'string' ? ignore(fact) : accept([fact])
}
