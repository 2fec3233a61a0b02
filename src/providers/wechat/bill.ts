/**
 * WeChat Pay's statement files, read as a stream of lines (docs/providers.md#statements). Pure: no
 * I/O of its own; it reads the bytes it is handed.
 *
 * The format (mainland trade and fund-flow bills, WeChat Pay Global's statement): a header line of
 * column names, detail lines, then for the mainland a summary header and one summary line. Every
 * field of a detail or summary line starts with a backtick and fields are joined by commas, without
 * quoting: a product name may hold a comma, so a line is split on ",`", never as RFC 4180 CSV.
 * Columns are found by name (WeChat says their order is not fixed). Amounts are yuan (or the listed
 * currency's major unit) as decimal text, converted to minor units without floating point.
 */
import { fromDecimalText, isCurrency, type DecimalTextRules } from '../../domain/money.js'
import { textLines } from '../statement-stream.js'
import type { StatementItem, StatementLine, StatementTotal } from '../statements.js'

export interface BillRow {
  part: 'detail' | 'summary'
  /** 1-based line number in the file. */
  line: number
  fields: Record<string, string>
}

/** "`a,`b,`" → ["a", "b", ""]. */
export function splitFields(text: string): string[] {
  if (!text.startsWith('`')) throw new Error('a data line must start with a backtick')
  return text.slice(1).split(',`')
}

/**
 * Header and data lines paired by column name. A line without a leading backtick is a header: the
 * first one names the detail columns, a later one the summary's.
 */
export async function* billRows(body: AsyncIterable<Buffer>, file: string): AsyncGenerator<BillRow> {
  let header: string[] | null = null
  let part: BillRow['part'] = 'detail'
  for await (const { text, line } of textLines(body)) {
    if (!text.startsWith('`')) {
      if (header) part = 'summary'
      header = text.split(',').map((h) => h.trim())
      continue
    }
    if (!header) throw new Error(`${file} line ${line}: data before any header`)
    const values = splitFields(text)
    if (values.length !== header.length) throw new Error(`${file} line ${line}: ${values.length} fields, its header has ${header.length}`)
    const fields: Record<string, string> = {}
    header.forEach((h, i) => (fields[h] = values[i].trim()))
    yield { part, line, fields }
  }
}


/** An amount of the bill: signed, with trailing zeros past the minor unit ("0.01000"), exactly. */
export function minorUnits(text: string, currency: string): number {
  return amountOf(text, currency, { signed: true, trailingZeros: true })
}

/** A fee (WeChat writes five decimals, "0.05940"): rounded half away from zero to the minor unit. */
export function roundedMinorUnits(text: string, currency: string): number {
  return amountOf(text, currency, { signed: true, round: true })
}

function amountOf(text: string, currency: string, rules: DecimalTextRules): number {
  if (!isCurrency(currency)) throw new Error(`unknown currency "${currency}"`)
  const n = fromDecimalText(text, currency, rules)
  if (n === null) throw new Error(`"${text}" is not an amount in ${currency}`)
  return n
}

/** "2026-05-20 12:00:00", Beijing time, as WeChat writes it. */
export function beijingTime(text: string): Date {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) throw new Error(`"${text}" is not a time`)
  return new Date(`${text.replace(' ', 'T')}+08:00`)
}

const first = (f: Record<string, string>, names: readonly string[]) => {
  for (const n of names) if (f[n] !== undefined && f[n] !== '') return f[n]
  return undefined
}

function need(f: Record<string, string>, names: readonly string[], where: string): string {
  const v = first(f, names)
  if (v === undefined) throw new Error(`${where}: no ${names.join(' / ')}`)
  return v
}

/**
 * A refund row's status as the bill saw it when it was made (it is never updated afterwards).
 * The file uses the v2 words (REFUNDCLOSE, CHANGE); the v3 ones are accepted too. CHANGE (abnormal)
 * is not final, as Till treats ABNORMAL.
 */
const REFUND_STATUS: Record<string, StatementLine['status']> = {
  SUCCESS: 'succeeded',
  PROCESSING: 'pending',
  CHANGE: 'pending',
  ABNORMAL: 'pending',
  REFUNDCLOSE: 'failed',
  CLOSED: 'failed',
}

/** Column names: the mainland trade bill (ALL), the older format's, and WeChat Pay Global's. */
const COL = {
  time: ['交易时间'],
  transactionId: ['微信订单号'],
  outTradeNo: ['商户订单号'],
  tradeState: ['交易状态'],
  currency: ['标价币种', '货币种类'],
  orderAmount: ['订单金额(标价币种)', '订单金额', '总金额', '应结订单金额'],
  refundId: ['微信退款单号'],
  outRefundNo: ['商户退款单号'],
  refundAmount: ['申请退款金额', '退款金额'],
  refundStatus: ['退款状态'],
  fee: ['手续费'],
  feeCurrency: ['结算币种'],
} as const

