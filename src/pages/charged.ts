/**
 * "What you paid" beside the listed amount, when the provider charged another currency (WeChat
 * Pay Global charges CNY): "¥91.08 CNY · 1 HKD = 0.92 CNY". The listed amount stays the one of record.
 */
import { displayAmount, isCurrency } from '../domain/money.js'
import { chargedView } from '../services/present.js'
import type { RecordRow } from '../store/repos/records.js'

export function chargedText(record: Pick<RecordRow, 'providerData' | 'currency'> | null, locale: string): string | null {
  const c = record ? chargedView(record) : undefined
  if (!c || !record) return null
  const paid = isCurrency(c.currency) ? displayAmount(c.amount, c.currency, locale) : `${c.amount} ${c.currency}`
  return c.rate ? `${paid} · 1 ${record.currency} = ${c.rate} ${c.currency}` : paid
}
