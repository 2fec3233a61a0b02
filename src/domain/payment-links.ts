/** Payment links' rules (docs/integrate.md#payment-links): their amounts, and whether a link can make a session now. */
import { InvalidField } from './errors.js'
import { fromDecimalText, MAX_AMOUNT, MIN_AMOUNT, type Currency } from './money.js'

export interface LinkAmounts {
  amount: number | null
  minAmount: number | null
  maxAmount: number | null
}

/**
 * A link asks for a fixed `amount`, or lets the buyer enter one between `minAmount` and `maxAmount`
 * (both required then): never both kinds, and the range not empty.
 */
export function checkLinkAmounts(a: LinkAmounts): LinkAmounts {
  // The API's schema checks these already; the console's form is read here.
  for (const [field, v] of Object.entries(a)) {
    if (v !== null && !(Number.isInteger(v) && v >= MIN_AMOUNT && v <= MAX_AMOUNT)) throw new InvalidField(field, `must be a whole number of minor units from ${MIN_AMOUNT} to ${MAX_AMOUNT}`)
  }
  const ranged = a.minAmount !== null || a.maxAmount !== null
  if (a.amount !== null && ranged) throw new InvalidField('amount', 'give either amount, or minAmount and maxAmount, not both')
  if (a.amount !== null) return a
  if (a.minAmount === null) throw new InvalidField(ranged ? 'minAmount' : 'amount', ranged ? 'is required with maxAmount' : 'give amount, or minAmount and maxAmount')
  if (a.maxAmount === null) throw new InvalidField('maxAmount', 'is required with minAmount')
  if (a.maxAmount < a.minAmount) throw new InvalidField('maxAmount', 'must be at least minAmount')
  return a
}

/** Why a link makes no session now; null when it does. `busy`: every payment left is being paid in an open session. */
export type LinkUnavailable = 'inactive' | 'expired' | 'used_up' | 'busy'

export interface LinkState {
  active: boolean
  expiresAt: Date | null
  maxPayments: number | null
  paidCount: number
}

/**
 * `openSessions`: the link's sessions still open (pending or processing, not past their expiry); each
 * holds one of the payments left, so two buyers never both pay the last one.
 */
export function linkUnavailable(link: LinkState, openSessions: number, now: Date): LinkUnavailable | null {
  if (!link.active) return 'inactive'
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'expired'
  if (link.maxPayments === null) return null
  if (link.paidCount >= link.maxPayments) return 'used_up'
  if (link.paidCount + openSessions >= link.maxPayments) return 'busy'
  return null
}

/**
 * The amount of a buyer's session: the link's fixed amount, or the decimal text the buyer typed
 * ("88.80"), within the link's range. Null when the text is not an amount in range.
 */
export function buyerAmount(link: LinkAmounts, currency: Currency, typed: string | undefined): number | null {
  if (link.amount !== null) return link.amount
  const n = fromDecimalText((typed ?? '').trim().replace(/,/g, ''), currency)
  if (n === null || link.minAmount === null || link.maxAmount === null) return null
  return n >= link.minAmount && n <= link.maxAmount ? n : null
}

export const MAX_PAYMENTS_LIMIT = 1_000_000

/** maxPayments: null for no limit, else a whole number from 1 to 1,000,000. */
export function checkMaxPayments(n: number | null): number | null {
  if (n !== null && !(Number.isInteger(n) && n >= 1 && n <= MAX_PAYMENTS_LIMIT)) throw new InvalidField('maxPayments', `must be a whole number from 1 to ${MAX_PAYMENTS_LIMIT}`)
  return n
}
