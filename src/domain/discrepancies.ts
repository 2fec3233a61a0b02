/**
 * The kinds of provider report that do not match what Till asked for (services/discrepancies.ts records them):
 * unknown_refund: named with Till's refund id, but Till never issued it (or under another configuration).
 * refund_amount: an amount that differs from our refund's, or exceeds what is refundable.
 * refund_currency: a refund reported in another currency than the record's, or an amount without one.
 * unmatched_refund: started outside Till, naming no payment of this configuration, or no amount.
 * payment_amount: a payment confirmed without an amount or currency, or with ones that differ from the session's.
 * paid_twice: a second payment for a session already paid through another attempt.
 */
export const DISCREPANCY_KINDS = ['unknown_refund', 'refund_amount', 'refund_currency', 'unmatched_refund', 'payment_amount', 'paid_twice'] as const
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number]
