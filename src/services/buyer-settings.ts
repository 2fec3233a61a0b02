/**
 * What a merchant decides about the buyer's side beyond the pages' look (console Settings): whether
 * receipts and refund notices are emailed (services/emails.ts), and the time zone times are shown in
 * when the buyer's own is unknown (emails, and pages before their script runs).
 */
import { eq } from 'drizzle-orm'
import { NotFound } from '../domain/errors.js'
import { checkTimeZone } from '../domain/time-zone.js'
import { merchants } from '../store/schema.js'
import type { Deps } from './deps.js'

export interface BuyerSettings {
  receiptEmails: boolean
  refundEmails: boolean
  timeZone: string
}

export async function updateBuyerSettings(deps: Deps, merchantId: string, input: BuyerSettings): Promise<BuyerSettings> {
  const timeZone = checkTimeZone(input.timeZone)
  const [m] = await deps.db.update(merchants).set({ receiptEmails: input.receiptEmails, refundEmails: input.refundEmails, timeZone })
    .where(eq(merchants.id, merchantId)).returning({ receiptEmails: merchants.receiptEmails, refundEmails: merchants.refundEmails, timeZone: merchants.timeZone })
  if (!m) throw new NotFound()
  return m
}
