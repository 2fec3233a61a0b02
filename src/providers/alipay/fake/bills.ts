/**
 * The fake's trade bill (bill_type trade), built from its own trades and refunds of a Beijing day
 * (docs/providers.md#alipay-alipay): a zip of two GBK CSV files, the detail (业务明细) and the
 * summary (业务明细(汇总)), with Alipay's `#` header and footer lines. Written from integrators'
 * descriptions of the format, not from the adapter's bill.ts. The statement knobs
 * (fake-kit/statement-knobs.ts) apply when the files are written; summary and footer follow the
 * lines as written, as Alipay's own do.
 */
import iconv from 'iconv-lite'
import { zipGbk } from '../zip.js'
import { applyStatementKnobs, type KnobbableLine, type UnknownPayment } from '../../fake-kit/statement-knobs.js'
import type { FakeApp, FakeStore } from './store.js'
import { beijingText, yuan } from './wire.js'

const DAY_MS = 24 * 3600_000
/** Alipay makes day D's bill early on D+1, usually by 09:00 Beijing time. */
const PUBLISH_AFTER_MIDNIGHT_MS = 9 * 3600_000
/** The service fee the fake charges, per mille (0.60%), given back pro rata on refunds. */
const FEE_PER_MILLE = 6

export const beijingDay = (ms: number) => beijingText(ms).slice(0, 10)
export const billPublishedAtMs = (day: string) => Date.parse(`${day}T00:00:00+08:00`) + DAY_MS + PUBLISH_AFTER_MIDNIGHT_MS

export interface BillLine extends KnobbableLine {
  atMs: number
  createdMs: number
  outTradeNo: string
  tradeNo: string
  subject: string
  buyer: string
  /** A refund's out_request_no. */
  outRequestNo?: string
}

const fee = (fen: number) => Math.round((fen * FEE_PER_MILLE) / 1000)

/** The app's paid trades (by payment time) and refunds (by refund time) of the Beijing day. */
function dayLines(store: FakeStore, app: FakeApp, day: string): BillLine[] {
  const lines: BillLine[] = []
  for (const t of store.trades.values()) {
    if (t.appId !== app.appId || t.gmtPaymentMs === undefined || beijingDay(t.gmtPaymentMs) !== day) continue
    lines.push({ kind: 'payment', ids: [t.outTradeNo, t.tradeNo!], amount: t.total, currency: 'CNY', atMs: t.gmtPaymentMs, createdMs: t.gmtCreateMs!, outTradeNo: t.outTradeNo, tradeNo: t.tradeNo!, subject: t.subject, buyer: t.buyerLogonId ?? '' })
  }
  for (const r of store.refunds) {
    if (r.appId !== app.appId || beijingDay(r.gmtRefundMs) !== day) continue
    const t = store.trade(r.appId, r.outTradeNo)!
    lines.push({
      kind: 'refund', ids: [r.outRequestNo], amount: r.amount, currency: 'CNY', refundStatus: 'REFUND_SUCCESS', atMs: r.gmtRefundMs, createdMs: t.gmtCreateMs!,
      outTradeNo: t.outTradeNo, tradeNo: t.tradeNo!, subject: t.subject, buyer: t.buyerLogonId ?? '', outRequestNo: r.outRequestNo,
    })
  }
  return lines.sort((a, b) => a.atMs - b.atMs)
}

export type BillAnswer = { published: false } | { published: true; lines: BillLine[] }

/** Day D's lines once published (09:00 Beijing on D+1, and not held by the knob), as the knobs say. */
export function billLines(store: FakeStore, app: FakeApp, day: string): BillAnswer {
  if (store.nowMs() < billPublishedAtMs(day) || store.statementKnobs.peek(day)?.held) return { published: false }
  const unknown = (u: UnknownPayment): BillLine => {
    const atMs = Date.parse(`${day}T12:00:00+08:00`)
    return { kind: 'payment', ids: [u.ref, u.providerRef], amount: u.amount, currency: 'CNY', atMs, createdMs: atMs, outTradeNo: u.ref, tradeNo: u.providerRef, subject: 'Payment', buyer: 'unk***@alipay.test' }
  }
  return { published: true, lines: applyStatementKnobs(dayLines(store, app, day), store.statementKnobs.peek(day), unknown) }
}

