/**
 * A provider's own statement of one day, the other side of reconciliation (docs/reconciliation.md).
 * An adapter that can fetch one implements `statements` (types.ts); the core keeps the files it
 * fetched, parses them (streamed: a day may have 100,000 lines) and matches each line to Till's
 * records and refunds.
 */
import type { ProviderConfig } from './types.js'

/**
 * One file of a statement, as a stream both ways: `fetch` hands over the bytes as they arrive from
 * the provider (decompressed on the way), and the core writes them to the store in chunks as they
 * come; `parse` gets each kept file back as a stream read from the store. Neither side ever holds a
 * whole file, so a day of 100,000 lines costs no more memory than a day of ten.
 *
 * The contract for an adapter's `fetch`:
 * - answer `{ ready: false }` for what it learns before any download (not published yet);
 * - otherwise `{ ready: true, files }`, `files` iterated by the core one at a time, each file's
 *   `body` read to its end before the next file is asked for (so a file may be requested lazily,
 *   when the iteration reaches it: a short-lived download URL is then fresh);
 * - check the provider's hash while the bytes pass (`hashChecked` in statement-stream.ts) and throw
 *   `StatementNotReady` from the body (or from `files`) when the download turns out not whole:
 *   everything the core wrote of that fetch is undone (one transaction) and the day waits again.
 *
 * An adapter written against whole buffers converts by handing `body: oneChunk(buffer)`; a parser
 * that needs a whole file (a zip, whose directory is at its end) may gather it (`gathered`) at the
 * cost of holding that file.
 */
export interface StatementFile {
  /** What the file is, unique within the day's statement: `tradebill`, `fundflowbill`, `transactions-2`… */
  name: string
  /** The bytes as the provider sent them, decompressed where it compressed them; read once. */
  body: AsyncIterable<Buffer>
  /** Its media type, for the console's download (`text/csv; charset=utf-8`, `application/zip`…). */
  type: string
}

export type StatementFetch =
  /** Published. A day without business is ready with files that hold no lines. */
  | { ready: true; files: AsyncIterable<StatementFile> | Iterable<StatementFile> }
  /** Not published yet, or a download failed its hash: nothing is kept, the job asks again later. */
  | { ready: false; reason: string; retryAfterS?: number }

/**
 * Thrown while the core reads a fetch (from a file's body or from `files`): the download is not
 * whole (its hash failed at the end, a page count changed) or the next file is not made yet. The
 * fetch is undone; the day waits, as for `{ ready: false }`.
 */
export class StatementNotReady extends Error {
  constructor(readonly reason: string, readonly retryAfterS?: number) {
    super(reason)
  }
}

/**
 * Thrown while a fetch is read (or by `fetch`): the statement is refused as it is, larger than Till
 * reads or an archive past its limits (docs/operate.md#what-till-reads-from-a-provider). Nothing is
 * kept; the day fails with this short reason and is tried again later, after a growing wait.
 */
export class StatementRefused extends Error {}

/** One payment or refund as the provider's statement shows it. */
export interface StatementLine {
  kind: 'payment' | 'refund'
  /** Till's id the provider echoes: the attempt id for a payment (out_trade_no, request_id), the refund id for a refund (out_refund_no, out_request_no). */
  tillRef: string | null
  /** The provider's own id of the payment or refund (transaction_id, trade_no, refund_id). */
  providerRef: string | null
  /** A refund's payment: Till's attempt id, when the line names it. */
  paymentTillRef?: string | null
  /**
   * A refund's payment: the provider's id of it (WeChat's transaction_id, Creem's order id). Creem's
   * refund lines name nothing else: its transactions carry no refund id and no request_id.
   */
  paymentProviderRef?: string | null
  /** Minor units of `currency`, converted exactly from the file's decimal text. */
  amount: number
  currency: string
  /** A payment line is a payment the provider took; a refund line says where the refund stood. */
  status: 'succeeded' | 'pending' | 'failed'
  /** The provider's fee, in minor units of `currency`, where the line shows one: shown, never a mismatch. */
  fee: number | null
  /** When the provider says it happened. */
  at: Date
  /** Where the line came from: the file, its 1-based line number and its fields by column name. */
  source: { file: string; line: number; fields: Record<string, string> }
}

/** The statement's own summary for one currency, compared with the sum of its lines and Till's. */
export interface StatementTotal {
  kind: 'total'
  currency: string
  payments: { count: number; amount: number }
  refunds: { count: number; amount: number }
  fees: number
}

export type StatementItem = StatementLine | StatementTotal

export interface StatementSource {
  /** The provider's day: an IANA zone (mainland China's providers: Asia/Shanghai; Creem: UTC). */
  zone: string
  /**
   * The statement is a live view of the provider's records (Creem's transaction search), not a file
   * published once (WeChat's, Alipay's bills): it changes after it is read (a refund made later), so a
   * forced run of a day (re-check, `till reconcile`, the admin API, a neighbouring day's cascade)
   * fetches it again instead of parsing the kept files.
   */
  liveView?: boolean
  /**
   * `per_payment`: a refund line names no refund, only its payment (`paymentProviderRef`), and states
   * all that payment's settled refunds as one amount, listed on the payment's day (Creem). Such a line
   * pairs with all the Till record's refunds, and Till's refunds of a record belong to the record's
   * paid day. `per_refund` (the default): a line per refund, on the refund's day, named by its ids.
   */
  refundLines?: 'per_refund' | 'per_payment'
  /** The statement of `day` (YYYY-MM-DD in `zone`). Throws ProviderError when the provider refuses (bad credentials). */
  fetch(cfg: ProviderConfig, day: string): Promise<StatementFetch>
  /** Lines and totals of the kept files (bodies read from the store as streams); throws when a file is not in the expected format. */
  parse(files: StatementFile[]): AsyncIterable<StatementItem>
}
