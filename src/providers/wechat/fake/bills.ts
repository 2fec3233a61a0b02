/**
 * The fake's statements, built from its own orders and refunds (docs/providers.md#statements), in
 * WeChat's formats: the mainland trade bill (ALL) and fund-flow bill (BASIC account), and WeChat
 * Pay Global's statement. Written from the format pages, not from the adapter's bill.ts.
 *
 * A day's lines are fixed the first time the statement is served after it is published, as
 * WeChat's are ("出账后退款状态不会更新": a refund row keeps the status it had then). The knobs
 * (fake-kit/statement-knobs.ts) apply when a file is written.
 */
import { applyStatementKnobs, type KnobbableLine, type UnknownPayment } from '../../fake-kit/statement-knobs.js'
import type { FakeStore, Order, RefundRecord } from './store.js'

const DAY_MS = 24 * 3600_000
const BEIJING_MS = 8 * 3600_000
/** WeChat generates day D's statement from 09:00 on D+1 and tells merchants to fetch it after 10:00 (Beijing). */
const PUBLISH_AFTER_MIDNIGHT_MS = 10 * 3600_000
/** Minor units per major unit, written out here so the fake stays independent of Till. */
const FACTOR: Record<string, number> = { CNY: 100, HKD: 100, USD: 100, EUR: 100, JPY: 1 }
export const BILL_CURRENCIES = Object.keys(FACTOR)
/** The fee rate the fake charges, per mille (0.60%). */
const FEE_PER_MILLE = 6

export const beijingDay = (ms: number) => new Date(ms + BEIJING_MS).toISOString().slice(0, 10)
export const publishedAtMs = (day: string) => Date.parse(`${day}T00:00:00+08:00`) + DAY_MS + PUBLISH_AFTER_MIDNIGHT_MS
const beijingTime = (ms: number) => new Date(ms + BEIJING_MS).toISOString().slice(0, 19).replace('T', ' ')

export interface BillLine extends KnobbableLine {
  atMs: number
  order: Pick<Order, 'appId' | 'mchId' | 'outTradeNo' | 'tradeType' | 'description' | 'attach' | 'bankType' | 'payerOpenid' | 'rate'> & { transactionId: string }
  /** What the payer paid or got back, in CNY fen (WeChat Pay Global). */
  payerAmount?: number
  refund?: { refundId: string; outRefundNo: string }
}

const fee = (amount: number) => Math.round((amount * FEE_PER_MILLE) / 1000)

/** `amount` minor units as the major-unit text WeChat writes ("99.00"; yen without decimals). */
export function major(amount: number, currency: string, decimals?: number): string {
  const factor = FACTOR[currency] ?? 100
  const places = String(factor).length - 1
  const abs = Math.abs(amount)
  const frac = places === 0 ? '' : String(abs % factor).padStart(places, '0')
  const digits = decimals ?? places
  const text = digits === 0 ? String(Math.floor(abs / factor)) : `${Math.floor(abs / factor)}.${frac.padEnd(digits, '0')}`
  return amount < 0 ? `-${text}` : text
}

const orderPart = (o: Order) => ({
  appId: o.appId, mchId: o.mchId, outTradeNo: o.outTradeNo, tradeType: o.tradeType, description: o.description, attach: o.attach,
  bankType: o.bankType, payerOpenid: o.payerOpenid, rate: o.rate, transactionId: o.transactionId!,
})

const refundStatusWord = (r: RefundRecord) => ({ SUCCESS: 'SUCCESS', PROCESSING: 'PROCESSING', CLOSED: 'REFUNDCLOSE', ABNORMAL: 'CHANGE' })[r.status]

