/**
 * Statements (docs/providers.md#alipay-alipay): the Alipay adapter fetches its fake's trade bill
 * over real HTTP, in both key modes: the signed bill query, the 30-second download URL, the zip of
 * GBK CSV files. The fake builds it from its own trades and refunds; its knobs make each mismatch.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import type { RefundInput } from '../../src/providers/types.js'
import { alipayBillPublishedAt } from '../helpers/alipay.js'
import { alipayAdapter } from '../helpers/alipay-till.js'
import { fetchWhole } from '../helpers/reconciliation.js'
import { lines, read, totals } from '../helpers/statements.js'

type S = Awaited<ReturnType<typeof alipayAdapter>>
const DAY = '2026-05-20'
const METHOD = 'alipay.data.dataservice.bill.downloadurl.query'


/** Two payments and a partial refund on DAY, the clock moved to when the fake publishes the bill. */
async function aDay(s: S) {
  const a = await s.paid({ amount: 9900 })
  s.clock.advance(60_000)
  const b = await s.paid({ amount: 1234 })
  s.clock.advance(60_000)
  const r: RefundInput = { refundId: newId('ref'), amount: 5000, totalAmount: 9900, currency: 'CNY', reason: null, notifyUrl: s.rx.url, payment: { attemptId: a.attemptId, providerRef: null, data: {} } }
  await s.provider.refund(s.cfg, r)
  const trade = async (id: string) => (await s.ctl.order(id)).trade_no as string
  s.clock.set(alipayBillPublishedAt(DAY))
  return { a, b, refundId: r.refundId, tradeA: await trade(a.attemptId), tradeB: await trade(b.attemptId) }
}

for (const mode of ['publicKey', 'cert'] as const) {
  test(`${mode}: a clean day read back through the signed bill query and the zip: exactly the fake's payments and refund, and totals that agree with them`, async (t) => {
    const s = await alipayAdapter(t, { mode })
    const d = await aDay(s)
    const source = s.provider.statements!
    assert.equal(source.zone, 'Asia/Shanghai')
    const f = await fetchWhole(source, s.cfg, DAY)
    assert.deepEqual(f.ready && f.files.map((x) => [x.name, x.type]), [['trade-detail', 'text/csv; charset=gbk'], ['trade-summary', 'text/csv; charset=gbk']])
    const items = await read(source, f)
    assert.deepEqual(lines(items), [
      { kind: 'payment', tillRef: d.a.attemptId, providerRef: d.tradeA, amount: 9900, currency: 'CNY', status: 'succeeded', fee: 59, at: new Date('2026-05-20T04:00:00.000Z') },
      { kind: 'payment', tillRef: d.b.attemptId, providerRef: d.tradeB, amount: 1234, currency: 'CNY', status: 'succeeded', fee: 7, at: new Date('2026-05-20T04:01:00.000Z') },
      { kind: 'refund', tillRef: d.refundId, providerRef: null, paymentTillRef: d.a.attemptId, paymentProviderRef: d.tradeA, amount: 5000, currency: 'CNY', status: 'succeeded', fee: -30, at: new Date('2026-05-20T04:02:00.000Z') },
    ])
    assert.deepEqual(totals(items), [{ kind: 'total', currency: 'CNY', payments: { count: 2, amount: 11134 }, refunds: { count: 1, amount: 5000 }, fees: 36 }])
    const asked = (await s.ctl.requests()).slice(-2)
    assert.deepEqual(asked.map((r) => [r.method ?? r.path, r.verified, r.answer]), [[METHOD, true, { code: '10000' }], ['/downloadBillFile.resource', null, { code: '200' }]])
    assert.equal(JSON.parse(asked[0].params.biz_content).bill_date, DAY)
    assert.equal(JSON.parse(asked[0].params.biz_content).bill_type, 'trade')
  })
}

