/** Where the relay sends the customer (docs/integrate.md#coming-back-successurl-the-relay-and-paid_confirmed). Pure, so every case is a table row in its test. */
import type { SessionStatus } from '../../domain/session-machine.js'

export interface RelayOutcome {
  sessionId: string
  status: SessionStatus
  recordId: string | null
  successUrl: string | null
}

const OURS = new Set(['session_id', 'record_id', 'paid_confirmed'])

const decodeKey = (pair: string) => {
  const key = pair.split('=')[0].replace(/\+/g, ' ')
  try {
    return decodeURIComponent(key)
  } catch {
    return key
  }
}

/**
 * With successUrl: that URL with session_id, record_id (only when paid) and paid_confirmed. The
 * merchant's own query parameters are kept byte for byte; ours replace any of the same name.
 * Without: the receipt when paid, otherwise back to the checkout page.
 */
export function relayLocation(o: RelayOutcome): string {
  const paid = (o.status === 'paid' || o.status === 'refunded') && o.recordId !== null
  if (!o.successUrl) return paid ? `/r/${o.recordId}` : `/c/${o.sessionId}`
  const url = new URL(o.successUrl)
  const kept = url.search.slice(1).split('&').filter((pair) => pair !== '' && !OURS.has(decodeKey(pair)))
  const added = new URLSearchParams({ session_id: o.sessionId })
  if (paid) added.set('record_id', o.recordId!)
  added.set('paid_confirmed', paid ? '1' : '0')
  const query = [...kept, added.toString()].join('&')
  return `${url.origin}${url.pathname}?${query}${url.hash}`
}
