/** Small formatting helpers shared by the console's screens. */
import { displayAmount, isCurrency } from '../domain/money.js'
import { formatTime } from '../web/i18n.js'
import type { Locale } from '../web/locale.js'

/** A moment in the console's language and the reader's time zone (UTC until the browser has told it). */
export const when = (d: Date | string | null | undefined, c: { locale: Locale; zone: string }) => (d ? formatTime(typeof d === 'string' ? new Date(d) : d, c.locale, c.zone) : null)

/** A share as a percentage in the locale's way: 0.6667 is 66.7 %. */
export const percent = (rate: number, locale: Locale) => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(rate)

/** With the ISO code, as on the hosted pages: "¥" alone is both yuan and yen. */
export const money = (amount: number, currency: string, locale: Locale) => (isCurrency(currency) ? displayAmount(amount, currency, locale) : `${amount} ${currency}`)