/** A CSV cell: quoted when it holds a comma, a quote or a line break. */
const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const signed = (fen: number) => (fen < 0 ? `-${yuan(-fen)}` : yuan(fen))
/** Ids are padded with a tab, so a spreadsheet keeps their digits. */
const id = (v: string) => `${v}\t`

const DETAIL_HEADER = '支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,终端号,对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,备注'
const SUMMARY_HEADER = '门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）,支付宝优惠（元）,商家优惠（元）,卡消费金额（元）,服务费（元）,分润（元）,实收净额（元）'
const rule = (title: string, before = 41, after = 40) => `#${'-'.repeat(before)}${title}${'-'.repeat(after)}`

function heading(kind: '明细' | '汇总', sellerId: string, day: string) {
  const [y, m, d] = day.split('-')
  const next = beijingDay(Date.parse(`${day}T00:00:00+08:00`) + DAY_MS).split('-')
  return [`#支付宝业务${kind}查询`, `#账号：[${sellerId}0156]`, `#起始日期：[${y}年${m}月${d}日 00:00:00]   终止日期：[${next[0]}年${next[1]}月${next[2]}日 00:00:00]`, rule(`业务${kind}列表`)]
}

const exportTime = (ms: number) => {
  const t = beijingText(ms)
  return `#导出时间：[${t.slice(0, 4)}年${t.slice(5, 7)}月${t.slice(8, 10)}日 ${t.slice(11)}]`
}

/** The two files' text, as Alipay lays them out (lines end with CRLF). */
export function billFiles(lines: BillLine[], sellerId: string, day: string, nowMs: number): { detail: string; summary: string } {
  const pays = lines.filter((l) => l.kind === 'payment')
  const refunds = lines.filter((l) => l.kind === 'refund')
  // Money in is positive, money out (a refund, a fee taken) negative, as the bill writes it.
  const amountOf = (l: BillLine) => (l.kind === 'payment' ? l.amount : -l.amount)
  const feeOf = (l: BillLine) => (l.kind === 'payment' ? -fee(l.amount) : fee(l.amount))
  const rows = lines.map((l) => [
    id(l.tradeNo), id(l.outTradeNo), id(l.kind === 'payment' ? '交易' : '退款'), cell(l.subject), beijingText(l.createdMs), beijingText(l.atMs), id(''), id(''), id(''), id(''), id(l.buyer),
    signed(amountOf(l)), signed(amountOf(l)), '0.00', '0.00', '0.00', '0.00', '0.00', '', id('0.00'), '0.00', id(l.outRequestNo ?? ''), signed(feeOf(l)), '0.00', '',
  ].join(','))
  const net = sum(lines.map(amountOf))
  const fees = sum(lines.map(feeOf))
  const detail = [
    ...heading('明细', sellerId, day), DETAIL_HEADER, ...rows, rule('业务明细列表结束', 41, 36),
    `#交易合计：${pays.length}笔，商家实收共${yuan(sum(pays.map((l) => l.amount)))}元，商家优惠共0.00元`,
    `#退款合计：${refunds.length}笔，商家实收退款共${signed(-sum(refunds.map((l) => l.amount)))}元，商家优惠退款共0.00元`,
    exportTime(nowMs),
  ]
  const totals = [String(pays.length), String(refunds.length), signed(net), signed(net), '0.00', '0.00', '0.00', signed(fees), '0.00', signed(net + fees)]
  const summary = [...heading('汇总', sellerId, day), SUMMARY_HEADER, [id(''), id(''), ...totals].join(','), ['合计', '', ...totals].join(','), rule('业务汇总列表结束', 40, 37), exportTime(nowMs)]
  return { detail: `${detail.join('\r\n')}\r\n`, summary: `${summary.join('\r\n')}\r\n` }
}

/** The bill's zip: both files in GBK, named `<pid>_<yyyyMMdd>_业务明细[(汇总)].csv`. */
export function billZip(lines: BillLine[], sellerId: string, day: string, nowMs: number): Promise<Buffer> {
  const { detail, summary } = billFiles(lines, sellerId, day, nowMs)
  const base = `${sellerId}0156_${day.replace(/-/g, '')}`
  return zipGbk({ [`${base}_业务明细.csv`]: iconv.encode(detail, 'gbk'), [`${base}_业务明细(汇总).csv`]: iconv.encode(summary, 'gbk') })
}

/** A damaged download: the last byte lost on the way. */
export const damaged = (body: Buffer) => body.subarray(0, Math.max(0, body.length - 1))
