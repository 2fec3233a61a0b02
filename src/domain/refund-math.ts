import { AlreadyRefunded, AmountExceedsRefundable } from './errors.js'

export type RecordStatus = 'paid' | 'partially_refunded' | 'refunded' | 'refunding'
export type RefundStatus = 'pending' | 'succeeded' | 'failed'

/** refundable = amount − succeeded refunds − pending refunds (docs/architecture.md#the-state-machines). */
export function refundable(amount: number, refundedAmount: number, pendingSum: number): number {
  return Math.max(0, amount - refundedAmount - pendingSum)
}

/**
 * The amount to reserve: the whole remainder when omitted; never more than what remains. A record
 * whose succeeded refunds already reach its amount says so (AlreadyRefunded).
 */
export function refundAmount(requested: number | undefined, available: number, fullyRefunded = false): number {
  if (fullyRefunded) throw new AlreadyRefunded()
  const amount = requested ?? available
  if (amount <= 0 || amount > available) throw new AmountExceedsRefundable(available)
  return amount
}

/** A record's status follows from its totals: any unsettled refund keeps it `refunding`. */
export function recordStatus(amount: number, refundedAmount: number, hasPending: boolean): RecordStatus {
  if (hasPending) return 'refunding'
  if (refundedAmount >= amount) return 'refunded'
  if (refundedAmount > 0) return 'partially_refunded'
  return 'paid'
}

/**
 * Whether a provider's report of a refund can be read against a record in `currency`: an amount is
 * only meaningful with its currency, and a currency named must be the record's (a CNY refund is
 * not yen). A bare status, settling Till's own refund by its id, names neither.
 */
export function inRecordCurrency(report: { amount?: number; currency?: string }, currency: string): boolean {
  if (report.currency === undefined) return report.amount === undefined
  return report.currency === currency
}