export interface TradeBillOptions {
  file: string
  /** What a refund row's PROCESSING means (WeChat Pay Global's statements FAQ: treat it as succeeded). */
  processingRefund?: StatementLine['status']
  /** The summary's currency when the file has no detail line to tell (the mainland's is CNY). */
  defaultCurrency?: string
}

/** One detail row of a trade bill as a statement line. */
export function tradeLine(row: BillRow, o: TradeBillOptions): StatementLine {
  const f = row.fields
  const where = `${o.file} line ${row.line}`
  const currency = need(f, COL.currency, where)
  const state = need(f, COL.tradeState, where)
  const feeText = first(f, COL.fee)
  const feeCurrency = first(f, COL.feeCurrency) ?? currency
  const fee = feeText === undefined || feeCurrency !== currency ? null : roundedMinorUnits(feeText, currency)
  const base = { currency, fee, at: beijingTime(need(f, COL.time, where)), source: { file: o.file, line: row.line, fields: f } }
  if (state === 'REFUND') {
    const statusText = need(f, COL.refundStatus, where)
    const status = statusText === 'PROCESSING' && o.processingRefund ? o.processingRefund : REFUND_STATUS[statusText]
    if (!status) throw new Error(`${where}: unknown 退款状态 ${statusText}`)
    return {
      kind: 'refund',
      tillRef: first(f, COL.outRefundNo) ?? null,
      providerRef: first(f, COL.refundId) ?? null,
      paymentTillRef: first(f, COL.outTradeNo) ?? null,
      paymentProviderRef: first(f, COL.transactionId) ?? null,
      amount: minorUnits(need(f, COL.refundAmount, where), currency),
      status,
      ...base,
    }
  }
  // REVOKED: a payment-code payment cancelled after it succeeded; the money went back.
  if (state !== 'SUCCESS' && state !== 'REVOKED') throw new Error(`${where}: unknown 交易状态 ${state}`)
  return {
    kind: 'payment',
    tillRef: first(f, COL.outTradeNo) ?? null,
    providerRef: first(f, COL.transactionId) ?? null,
    amount: minorUnits(need(f, COL.orderAmount, where), currency),
    status: state === 'SUCCESS' ? 'succeeded' : 'failed',
    ...base,
  }
}

/** Summary names: the mainland ALL bill's, and the older format's (总交易额, 总退款金额). */
const SUM = {
  payments: ['订单总金额', '总交易额', '应结订单总金额'],
  refunds: ['申请退款总金额', '退款总金额', '总退款金额'],
  fees: ['手续费总金额'],
} as const

/**
 * A trade bill's lines, then its summary as the total. The summary has no count per kind (总交易单数
 * counts every row), so the counts are the detail rows'; its amounts are WeChat's own sums.
 */
export async function* tradeBillItems(body: AsyncIterable<Buffer>, o: TradeBillOptions): AsyncGenerator<StatementItem> {
  const counts = { payment: 0, refund: 0 }
  let currency: string | undefined
  for await (const row of billRows(body, o.file)) {
    if (row.part === 'detail') {
      const line = tradeLine(row, o)
      counts[line.kind]++
      currency ??= line.currency
      yield line
      continue
    }
    const where = `${o.file} line ${row.line}`
    const cur = currency ?? o.defaultCurrency
    if (!cur || first(row.fields, SUM.payments) === undefined) continue
    const total: StatementTotal = {
      kind: 'total',
      currency: cur,
      payments: { count: counts.payment, amount: minorUnits(need(row.fields, SUM.payments, where), cur) },
      refunds: { count: counts.refund, amount: minorUnits(first(row.fields, SUM.refunds) ?? '0', cur) },
      fees: roundedMinorUnits(first(row.fields, SUM.fees) ?? '0', cur),
    }
    yield total
  }
}

const FUND_FLOW_COLUMNS = ['记账时间', '业务类型', '收支类型', '收支金额(元)'] as const

/**
 * The fund-flow bill (money in and out of the BASIC account) is kept beside the trade bill for
 * the operator; its rows repeat the trade bill's payments and refunds, so it yields no line. It is
 * still read through, so a file that is not one fails here rather than sitting unnoticed.
 */
export async function checkFundFlowBill(body: AsyncIterable<Buffer>, file: string): Promise<void> {
  for await (const row of billRows(body, file)) {
    if (row.part !== 'detail') continue
    for (const c of FUND_FLOW_COLUMNS) if (row.fields[c] === undefined) throw new Error(`${file} line ${row.line}: no ${c}`)
    minorUnits(row.fields['收支金额(元)'], 'CNY')
  }
}
