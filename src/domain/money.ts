/** The one currency table: minor-unit factor per currency. Pages format amounts only through it. */
export const CURRENCIES = {
  CNY: { factor: 100, symbol: '¥' },
  USD: { factor: 100, symbol: '$' },
  EUR: { factor: 100, symbol: '€' },
  HKD: { factor: 100, symbol: 'HK$' },
  JPY: { factor: 1, symbol: '¥' },
} as const

export type Currency = keyof typeof CURRENCIES
export const CURRENCY_CODES = Object.keys(CURRENCIES) as Currency[]

export const MIN_AMOUNT = 1
export const MAX_AMOUNT = 99_999_999

export const isCurrency = (v: unknown): v is Currency => typeof v === 'string' && Object.hasOwn(CURRENCIES, v)

/** Minor units to a display string, e.g. 9900 CNY → "¥99.00", 1500 JPY → "¥1,500". */
export function formatAmount(amount: number, currency: Currency, locale = 'en'): string {
  const { factor, symbol } = CURRENCIES[currency]
  const digits = factor === 1 ? 0 : Math.log10(factor)
  const major = digits === 0 ? amount : amount / factor
  const number = major.toLocaleString(locale === 'zh-CN' ? 'zh-CN' : 'en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  })
  return `${symbol}${number}`
}