/** The merchant's payments (by payment time) and refunds (by the time WeChat accepted them) of the Beijing day. */
function dayLines(store: FakeStore, mchId: string, day: string): BillLine[] {
  const lines: BillLine[] = []
  for (const o of store.orders.values()) {
    if (o.mchId !== mchId || o.successTimeMs === undefined || beijingDay(o.successTimeMs) !== day) continue
    lines.push({ kind: 'payment', ids: [o.outTradeNo, o.transactionId!], amount: o.total, currency: o.currency, atMs: o.successTimeMs, order: orderPart(o), payerAmount: o.payerTotal })
  }
  for (const r of store.refunds.values()) {
    if (r.mchId !== mchId || beijingDay(r.createTimeMs) !== day) continue
    const o = store.order(r.mchId, r.outTradeNo)!
    lines.push({
      kind: 'refund', ids: [r.outRefundNo, r.refundId], amount: r.refund, currency: r.currency, refundStatus: refundStatusWord(r), atMs: r.createTimeMs,
      order: orderPart(o), payerAmount: r.payerRefund, refund: { refundId: r.refundId, outRefundNo: r.outRefundNo },
    })
  }
  return lines.sort((a, b) => a.atMs - b.atMs)
}

export type BillAnswer = { published: false } | { published: true; lines: BillLine[] }

/** Day D's lines once published (10:00 Beijing on D+1, and not held by the knob), fixed from then on. */
export function billLines(store: FakeStore, mchId: string, day: string): BillAnswer {
  if (store.nowMs() < publishedAtMs(day) || store.statementKnobs.peek(day)?.held) return { published: false }
  const key = `${mchId}:${day}`
  let lines = store.billSnapshots.get(key)
  if (!lines) store.billSnapshots.set(key, (lines = dayLines(store, mchId, day)))
  const unknown = (u: UnknownPayment): BillLine => {
    const merchant = store.merchants.get(mchId)!
    const currency = u.currency ?? merchant.settlementCurrency ?? 'CNY'
    return {
      kind: 'payment', ids: [u.ref, u.providerRef], amount: u.amount, currency, atMs: Date.parse(`${day}T12:00:00+08:00`),
      order: { appId: merchant.appIds[0], mchId, outTradeNo: u.ref, transactionId: u.providerRef, tradeType: 'NATIVE', description: 'Payment', bankType: 'OTHERS', payerOpenid: 'oUnknownPayer0000000000000000' },
    }
  }
  return { published: true, lines: applyStatementKnobs(lines, store.statementKnobs.peek(day), unknown) }
}

const csv = (rows: string[][]) => rows.map((r) => r.map((c) => '`' + c).join(',')).join('\n')
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

const TRADE_HEADER = '交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注'
const TRADE_SUMMARY = '总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额'

/** The mainland trade bill of type ALL: detail header, rows, summary header, summary row. */
export function tradeBill(lines: BillLine[]): string {
  const y = (n: number, cur: string) => major(n, cur)
  const rows = lines.map((l) => {
    const o = l.order
    const head = [beijingTime(l.atMs), o.appId, o.mchId, '0', '', o.transactionId, o.outTradeNo, o.payerOpenid ?? '', o.tradeType, l.kind === 'payment' ? 'SUCCESS' : 'REFUND', o.bankType ?? 'OTHERS', l.currency]
    const tail = [o.description, o.attach ?? '']
    if (l.kind === 'payment') return [...head, y(l.amount, l.currency), '0.00', '0', '0', '0.00', '0.00', '', '', ...tail, major(fee(l.amount), l.currency, 5), '0.60%', y(l.amount, l.currency), '0.00', '']
    return [...head, '0.00', '0.00', l.refund!.refundId, l.refund!.outRefundNo, y(l.amount, l.currency), '0.00', 'ORIGINAL', l.refundStatus ?? '', ...tail, major(-fee(l.amount), l.currency, 5), '0.60%', '0.00', y(l.amount, l.currency), '']
  })
  const pays = lines.filter((l) => l.kind === 'payment').map((l) => l.amount)
  const refunds = lines.filter((l) => l.kind === 'refund').map((l) => l.amount)
  const fees = sum(pays.map(fee)) - sum(refunds.map(fee))
  const summary = [String(lines.length), y(sum(pays), 'CNY'), y(sum(refunds), 'CNY'), '0.00', major(fees, 'CNY', 5), y(sum(pays), 'CNY'), y(sum(refunds), 'CNY')]
  return `${TRADE_HEADER}\n${csv(rows)}${rows.length ? '\n' : ''}${TRADE_SUMMARY}\n${csv([summary])}\n`
}

