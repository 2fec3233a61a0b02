/**
 * The Stripe adapter's daily statement (docs/providers.md#statements-from-balance-transactions): the
 * day's balance transactions (UTC), `GET /v1/balance_transactions` by `created` range, paged with
 * starting_after, each with its source (the charge or refund) expanded, kept one JSON file per page
 * as Stripe sent it. A charge is a payment line, a refund a refund line, named by the ids Till put in
 * the metadata (the attempt, the refund) and by Stripe's (the PaymentIntent, the refund). Other
 * movements (payouts, Stripe's own fees, dispute adjustments) are not payments or refunds of Till's
 * and make no line. Amounts are the source's, in the currency the buyer paid: a balance
 * transaction's own amount is in the account's settlement currency, which may differ. Stripe's fee
 * is kept on the line (never a mismatch) when it is in that same currency.
 */
import { gathered, keptJson, UTC_DAY_MS, utcDayFetch } from '../statement-stream.js'
import type { StatementFetch, StatementFile, StatementItem, StatementLine, StatementSource } from '../statements.js'
import { ProviderError } from '../types.js'
import { META, PATHS } from './constants.js'
import type { StripeClient } from './http.js'
import { idOf, objectOf, refundState, type Charge, type List, type Refund } from './wire.js'

const PAGE_SIZE = 100

export interface BalanceTransaction {
  id?: string
  amount?: number
  currency?: string
  fee?: number
  net?: number
  type?: string
  created?: number
  status?: string
  source?: string | (Charge & Refund & { object?: string }) | null
}

interface KeptPage {
  day: string
  page: number
  data: BalanceTransaction[]
}

const PAYMENT_TYPES = new Set(['charge', 'payment'])
const REFUND_TYPES = new Set(['refund', 'payment_refund'])

export function stripeStatements(client: StripeClient, now: () => Date, pageSize = PAGE_SIZE): StatementSource {
  async function* dayFiles(cfg: Parameters<StatementSource['fetch']>[0], day: string, from: number): AsyncGenerator<StatementFile> {
    const range = `created[gte]=${from / 1000}&created[lt]=${(from + UTC_DAY_MS) / 1000}`
    let after: string | undefined
    for (let page = 1; ; page++) {
      const res = await client.call<List<BalanceTransaction>>(cfg, 'GET', `${PATHS.balanceTransactions}?${range}&limit=${pageSize}&expand[]=data.source${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`)
      if (!Array.isArray(res.data)) throw new ProviderError('unknown', 'malformed_response', 'Stripe answered the balance transactions without data')
      // A day without business is ready all the same, with a file that holds nothing.
      if (res.data.length || page === 1) yield keptJson(`balance-${page}`, { day, page, data: res.data })
      after = res.data.at(-1)?.id
      if (!res.has_more || !after) return
    }
  }

  return {
    zone: 'UTC',
    fetch: async (cfg, day): Promise<StatementFetch> => utcDayFetch('Stripe', day, now(), (from) => dayFiles(cfg, day, from)),
    parse: (files) => parseFiles(files),
  }
}

async function* parseFiles(files: StatementFile[]): AsyncGenerator<StatementItem> {
  for (const f of files) {
    const kept = JSON.parse((await gathered(f.body)).toString('utf8')) as KeptPage
    if (!kept || !Array.isArray(kept.data)) throw new Error(`${f.name}: not a page of Stripe balance transactions`)
    let n = 0
    for (const bt of kept.data) {
      const line = balanceLine(bt, f.name, ++n)
      if (line) yield line
    }
  }
}

const fieldsOf = (t: Record<string, unknown>) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))

/** One balance transaction as its statement line, or null when it is neither a payment nor a refund. */
export function balanceLine(bt: BalanceTransaction, file: string, line: number): StatementLine | null {
  const payment = PAYMENT_TYPES.has(bt.type ?? '')
  if (!payment && !REFUND_TYPES.has(bt.type ?? '')) return null
  const src = objectOf(bt.source ?? undefined)
  if (!src || typeof src.amount !== 'number' || typeof src.currency !== 'string' || typeof bt.created !== 'number') {
    throw new Error(`${file} item ${line}: ${bt.id ?? '?'} without its source's amount and currency (expand[]=data.source)`)
  }
  const currency = src.currency.toUpperCase()
  const fee = typeof bt.fee === 'number' && bt.currency?.toUpperCase() === currency ? bt.fee : null
  const base = { amount: src.amount, currency, fee, at: new Date(bt.created * 1000), source: { file, line, fields: fieldsOf(bt as Record<string, unknown>) } }
  const pi = idOf(src.payment_intent) ?? null
  if (payment) return { kind: 'payment', tillRef: src.metadata?.[META.attempt] || null, providerRef: pi ?? src.id ?? null, status: 'succeeded', ...base }
  return {
    kind: 'refund', tillRef: src.metadata?.[META.refund] || null, providerRef: src.id ?? null,
    paymentTillRef: src.metadata?.[META.attempt] || null, paymentProviderRef: pi, status: refundState(src).status, ...base,
  }
}
