/**
 * bill.ts: WeChat Pay's statement files. The vectors follow the official formats (docs/providers.md#statements):
 * the mainland ALL trade bill's headers from its format page, rows shaped as real bills are (refund
 * rows with 交易状态 REFUND, 订单金额 0.00, a negative five-decimal fee), the fund-flow bill's, and
 * WeChat Pay Global's documented statement header.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { StatementItem } from '../statements.js'
import * as bill from './bill.js'
import { minorUnits, roundedMinorUnits, splitFields, type TradeBillOptions } from './bill.js'

/** A file as a download hands it over: in pieces of 7 bytes, so lines (and characters) straddle them. */
async function* pieces(b: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += 7) yield b.subarray(i, i + 7)
}
const tradeBillItems = (b: Buffer, o: TradeBillOptions) => bill.tradeBillItems(pieces(b), o)
const checkFundFlowBill = (b: Buffer, file: string) => bill.checkFundFlowBill(pieces(b), file)
async function billRows(b: Buffer, file: string) {
  const rows: bill.BillRow[] = []
  for await (const r of bill.billRows(pieces(b), file)) rows.push(r)
  return rows
}

const ALL_HEADER = '交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注'
const ALL_SUMMARY = '总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额'
const row = (cells: string[]) => cells.map((c) => '`' + c).join(',')
const PAY = row(['2026-05-20 12:00:05', 'wxd678efh567hg6787', '1230000109', '0', '', '4200000925202605204997714292', 'att_A', 'ofyak5qR_1wYsC99CsWA6R9MJazA', 'NATIVE', 'SUCCESS', 'OTHERS', 'CNY', '99.00', '0.00', '0', '0', '0.00', '0.00', '', '', 'Blue mug, large', '', '0.59000', '0.60%', '99.00', '0.00', ''])
const REFUND = row(['2026-05-20 15:30:00', 'wxd678efh567hg6787', '1230000109', '0', '', '4200000925202605204997714292', 'att_A', 'ofyak5qR_1wYsC99CsWA6R9MJazA', 'NATIVE', 'REFUND', 'OTHERS', 'CNY', '0.00', '0.00', '50302709992026052091956632208', 'rfd_B', '50.00', '0.00', 'ORIGINAL', 'PROCESSING', 'Blue mug, large', '', '-0.30000', '0.60%', '0.00', '50.00', ''])
const SUMMARY = row(['2', '99.00', '50.00', '0.00', '0.29000', '99.00', '50.00'])

async function all(it: AsyncIterable<StatementItem>) {
  const out: StatementItem[] = []
  for await (const x of it) out.push(x)
  return out
}

test('amounts: decimal text to minor units exactly, never through floating point', () => {
  assert.equal(minorUnits('99.00', 'CNY'), 9900)
  assert.equal(minorUnits('0.01', 'CNY'), 1)
  assert.equal(minorUnits('0.1', 'CNY'), 10)
  assert.equal(minorUnits('19.99', 'CNY'), 1999) // 19.99 * 100 is 1998.9999999999998 in floating point
  assert.equal(minorUnits('0.01000', 'CNY'), 1, 'trailing zeros below the fen are fine')
  assert.equal(minorUnits('1500', 'JPY'), 1500)
  assert.equal(minorUnits('1500.00', 'JPY'), 1500)
  assert.equal(minorUnits('-0.30', 'CNY'), -30)
  assert.equal(minorUnits('123456789.12', 'USD'), 12345678912)
  assert.throws(() => minorUnits('1.005', 'HKD'), /not an amount in HKD/)
  assert.throws(() => minorUnits('1.5', 'JPY'), /not an amount in JPY/)
  assert.throws(() => minorUnits('1,000.00', 'CNY'), /not an amount/)
  assert.throws(() => minorUnits('', 'CNY'), /not an amount/)
  assert.throws(() => minorUnits('1.00', 'XYZ'), /unknown currency/)
})

test('fees: five decimals rounded half away from zero to the fen', () => {
  assert.equal(roundedMinorUnits('0.59000', 'CNY'), 59)
  assert.equal(roundedMinorUnits('0.05940', 'CNY'), 6)
  assert.equal(roundedMinorUnits('0.00500', 'CNY'), 1)
  assert.equal(roundedMinorUnits('0.00499', 'CNY'), 0)
  assert.equal(roundedMinorUnits('-0.30000', 'CNY'), -30)
  assert.equal(roundedMinorUnits('-0.00500', 'CNY'), -1)
  assert.equal(roundedMinorUnits('0', 'CNY'), 0)
})

