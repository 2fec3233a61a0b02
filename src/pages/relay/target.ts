/** Where the relay sends the customer (docs/integrate.md#coming-back-successurl-the-relay-and-paid_confirmed). Pure, so every case is a table row in its test. */
import type { SessionStatus } from '../../domain/session-machine.js'
import { cancelReturn, UNPAID_RESULTS, withParams } from '../way-back.js'

export interface RelayOutcome {
  sessionId: string
  status: SessionStatus
  recordId: string | null
  successUrl: string | null
  cancelUrl: string | null
}

/** Never taken from the merchant's own query: a record_id they wrote must not pass for ours. */
const OURS: ReadonlySet<string> = new Set(['session_id', 'record_id', 'paid_confirmed'])

/**
 * A session that finished unpaid, with cancelUrl: that URL with session_id. Otherwise, with
 * successUrl: that URL with session_id, record_id (only when paid) and paid_confirmed. The
 * merchant's own query parameters are kept byte for byte; ours replace any of the same name.
 * Without either: the receipt when paid, otherwise back to the checkout page.
 */
export function relayLocation(o: RelayOutcome): string {
  const paid = (o.status === 'paid' || o.status === 'refunded') && o.recordId !== null
  if (o.cancelUrl && UNPAID_RESULTS.includes(o.status)) return cancelReturn(o.sessionId, o.cancelUrl)
  if (!o.successUrl) return paid ? `/r/${o.recordId}` : `/c/${o.sessionId}`
  const added = new URLSearchParams({ session_id: o.sessionId })
  if (paid) added.set('record_id', o.recordId!)
  added.set('paid_confirmed', paid ? '1' : '0')
  return withParams(o.successUrl, added, OURS)
}
