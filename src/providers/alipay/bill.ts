/**
 * Alipay's trade bill (交易账单, bill_type trade), read as statement lines and totals
 * (docs/providers.md#alipay-alipay), streamed: a file is decoded and parsed as it is read.
 *
 * The zip holds two GBK CSV files. The detail file (…_业务明细.csv): `#` lines (title, account,
 * period, the list's start marker), a header row, one row per payment (业务类型 交易) or refund
 * (退款), then `#` footer lines: the end marker, 交易合计 and 退款合计 (counts and 商家实收 sums) and
 * the export time. The summary file (…_业务明细(汇总).csv): `#` lines, a header row, a row per
 * store and a 合计 row. Alipay pads ids with a tab so spreadsheets keep their digits; a product name
 * may hold commas or quotes (RFC 4180 quoting). Refund rows carry negative amounts; 服务费 is
 * negative where Alipay took a fee and positive where a refund gave it back. Only CNY.
 */
import { pipeline, Readable } from 'node:stream'
import { parse } from 'csv-parse'
import iconv from 'iconv-lite'
import { fromDecimalText } from '../../domain/money.js'
import type { StatementFile, StatementItem, StatementLine, StatementTotal } from '../statements.js'
import { parseBeijingTime } from './wire.js'

/** The kept files' names (statements.ts keeps them under these). */
export const DETAIL_FILE = 'trade-detail'
export const SUMMARY_FILE = 'trade-summary'
export const BILL_TYPE = 'text/csv; charset=gbk'

export interface CsvRecord {
  /** 1-based line the record starts on. */
  line: number
  cells: string[]
  /** The record's text as written (a `#` line whole). */
  text: string
}

/**
 * RFC 4180 records of a GBK body, decoded and parsed as it streams (csv-parse): a quoted cell may
 * hold commas, quotes ("") and line breaks. Blank lines are skipped.
 */
