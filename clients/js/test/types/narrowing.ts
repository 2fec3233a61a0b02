// Type-checked with tsc --strict by test/types.test.ts: what the types let a merchant write, and
// (each @ts-expect-error) what they must keep refusing. An @ts-expect-error that stops being an
// error fails that test too.
import { Till, TillError, constructEvent, type ErrorCode, type Session, type WebhookEvent } from '../../src/index.js'

const till = new Till({ apiKey: 'sk_test_x' })

// A paid or refunded session always has its record; others have none.
export function recordIdOf(s: Session): string | null {
  if (s.status === 'paid' || s.status === 'refunded') return s.record.id
  // @ts-expect-error: an unpaid session has no record to read
  s.record.id
  return null
}

export async function paidAmount(id: string): Promise<number> {
  const s = await till.getSession(id)
  // @ts-expect-error: before narrowing, record may be absent
  s.record.amount
  if (s.status !== 'paid') return 0
  return s.record.amount + s.record.refundedAmount
}

// Each event type has its own data.
export function handle(body: Buffer, header: string): string {
  const event: WebhookEvent = constructEvent(body, header, 'whsec_x')
  switch (event.type) {
    case 'payment.succeeded': {
      const recordId: string = event.data.recordId
      const paidAt: string = event.data.paidAt
      return recordId + paidAt
    }
    case 'session.expired':
      // @ts-expect-error: an expired session has no record
      return event.data.recordId
    case 'payment.failed': {
      const failed: 'failed' = event.data.status
      return failed
    }
    case 'refund.succeeded': {
      const status: 'succeeded' = event.data.status
      const total: number = event.data.refundedAmount
      return `${status} ${total}`
    }
    case 'refund.pending':
      // @ts-expect-error: a pending refund's status is 'pending', not 'failed'
      return event.data.status === 'failed' ? 'x' : 'y'
    default:
      return event.type
  }
}

// Error bodies are typed: code is one of the known codes.
export async function refundAll(recordId: string): Promise<number> {
  try {
    const r = await till.refund({ recordId })
    return r.refund.amount
  } catch (e) {
    if (!(e instanceof TillError)) throw e
    const code: ErrorCode | null = e.code
    if (code === 'already_refunded' || code === 'amount_exceeds_refundable') return 0
    // @ts-expect-error: not a code Till has
    if (e.code === 'amount_too_big') return -1
    if (typeof e.body === 'object' && e.body !== null) {
      const message: string = e.body.error
      const param: string | undefined = e.body.param
      return message.length + (param?.length ?? 0)
    }
    throw e
  }
}

// Lists: a page when awaited, every item when iterated; the filters are typed.
export async function lists(): Promise<number> {
  const page = await till.sessions.list({ status: 'paid', limit: 5, metadata: { order: 'A-1' } })
  let n = page.data.length + (page.hasMore ? 1 : 0)
  for await (const s of till.sessions.list({ created_gte: '2026-01-01T00:00:00Z' })) {
    if (s.status === 'refunded') n += s.record.refundedAmount
  }
  for await (const r of till.records.list({ session_id: 'sess_x' })) n += r.refunds.length
  for await (const f of till.refunds.list({ record_id: 'rec_x' })) n += f.amount
  // @ts-expect-error: no such session status
  till.sessions.list({ status: 'open' })
  // @ts-expect-error: refunds are not filtered by status
  till.refunds.list({ status: 'succeeded' })
  return n
}

// The README's checkout fields: providerHints is a typed field; a field the types do not know yet
// goes through a variable (an object literal is checked for unknown properties).
export async function checkoutFields(): Promise<string> {
  const hinted = await till.createCheckout({ amount: 9900, currency: 'CNY', providerHints: { wechat: 'shop-2' } })
  const params = { amount: 9900, currency: 'CNY' as const, someNewField: 'sent as given' }
  const extra = await till.createCheckout(params)
  // @ts-expect-error: an unknown property in an object literal
  till.createCheckout({ amount: 9900, currency: 'CNY', someNewField: 'sent as given' })
  // The pages' languages are the locale's only values.
  const inJapanese = await till.createCheckout({ amount: 1500, currency: 'JPY', locale: 'ja' })
  // @ts-expect-error: not a language Till's pages speak
  till.createCheckout({ amount: 1500, currency: 'JPY', locale: 'fr' })
  return hinted.id + extra.id + inJapanese.locale
}
