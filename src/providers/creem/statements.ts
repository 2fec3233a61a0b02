/**
 * The Creem adapter's daily statement (docs/providers.md#statements-from-the-transaction-search). Creem publishes no statement
 * file and its transaction search has no date filter, so the day's statement is what
 * `GET /v1/transactions/search` lists for each product of the configuration, paged, kept to the
 * transactions created that day (UTC): one JSON file per page that held any, each item exactly as
 * Creem sent it, handed over as its page arrives. Creem gives no hash; what guards against a partial
 * answer is its own count: every page must agree on total_records, and the items seen must add up
 * to it, or the fetch throws StatementNotReady and the core keeps none of its pages.
 *
 * A transaction is a payment; its refunded_amount (settled refunds, tax included) is one refund line
 * on the payment's day, naming the payment by its order id: Creem's transactions carry neither the
 * refund's id nor our request_id. So the source states its refunds per payment, and, a live view
 * rather than a published file, is read again when a day is run again.
 */
import { gathered, keptJson, UTC_DAY_MS, utcDayFetch } from '../statement-stream.js'
import { StatementNotReady, type StatementFetch, type StatementFile, type StatementItem, type StatementLine, type StatementSource } from '../statements.js'
import type { ProductStore, ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { PATHS } from './constants.js'
import type { CreemClient } from './http.js'
import { idOf, tillRefundAmount, type Transaction } from './wire.js'

/** The largest page Creem's search gives. */
const PAGE_SIZE = 100
/** Pages that disagree (a payment arriving while we page) are asked for again soon. */
const RETRY_S = 60

interface SearchPage {
  items?: Array<Transaction & Record<string, unknown>>
  pagination?: { total_records?: number; total_pages?: number; current_page?: number; next_page?: number | null }
}

/** What a kept file holds: the day, the product and page it came from, and the day's items of that page. */
interface KeptPage {
  day: string
  product_id: string | null
  page_number: number | null
  items: Array<Transaction & Record<string, unknown>>
}

const STATUS: Record<string, StatementLine['status']> = {
  paid: 'succeeded',
  refunded: 'succeeded',
  partialRefund: 'succeeded',
  chargedBack: 'succeeded',
  pending: 'pending',
  declined: 'failed',
  canceled: 'failed',
  void: 'failed',
  uncollectible: 'failed',
}

export function creemStatements(client: CreemClient, products: ProductStore, now: () => Date, pageSize = PAGE_SIZE): StatementSource {
  async function productsOf(cfg: ProviderConfig): Promise<string[]> {
    return [...new Set(await products.list(cfg.id))]
  }

  /**
   * One product's transactions of the day, a file per page as it arrives; pages that disagree throw
   * StatementNotReady at the end, and the core keeps nothing of the fetch.
   */
  async function* productPages(cfg: ProviderConfig, productId: string, day: string, from: number): AsyncGenerator<StatementFile> {
    let total: number | undefined
    let seen = 0
    for (let page = 1; ; page++) {
      const res = await client.call<SearchPage>(cfg, 'GET', `${PATHS.transactionSearch}?product_id=${encodeURIComponent(productId)}&page_number=${page}&page_size=${pageSize}`)
      const items = res.items
      const count = res.pagination?.total_records
      if (!Array.isArray(items) || typeof count !== 'number') throw new ProviderError('unknown', 'malformed_response', 'Creem answered the transaction search without items and total_records')
      if (total !== undefined && count !== total) throw new StatementNotReady(`product ${productId}: Creem's count changed while paging (${total}, then ${count})`, RETRY_S)
      total = count
      seen += items.length
      const kept = items.filter((t) => typeof t.created_at === 'number' && t.created_at >= from && t.created_at < from + UTC_DAY_MS)
      if (kept.length) yield keptJson(`transactions-${productId}-${page}`, { day, product_id: productId, page_number: page, items: kept })
      if (!res.pagination?.next_page || items.length === 0) break
    }
    if (seen !== total) throw new StatementNotReady(`product ${productId}: Creem's pages held ${seen} transactions, its count says ${total}`, RETRY_S)
  }

  async function* dayFiles(cfg: ProviderConfig, day: string, from: number): AsyncGenerator<StatementFile> {
    let any = false
    for (const productId of await productsOf(cfg)) {
      for await (const f of productPages(cfg, productId, day, from)) {
        any = true
        yield f
      }
    }
    // A day without business is ready all the same, with a file that holds nothing.
    if (!any) yield keptJson('transactions', { day, product_id: null, page_number: null, items: [] })
  }

  return {
    zone: 'UTC',
    // The search shows transactions as they stand now (a refund made since changes its transaction).
    liveView: true,
    refundLines: 'per_payment',

    fetch: async (cfg, day): Promise<StatementFetch> => utcDayFetch('Creem', day, now(), (from) => dayFiles(cfg, day, from)),

    parse: (files) => parseFiles(files),
  }
}

async function* parseFiles(files: StatementFile[]): AsyncGenerator<StatementItem> {
  for (const f of files) {
    // A page holds at most a hundred transactions: read whole.
    const kept = JSON.parse((await gathered(f.body)).toString('utf8')) as KeptPage
    if (!kept || !Array.isArray(kept.items)) throw new Error(`${f.name}: not a page of Creem transactions`)
    let item = 0
    let line = 0
    for (const t of kept.items) {
      const lines = transactionLines(t, f.name, ++item, line + 1)
      line += lines.length
      yield* lines
    }
  }
}

/** Every field as text, for the console's view of the line's source. */
const fieldsOf = (t: Record<string, unknown>) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))

/**
 * The `item`-th transaction of `file` as its payment line (numbered `line`) and, once something
 * was refunded, a refund line (`line` + 1). The amount is Till's: before tax (Creem, as merchant of record, may add it) and after any discount, as Till
 * reads an order (wire.ts orderAmount); the refund's is scaled to it the same way (tillRefundAmount).
 */
export function transactionLines(t: Transaction & Record<string, unknown>, file: string, item: number, line: number): StatementLine[] {
  const where = `${file} item ${item}`
  const status = STATUS[t.status ?? '']
  if (!status) throw new Error(`${where}: unknown transaction status ${t.status}`)
  if (typeof t.amount !== 'number' || typeof t.currency !== 'string' || typeof t.created_at !== 'number') throw new Error(`${where}: no amount, currency or created_at`)
  const discount = typeof t.discount_amount === 'number' ? t.discount_amount : 0
  const orderId = idOf(t.order) ?? null
  const base = { currency: t.currency, fee: null, at: new Date(t.created_at), source: { file, line, fields: fieldsOf(t) } }
  const payment: StatementLine = { kind: 'payment', tillRef: null, providerRef: orderId, amount: t.amount - discount, status, ...base }
  const refunded = t.refunded_amount ?? 0
  if (refunded <= 0) return [payment]
  const amount = tillRefundAmount({ refund_amount: refunded, transaction: { amount: t.amount, amount_paid: t.amount_paid, refunded_amount: refunded } })!
  // Its own line number: a line's file and number are its key where lines are kept.
  return [payment, { kind: 'refund', tillRef: null, providerRef: null, paymentTillRef: null, paymentProviderRef: orderId, amount, status: 'succeeded', ...base, source: { ...base.source, line: line + 1 } }]
}