test('not made yet: isp.bill_not_exist before 09:00 Beijing the next day and while held, ready once released', async (t) => {
  const s = await alipayAdapter(t)
  await s.paid()
  s.clock.set(new Date(Date.parse(`${DAY}T23:30:00+08:00`)))
  assert.deepEqual(await s.provider.statements!.fetch(s.cfg, DAY), { ready: false, reason: `Alipay has not made ${DAY}'s bill yet`, retryAfterS: 9.5 * 3600 })
  assert.deepEqual((await s.ctl.requests()).at(-1)!.answer, { code: '40004', sub_code: 'isp.bill_not_exist' })
  await s.ctl.statementHold(DAY)
  s.clock.set(alipayBillPublishedAt(DAY))
  assert.deepEqual(await s.provider.statements!.fetch(s.cfg, DAY), { ready: false, reason: `Alipay has not made ${DAY}'s bill yet`, retryAfterS: 1800 })
  await s.ctl.statementRelease(DAY)
  assert.equal(lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY))).length, 1)
})

test('a damaged zip is refused whole, and the next download is used', async (t) => {
  const s = await alipayAdapter(t)
  await aDay(s)
  await s.ctl.statementCorrupt(DAY)
  const refused = await s.provider.statements!.fetch(s.cfg, DAY)
  assert.ok(!refused.ready)
  assert.match(refused.reason, /^the bill's zip is damaged \(.+\); refused$/)
  assert.equal(refused.retryAfterS, 60)
  assert.equal(lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY))).length, 3)
})

test('a day without business: EMPTY_DATA_WITH_BILL_FILE, files that hold no line, totals of zero', async (t) => {
  const s = await alipayAdapter(t)
  s.clock.set(alipayBillPublishedAt('2026-05-19'))
  const answer = await s.provider.client.call<{ code?: string; bill_file_code?: string }>(s.cfg, METHOD, { bill_type: 'trade', bill_date: '2026-05-19' })
  assert.equal(answer.bill_file_code, 'EMPTY_DATA_WITH_BILL_FILE')
  const items = await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, '2026-05-19'))
  assert.deepEqual(items, [{ kind: 'total', currency: 'CNY', payments: { count: 0, amount: 0 }, refunds: { count: 0, amount: 0 }, fees: 0 }])
})

test('the download URL lives 30 seconds of the fake\'s clock; after that the link is refused', async (t) => {
  const s = await alipayAdapter(t)
  await aDay(s)
  const { bill_download_url: url } = await s.provider.client.call<{ code?: string; bill_download_url: string }>(s.cfg, METHOD, { bill_type: 'trade', bill_date: DAY })
  assert.match(url, /\/downloadBillFile\.resource\?bizType=trade&/)
  assert.equal((await s.provider.client.download(url)).status, 200)
  s.clock.advance(31_000)
  assert.equal((await s.provider.client.download(url)).status, 403)
})

test('each knob shows in the lines: a line dropped, an amount changed, a payment Till never made; the file cannot show another currency', async (t) => {
  const s = await alipayAdapter(t)
  const d = await aDay(s)
  await s.ctl.statementDrop(DAY, { ref: d.b.attemptId })
  await s.ctl.statementAmount(DAY, { ref: d.refundId }, 4000)
  const unknown = await s.ctl.statementUnknownPayment(DAY, { amount: 777 })
  const items = await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY))
  assert.deepEqual(lines(items).map((l) => [l.kind, l.tillRef, l.providerRef, l.amount]), [
    ['payment', d.a.attemptId, d.tradeA, 9900],
    ['refund', d.refundId, null, 4000],
    ['payment', unknown.ref, unknown.providerRef, 777],
  ])
  // The summary follows the bill's lines, as Alipay's does.
  assert.deepEqual(totals(items), [{ kind: 'total', currency: 'CNY', payments: { count: 2, amount: 10677 }, refunds: { count: 1, amount: 4000 }, fees: 40 }])
  await assert.rejects(s.ctl.statementCurrency(DAY, { ref: d.a.attemptId }, 'USD'), /currency must be one of CNY/)
  await assert.rejects(s.ctl.statementRefundStatus(DAY, d.refundId, 'REFUND_FAIL'), /status must be one of REFUND_SUCCESS/)
})
