/**
 * Medusa keeps amounts in major units (19.99 USD, 1500 JPY) as exact decimals; Till takes integers
 * in the currency's minor unit (1999, 1500). The table is Till's own (docs/integrate.md, Amounts):
 * only the currencies Till takes, with JPY having no minor unit.
 */
import type { Currency } from '../../js/src/index.js'

const EXPONENT: Record<Currency, number> = { CNY: 2, USD: 2, EUR: 2, HKD: 2, JPY: 0 }

export const TILL_CURRENCIES = Object.keys(EXPONENT) as Currency[]

/** Medusa's currency code (lower case) as Till writes it, or an error naming what Till takes. */
export function tillCurrency(code: string): Currency {
  const upper = String(code).toUpperCase()
  if (!(upper in EXPONENT)) {
    throw new RangeError(`Till takes ${TILL_CURRENCIES.join(', ')}; this payment is in ${upper || 'no currency'}`)
  }
  return upper as Currency
}

/**
 * A non-negative decimal string ("19.99", "1500", "10.005") in minor units. Digits beyond the
 * minor unit (a tax share of a cent) round half up, as Medusa's own Stripe provider rounds them.
 */
export function toMinorUnits(decimal: string, currency: Currency): number {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(decimal)
  if (!match) throw new RangeError(`not an amount: ${decimal}`)
  const exponent = EXPONENT[currency]
  const fraction = (match[2] ?? '').padEnd(exponent + 1, '0')
  const truncated = BigInt(match[1] + fraction.slice(0, exponent))
  const minor = fraction[exponent] >= '5' ? truncated + 1n : truncated
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount too large: ${decimal} ${currency}`)
  return Number(minor)
}

/** Minor units back to an exact decimal string in major units: 1999 USD → "19.99", 1500 JPY → "1500". */
export function fromMinorUnits(minor: number, currency: Currency): string {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`not an amount in minor units: ${minor}`)
  const exponent = EXPONENT[currency]
  if (exponent === 0) return String(minor)
  const digits = String(minor).padStart(exponent + 1, '0')
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
}