export async function* csvRecords(body: AsyncIterable<Buffer>): AsyncGenerator<CsvRecord> {
  const csv = parse({ raw: true, info: true, relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n'] })
  // pipeline, not pipe: an error of the body (a kept file that fails its hash) reaches the reader.
  const out = pipeline(Readable.from(body), iconv.decodeStream('gbk'), csv, () => {})
  try {
    for await (const r of out as AsyncIterable<{ record: string[]; raw: string; info: { lines: number } }>) {
      const text = r.raw.replace(/^[\r\n]+|[\r\n]+$/g, '')
      yield { line: r.info.lines - (text.match(/\n/g)?.length ?? 0), cells: r.record, text }
    }
  } catch (e) {
    if (String((e as { code?: unknown }).code).startsWith('CSV_')) throw new Error(`not a CSV file: ${(e as Error).message}`)
    throw e
  } finally {
    out.destroy()
  }
}

const clean = (cells: string[]) => cells.map((c) => c.replace(/\r$/, '').trim())

/** A column by name, whichever parentheses the file used (订单金额（元） or 订单金额(元)). */
function col(fields: Record<string, string>, name: string): string | undefined {
  return fields[name] ?? fields[name.replace('（', '(').replace('）', ')')]
}

function need(fields: Record<string, string>, name: string, where: string): string {
  const v = col(fields, name)
  if (v === undefined || v === '') throw new Error(`${where}: no ${name}`)
  return v
}

function yuan(text: string, where: string): number {
  const n = fromDecimalText(text.replace(/^\+/, ''), 'CNY', { signed: true })
  if (n === null) throw new Error(`${where}: "${text}" is not an amount in yuan`)
  return n
}

interface Row {
  line: number
  fields: Record<string, string>
}

/** The header row and the rows under it, until a `#` line; `#` lines go to `comment`. */
async function* table(body: AsyncIterable<Buffer>, file: string, comment: (text: string) => void): AsyncGenerator<Row> {
  let header: string[] | null = null
  let done = false
  for await (const rec of csvRecords(body)) {
    if (rec.text.startsWith('#')) {
      if (header) done = true
      comment(rec.text)
      continue
    }
    const cells = clean(rec.cells)
    if (done) throw new Error(`${file} line ${rec.line}: a row after the list's end`)
    if (!header) {
      header = cells
      continue
    }
    // Some exports end every row with one comma more than the header has.
    if (cells.length === header.length + 1 && cells.at(-1) === '') cells.pop()
    if (cells.length !== header.length) throw new Error(`${file} line ${rec.line}: ${cells.length} fields, its header has ${header.length}`)
    yield { line: rec.line, fields: Object.fromEntries(header.map((h, i) => [h, cells[i]])) }
  }
  if (!header) throw new Error(`${file}: no header row`)
}

/** A detail row as a statement line: 交易 a payment, 退款 a refund of the payment the row names. */
export function billLine(row: Row, file: string): StatementLine {
  const f = row.fields
  const where = `${file} line ${row.line}`
  const type = need(f, '业务类型', where)
  if (type !== '交易' && type !== '退款') throw new Error(`${where}: unknown 业务类型 ${type}`)
  const at = parseBeijingTime(col(f, '完成时间') || need(f, '创建时间', where))
  if (!at) throw new Error(`${where}: 完成时间 is not a time`)
  const feeText = col(f, '服务费（元）')
  const base = {
    amount: Math.abs(yuan(need(f, '订单金额（元）', where), where)),
    currency: 'CNY',
    status: 'succeeded' as const,
    // Alipay writes the fee it took as money out (negative); Till's fee is what the provider kept.
    fee: feeText ? -yuan(feeText, where) || 0 : null,
    at,
    source: { file, line: row.line, fields: f },
  }
  const outTradeNo = col(f, '商户订单号') || null
  const tradeNo = col(f, '支付宝交易号') || null
  if (type === '交易') return { kind: 'payment', tillRef: outTradeNo, providerRef: tradeNo, ...base }
  return { kind: 'refund', tillRef: col(f, '退款批次号/请求号') || null, providerRef: null, paymentTillRef: outTradeNo, paymentProviderRef: tradeNo, ...base }
}

const END_MARKER = /^#-+业务明细列表结束-+$/
/** `#退款合计：4笔，商家实收退款共-0.04元，商家优惠退款共0.00元` */
const REFUND_SUM = /^#+退款合计[：:]\s*(\d+)\s*笔[，,]\s*商家实收退款共\s*([-+]?[\d.]+)\s*元(?:[，,]\s*商家优惠退款共\s*([-+]?[\d.]+)\s*元)?/

/**
 * The day's totals as the contract asks (statements.ts): counts, net amount and fees from the
 * summary's 合计 row (its 订单金额 nets refunds off payments), the refunds' amount from the detail
 * footer's 退款合计 (商家实收 plus 商家优惠: what was refunded), payments being the net plus that.
 */
export function billTotal(summary: Row, refunds: { amount: number } | null, file: string): StatementTotal {
  const f = summary.fields
  const where = `${file} line ${summary.line}`
  const count = (name: string) => {
    const v = need(f, name, where)
    if (!/^\d+$/.test(v)) throw new Error(`${where}: ${name} "${v}" is not a count`)
    return Number(v)
  }
  const refundCount = count('退款订单总笔数')
  if (!refunds && refundCount > 0) throw new Error(`${where}: ${refundCount} refunds, and the detail file has no 退款合计`)
  const refunded = refunds?.amount ?? 0
  return {
    kind: 'total',
    currency: 'CNY',
    payments: { count: count('交易订单总笔数'), amount: yuan(need(f, '订单金额（元）', where), where) + refunded },
    refunds: { count: refundCount, amount: refunded },
    fees: -yuan(need(f, '服务费（元）', where), where) || 0,
  }
}

/** The summary file's 合计 row, or its only row. */
async function summaryRow(file: StatementFile): Promise<Row> {
  const rows: Row[] = []
  for await (const row of table(file.body, file.name, () => {})) rows.push(row)
  const total = rows.find((r) => Object.values(r.fields)[0] === '合计')
  if (total) return total
  if (rows.length === 1) return rows[0]
  throw new Error(`${file.name}: no 合计 row`)
}

/** Lines of the detail file, then the day's total: what `statements.parse` yields. */
export async function* billItems(files: StatementFile[]): AsyncGenerator<StatementItem> {
  // The core hands the kept files in name order; each body is read once, the detail first.
  const detail = files.find((f) => f.name === DETAIL_FILE)
  const summary = files.find((f) => f.name === SUMMARY_FILE)
  if (!detail || !summary || files.length !== 2) throw new Error(`not an Alipay trade bill: ${files.map((f) => f.name).join(', ')}`)
  let ended = false
  let refunds: { amount: number } | null = null
  const footer = (text: string) => {
    if (END_MARKER.test(text)) ended = true
    const m = REFUND_SUM.exec(text)
    if (m) refunds = { amount: -(yuan(m[2], detail.name) + (m[3] ? yuan(m[3], detail.name) : 0)) || 0 }
  }
  for await (const row of table(detail.body, detail.name, footer)) yield billLine(row, detail.name)
  // Without its end marker the file was cut short: nothing of it is believed.
  if (!ended) throw new Error(`${detail.name}: no 业务明细列表结束 line; the file is not whole`)
  yield billTotal(await summaryRow(summary), refunds, summary.name)
}
