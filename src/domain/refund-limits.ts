/**
 * The merchant's per-refund limit (docs/console.md#the-refund-limit): one amount per currency, in
 * minor units. A `support` member refunds up to it and not in a currency without one; anyone else
 * allowed to refund steps up (the second factor again) above it.
 */
import type { Role } from './console-roles.js'
import { InvalidField } from './errors.js'
import { isCurrency } from './money.js'

export type RefundLimits = Record<string, number>

/** What a member of `role` (who may refund at all) may do with a refund of `amount` minor units of `currency`. */
export function refundUnderLimit(role: Role, limits: RefundLimits, currency: string, amount: number): 'allowed' | 'step-up' | 'refused' {
  const limit = Object.hasOwn(limits, currency) ? limits[currency] : undefined
  if (role === 'support') return limit !== undefined && amount <= limit ? 'allowed' : 'refused'
  return limit !== undefined && amount > limit ? 'step-up' : 'allowed'
}

/** Below 10^12 minor units: more than any single payment Till takes. */
const MAX_LIMIT = 999_999_999_999

/** The limits as typed in Settings, a JSON object such as {"JPY": 50000, "CNY": 100000}; an empty text is no limit at all. */
export function parseRefundLimits(text: string): RefundLimits {
  if (!text.trim()) return {}
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new InvalidField('refundLimits', 'must be a JSON object such as {"JPY": 50000, "CNY": 100000}')
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidField('refundLimits', 'must be a JSON object such as {"JPY": 50000, "CNY": 100000}')
  const out: RefundLimits = {}
  for (const [currency, amount] of Object.entries(v)) {
    if (!isCurrency(currency)) throw new InvalidField('refundLimits', `${JSON.stringify(currency.slice(0, 10))} is not a currency Till takes`)
    if (!Number.isSafeInteger(amount) || (amount as number) < 0 || (amount as number) > MAX_LIMIT) {
      throw new InvalidField('refundLimits', `the limit of ${currency} must be a whole number of minor units, 0 to ${MAX_LIMIT}`)
    }
    out[currency] = amount as number
  }
  return out
}