const FUND_HEADER = '记账时间,微信支付业务单号,资金流水单号,业务名称,业务类型,收支类型,收支金额(元),账户结余(元),资金变更提交申请人,备注,业务凭证号'
const FUND_SUMMARY = '资金流水总笔数,收入笔数,收入金额,支出笔数,支出金额'

/** The BASIC account's fund-flow bill: each payment in, net of its fee, each refund out. */
export function fundFlowBill(lines: BillLine[]): string {
  let balance = 0
  const rows = lines.map((l, i) => {
    const flowNo = `${String(l.atMs).slice(-10)}${String(i).padStart(4, '0')}`
    if (l.kind === 'payment') {
      balance += l.amount - fee(l.amount)
      return [beijingTime(l.atMs), l.order.transactionId, flowNo, '交易', '交易', '收入', major(l.amount - fee(l.amount), 'CNY'), major(balance, 'CNY'), `${l.order.mchId}API`, '', l.order.outTradeNo]
    }
    balance -= l.amount
    return [beijingTime(l.atMs), l.refund!.refundId, flowNo, '退款', '退款', '支出', major(l.amount, 'CNY'), major(balance, 'CNY'), `${l.order.mchId}API`, `退款总金额${major(l.amount, 'CNY')}元;含手续费0.00元`, l.refund!.outRefundNo]
  })
  const ins = lines.filter((l) => l.kind === 'payment').map((l) => l.amount - fee(l.amount))
  const outs = lines.filter((l) => l.kind === 'refund').map((l) => l.amount)
  const summary = [String(lines.length), String(ins.length), major(sum(ins), 'CNY'), String(outs.length), major(sum(outs), 'CNY')]
  return `${FUND_HEADER}\n${csv(rows)}${rows.length ? '\n' : ''}${FUND_SUMMARY}\n${csv([summary])}\n`
}

const GLOBAL_HEADER = '交易时间,公众账号ID,商户号,子商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,充值券币种,充值券金额,优惠券币种,优惠券金额,微信退款单号,商户退款单号,退款类型,退款状态,商品名称,商户数据包,手续费,费率,标价币种,订单金额(标价币种),用户支付币种,用户支付金额,结算币种,应结订单金额,支付汇率,退款汇率,申请退款金额,用户退款币种,用户退款金额,退款结算币种,退款应结订单金额,充值券退款金额,优惠券退款金额'

/**
 * WeChat Pay Global's statement: its documented header and rows, amounts in the listed currency
 * (which is the settlement one), what the payer paid in CNY, the rate × 10^8. Its page documents no
 * summary part, so there is none.
 */
export function globalStatement(lines: BillLine[]): string {
  const rows = lines.map((l) => {
    const o = l.order
    const c = l.currency
    const zero = major(0, c)
    const head = [beijingTime(l.atMs), o.appId, o.mchId, '', '', o.transactionId, o.outTradeNo, o.payerOpenid ?? '', o.tradeType, l.kind === 'payment' ? 'SUCCESS' : 'REFUND', o.bankType ?? 'OTHERS', c, zero, c, zero]
    const rate = o.rate === undefined ? '' : String(o.rate)
    const payer = l.payerAmount === undefined ? '' : major(l.payerAmount, 'CNY')
    if (l.kind === 'payment') {
      return [...head, '', '', '', '', o.description, o.attach ?? '', major(fee(l.amount), c), '0.60%', c, major(l.amount, c), 'CNY', payer, c, major(l.amount, c), rate, '', '', '', '', '', '', zero, zero]
    }
    return [...head, l.refund!.refundId, l.refund!.outRefundNo, 'ORIGINAL', l.refundStatus ?? '', o.description, o.attach ?? '', major(-fee(l.amount), c), '0.60%', c, zero, 'CNY', '', c, zero, rate, rate, major(l.amount, c), 'CNY', payer, c, major(l.amount, c), zero, zero]
  })
  return `${GLOBAL_HEADER}\n${csv(rows)}${rows.length ? '\n' : ''}`
}

/** A damaged download: the last byte lost on the way. */
export const damaged = (body: Buffer) => body.subarray(0, Math.max(0, body.length - 1))
