/** Small formatting helpers shared by the console's screens. */
import { formatAmount, isCurrency } from '../domain/money.js'
import { formatTime, type Locale } from '../pages/i18n/index.js'

export const when = (d: Date | string | null | undefined, locale: Locale) => (d ? formatTime(typeof d === 'string' ? new Date(d) : d, locale) : null)

export const money = (amount: number, currency: string, locale: Locale) => (isCurrency(currency) ? formatAmount(amount, currency, locale) : `${amount} ${currency}`)
