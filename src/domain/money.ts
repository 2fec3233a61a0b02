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

const fractionDigits = (currency: Currency) => Math.round(Math.log10(CURRENCIES[currency].factor))

/** Minor units to a short display string, e.g. 9900 CNY → "¥99.00", 1500 JPY → "¥1,500" (provider product names). */
export function formatAmount(amount: number, currency: Currency, locale = 'en'): string {
  const { factor, symbol } = CURRENCIES[currency]
  const digits = fractionDigits(currency)
  const major = digits === 0 ? amount : amount / factor
  const number = major.toLocaleString(locale === 'zh-CN' ? 'zh-CN' : 'en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  })
  return `${symbol}${number}`
}

/** A language whose readers know its own currency by its symbol alone: yen in Japanese, Hong Kong dollars in Hong Kong Chinese. */
const HOME_CURRENCY: Readonly<Record<string, Currency>> = { ja: 'JPY', 'zh-HK': 'HKD' }

/**
 * What a customer reads: the locale's own way of writing the amount (Intl, its narrow symbol) and
 * the ISO code beside it, because "¥" alone is both yuan and yen (and "$" both US and Hong Kong
 * dollars): 9900 CNY → "¥99.00 CNY", 1500 JPY → "¥1,500 JPY". A no-break space keeps them together.
 * A currency in its home language is written as there, without the code: 1500 JPY in Japanese is
 * "¥1,500" (the half-width sign Japanese checkouts print, not Intl's full-width ￥), 8800 HKD in
 * Hong Kong Chinese "HK$88.00".
 */
export function displayAmount(amount: number, currency: Currency, locale = 'en'): string {
  const digits = fractionDigits(currency)
  const home = HOME_CURRENCY[locale] === currency
  const number = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    currencyDisplay: home ? 'symbol' : 'narrowSymbol',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amount / CURRENCIES[currency].factor).replace('\uffe5', '¥')
  return home ? number : `${number}\u00a0${currency}`
}

/** Minor units as the decimal text providers take (yuan: 8888 CNY → "88.88"; 1500 JPY → "1500"), exactly. */
export function toDecimalText(amount: number, currency: Currency): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`not an amount in minor units: ${amount}`)
  const digits = fractionDigits(currency)
  if (digits === 0) return String(amount)
  const s = String(amount).padStart(digits + 1, '0')
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`
}

/** What a provider's decimal text may carry beyond plain digits: off unless the caller's format has it. */
export interface DecimalTextRules {
  /** A leading minus: statements write refunds and fees negative ("-0.30"). */
  signed?: boolean
  /** Zeros past the currency's digits ("0.01000" CNY, as WeChat's bills write amounts). */
  trailingZeros?: boolean
  /** More digits than the currency has, rounded half away from zero (WeChat's five-decimal fees). */
  round?: boolean
}

/**
 * A provider's decimal text back to minor units, exactly (string arithmetic, never a float):
 * "88.88" CNY → 8888, "88.8" → 8880, "88" → 8800; null for anything else (a sign, more decimals than
 * the currency has, exponents, spaces) unless `rules` allow it; the caller treats null as malformed.
 */
export function fromDecimalText(text: string, currency: Currency, rules: DecimalTextRules = {}): number | null {
  const m = /^(-?)(\d{1,15})(?:\.(\d+))?$/.exec(text)
  if (!m || (m[1] && !rules.signed)) return null
  const digits = fractionDigits(currency)
  const fraction = m[3] ?? ''
  const beyond = fraction.slice(digits)
  if (beyond && !rules.round && !(rules.trailingZeros && /^0+$/.test(beyond))) return null
  const n = Number(m[2] + fraction.slice(0, digits).padEnd(digits, '0')) + (rules.round && Number(beyond[0] ?? 0) >= 5 ? 1 : 0)
  if (!Number.isSafeInteger(n)) return null
  return m[1] && n !== 0 ? -n : n
}