test('fields: split on the backtick that starts each one, so a comma inside a field stays in it', () => {
  assert.deepEqual(splitFields('`a,`b, c,`'), ['a', 'b, c', ''])
  assert.deepEqual(splitFields('`{"k":"v","w":1},`x'), ['{"k":"v","w":1}', 'x'])
  assert.throws(() => splitFields('a,b'), /backtick/)
})

test('rows: paired with the header by name, whatever the column order; a line whose count differs is refused', async () => {
  const body = Buffer.from('\ufeffb,a\r\n`2,`1\r\n\r\nsum\n`3\n')
  assert.deepEqual(await billRows(body, 'f'), [
    { part: 'detail', line: 2, fields: { b: '2', a: '1' } },
    { part: 'summary', line: 5, fields: { sum: '3' } },
  ])
  await assert.rejects(billRows(Buffer.from('a,b\n`1\n'), 'f'), /f line 2: 1 fields, its header has 2/)
  await assert.rejects(billRows(Buffer.from('`1\n'), 'f'), /f line 1: data before any header/)
})

test('trade bill (ALL): a payment, its refund and the summary, each with its source', async () => {
  const body = Buffer.from([ALL_HEADER, PAY, REFUND, ALL_SUMMARY, SUMMARY].join('\n') + '\n')
  const items = await all(tradeBillItems(body, { file: 'tradebill', defaultCurrency: 'CNY' }))
  assert.equal(items.length, 3)
  const [pay, refund, total] = items as any[]
  assert.deepEqual({ ...pay, source: undefined }, {
    kind: 'payment', tillRef: 'att_A', providerRef: '4200000925202605204997714292', amount: 9900, currency: 'CNY', status: 'succeeded',
    fee: 59, at: new Date('2026-05-20T04:00:05.000Z'), source: undefined,
  })
  assert.deepEqual({ file: pay.source.file, line: pay.source.line, name: pay.source.fields['商品名称'] }, { file: 'tradebill', line: 2, name: 'Blue mug, large' })
  assert.deepEqual({ ...refund, source: undefined }, {
    kind: 'refund', tillRef: 'rfd_B', providerRef: '50302709992026052091956632208', paymentTillRef: 'att_A', paymentProviderRef: '4200000925202605204997714292',
    amount: 5000, currency: 'CNY', status: 'pending', fee: -30, at: new Date('2026-05-20T07:30:00.000Z'), source: undefined,
  })
  assert.equal(refund.source.line, 3)
  assert.deepEqual(total, { kind: 'total', currency: 'CNY', payments: { count: 1, amount: 9900 }, refunds: { count: 1, amount: 5000 }, fees: 29 })
})

test('trade bill: columns are found by name, so a reordered file reads the same', async () => {
  const names = ALL_HEADER.split(',')
  const order = names.map((_, i) => i).reverse()
  const header = order.map((i) => names[i]).join(',')
  const cells = splitFields(PAY)
  const pay = row(order.map((i) => cells[i]))
  const items = await all(tradeBillItems(Buffer.from([header, pay].join('\n')), { file: 'tradebill' }))
  assert.equal((items[0] as any).tillRef, 'att_A')
  assert.equal((items[0] as any).amount, 9900)
})

test('trade bill: refund statuses as the bill writes them; WeChat Pay Global may count PROCESSING as succeeded', async () => {
  const withStatus = (s: string) => Buffer.from([ALL_HEADER, REFUND.replace('`PROCESSING', '`' + s)].join('\n'))
  const statusOf = async (s: string, processingRefund?: 'succeeded') => ((await all(tradeBillItems(withStatus(s), { file: 'f', processingRefund })))[0] as any).status
  assert.equal(await statusOf('SUCCESS'), 'succeeded')
  assert.equal(await statusOf('PROCESSING'), 'pending')
  assert.equal(await statusOf('CHANGE'), 'pending')
  assert.equal(await statusOf('REFUNDCLOSE'), 'failed')
  assert.equal(await statusOf('PROCESSING', 'succeeded'), 'succeeded')
  await assert.rejects(statusOf('WHATEVER'), /unknown 退款状态 WHATEVER/)
})

