/**
 * Disputes (chargebacks): what a provider's dispute status means for the merchant, and which events
 * a change of it sends (docs/integrate.md#disputes). Pure. Till records and announces a dispute;
 * it never answers one: the merchant does, at the provider.
 */
import type { EventType } from './events.js'

/**
 * Stripe's Dispute statuses are the vocabulary Till keeps: open ones (needs_response, under_review,
 * warning_needs_response, warning_under_review, or one Stripe adds later) and these closed ones.
 */
export const CLOSED_STATUSES = ['won', 'lost', 'warning_closed', 'prevented'] as const
export type DisputeOutcome = (typeof CLOSED_STATUSES)[number]

export const disputeOutcome = (status: string): DisputeOutcome | null =>
  (CLOSED_STATUSES as readonly string[]).includes(status) ? (status as DisputeOutcome) : null

/**
 * The events a dispute's move from `before` (null: Till had not seen it) to `after` sends: opened
 * once, closed once. A closed dispute is final (a later, stale read changes nothing); a move between
 * open statuses (needs_response → under_review) is recorded without an event; one first seen closed
 * (its opening event was lost) sends both, so the merchant's own record of it is whole.
 */
export function disputeEvents(before: string | null, after: string): EventType[] {
  if (before !== null && (before === after || disputeOutcome(before))) return []
  const out: EventType[] = before === null ? ['payment.disputed'] : []
  if (disputeOutcome(after)) out.push('payment.dispute_closed')
  return out
}

/** Whether a read-back status may replace the stored one (a closed dispute never reopens). */
export const disputeMoves = (before: string, after: string) => before !== after && !disputeOutcome(before)
