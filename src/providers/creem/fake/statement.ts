/**
 * What the fake's transaction search shows when it serves as a day's statement
 * (docs/providers.md#statements-from-the-transaction-search): the statement knobs (fake-kit/statement-knobs.ts) applied per
 * UTC day of each transaction's created_at. A transaction is a payment line and, once refunded, a
 * refund line (its refunded_amount and status), so a knob on either changes the one transaction.
 */
import { applyStatementKnobs, type KnobbableLine, type StatementKnobBook } from '../../fake-kit/statement-knobs.js'
import type { FakeStore, Transaction } from './store.js'
import { transactionView } from './views.js'

type View = ReturnType<typeof transactionView>
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const REFUNDED = ['refunded', 'partialRefund']

/** The transaction as the day's knobs say Creem lists it, or null when its payment line is dropped. */
function knobbed(store: FakeStore, book: StatementKnobBook, t: Transaction): View | null {
  const view = transactionView(t)
  const knobs = book.peek(utcDay(t.createdAtMs))
  if (!knobs) return view
  const ids = [store.checkouts.get(t.checkoutId)?.requestId ?? '', t.id, t.orderId].filter(Boolean)
  const lines: KnobbableLine[] = [
    { kind: 'payment', ids, amount: t.amount, currency: t.currency },
    { kind: 'refund', ids, amount: t.refundedAmount, currency: t.currency, refundStatus: t.status },
  ]
  // Unknown payments are whole transactions of their own (below), not lines of this one.
  const shown = applyStatementKnobs(lines, { ...knobs, unknown: [] }, () => lines[0])
  const payment = shown.find((l) => l.kind === 'payment')
  if (!payment) return null
  const refund = shown.find((l) => l.kind === 'refund')
  const amountPaid = payment.amount + t.taxAmount
  const base = { ...view, amount: payment.amount, amount_paid: amountPaid, currency: payment.currency }
  // The refund line dropped: nothing refunded shows.
  if (!refund) return { ...base, status: REFUNDED.includes(t.status) ? 'paid' : t.status, refunded_amount: 0 }
  const status = refund.refundStatus as Transaction['status']
  if (status === 'paid') return { ...base, status, refunded_amount: 0 }
  // Flipped to refunded while nothing was: the whole payment shows as given back.
  return { ...base, status, refunded_amount: REFUNDED.includes(status) && refund.amount === 0 ? amountPaid : refund.amount }
}

/**
 * The account's transactions the search lists: knobs applied, a held day's left out (they come
 * late), and the unknown payments in `unknownIn` (a currency, `any` or `none`).
 */
export function searchableTransactions(store: FakeStore, apiKey: string, match: (t: Transaction) => boolean, unknownIn: string): View[] {
  const book = store.statementKnobs
  const out: View[] = []
  for (const t of store.transactions.values()) {
    if (t.apiKey !== apiKey || !match(t) || book.peek(utcDay(t.createdAtMs))?.held) continue
    const v = knobbed(store, book, t)
    if (v) out.push(v)
  }
  for (const [day, knobs] of book.entries()) {
    if (knobs.held) continue
    for (const u of knobs.unknown) {
      if (unknownIn !== 'any' && (u.currency ?? 'EUR') !== unknownIn) continue
      out.push({
        ...transactionView({ id: u.providerRef, apiKey, orderId: u.ref, checkoutId: '', customerId: 'cust_unknown', amount: u.amount, taxAmount: 0, amountPaid: u.amount, currency: u.currency ?? 'EUR', taxCountry: 'NL', status: 'paid', refundedAmount: 0, createdAtMs: Date.parse(`${day}T12:00:00Z`) }),
      })
    }
  }
  return out
}

/** A page whose last item was lost while its count stayed (the `corrupt` knob), when one is due for a day it holds. */
export function damagedPage(store: FakeStore, items: View[]): View[] {
  const days = new Set(items.map((v) => utcDay(v.created_at)))
  for (const day of days) if (store.statementKnobs.takeCorrupt(day)) return items.slice(0, -1)
  return items
}