test('trade bill: an unknown trade state, a missing column or a bad amount fails the file, never a silent skip', async () => {
  await assert.rejects(all(tradeBillItems(Buffer.from([ALL_HEADER, PAY.replace('`SUCCESS', '`NEWSTATE')].join('\n')), { file: 'f' })), /f line 2: unknown 交易状态 NEWSTATE/)
  const noAmounts = ALL_HEADER.replace('应结订单金额', 'x1').replace('订单金额', 'x2')
  await assert.rejects(all(tradeBillItems(Buffer.from([noAmounts, PAY].join('\n')), { file: 'f' })), /f line 2: no 订单金额/)
  await assert.rejects(all(tradeBillItems(Buffer.from([ALL_HEADER, PAY.replace('`0.60%,`99.00,', '`0.60%,`99.0.0,')].join('\n')), { file: 'f' })), /not an amount/)
})

test('trade bill: an empty file (a day without business) yields nothing; a summary alone gives a zero total', async () => {
  assert.deepEqual(await all(tradeBillItems(Buffer.alloc(0), { file: 'f', defaultCurrency: 'CNY' })), [])
  const zero = Buffer.from([ALL_HEADER, ALL_SUMMARY, row(['0', '0.00', '0.00', '0.00', '0.00000', '0.00', '0.00'])].join('\n'))
  assert.deepEqual(await all(tradeBillItems(zero, { file: 'f', defaultCurrency: 'CNY' })), [
    { kind: 'total', currency: 'CNY', payments: { count: 0, amount: 0 }, refunds: { count: 0, amount: 0 }, fees: 0 },
  ])
})

/** WeChat Pay Global's statement header (its statements page), amounts in the listed currency. */
const GLOBAL_HEADER = '交易时间,公众账号ID,商户号,子商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,充值券币种,充值券金额,优惠券币种,优惠券金额,微信退款单号,商户退款单号,退款类型,退款状态,商品名称,商户数据包,手续费,费率,标价币种,订单金额(标价币种),用户支付币种,用户支付金额,结算币种,应结订单金额,支付汇率,退款汇率,申请退款金额,用户退款币种,用户退款金额,退款结算币种,退款应结订单金额,充值券退款金额,优惠券退款金额'

test('WeChat Pay Global statement: the listed currency and its amount, the fee when it is in the same currency', async () => {
  const pay = row(['2026-05-20 12:00:05', 'wxd678efh567hg6787', '1230000109', '', '', '4200000925202605204997714292', 'att_G', 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o', 'NATIVE', 'SUCCESS', 'OTHERS', 'HKD', '0.00', 'HKD', '0.00', '', '', '', '', 'Tea', '', '0.12', '0.60%', 'HKD', '20.00', 'CNY', '18.40', 'HKD', '20.00', '92000000', '', '', '', '', '', '', '', ''])
  const [line] = (await all(tradeBillItems(Buffer.from([GLOBAL_HEADER, pay].join('\n')), { file: 'statement', processingRefund: 'succeeded' }))) as any[]
  assert.deepEqual({ kind: line.kind, tillRef: line.tillRef, amount: line.amount, currency: line.currency, fee: line.fee }, { kind: 'payment', tillRef: 'att_G', amount: 2000, currency: 'HKD', fee: 12 })
  const otherSettlement = pay.replace('`HKD,`20.00,`92000000', '`USD,`2.56,`92000000')
  const [other] = (await all(tradeBillItems(Buffer.from([GLOBAL_HEADER, otherSettlement].join('\n')), { file: 'statement' }))) as any[]
  assert.equal(other.fee, null, 'a fee in another currency than the line is not shown as if it were the same')
})

test('fund-flow bill: read through for its format, yields nothing', async () => {
  const header = '记账时间,微信支付业务单号,资金流水单号,业务名称,业务类型,收支类型,收支金额(元),账户结余(元),资金变更提交申请人,备注,业务凭证号'
  const line = row(['2026-05-20 12:00:05', '4200000925202605204997714292', '50300806962026052005978994968', '交易', '交易', '收入', '99.00', '99.00', '1230000109API', '', 'att_A'])
  await checkFundFlowBill(Buffer.from([header, line, '资金流水总笔数,收入笔数,收入金额,支出笔数,支出金额', row(['1', '1', '99.00', '0', '0.00'])].join('\n')), 'fundflowbill')
  await assert.rejects(checkFundFlowBill(Buffer.from([ALL_HEADER, PAY].join('\n')), 'fundflowbill'), /fundflowbill line 2: no 记账时间/)
})
