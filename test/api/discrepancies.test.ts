/**
 * Provider reports that do not match what Till asked for change no money state: they are stored as
 * discrepancies (GET /admin/v1/discrepancies), logged at warn and counted in provider_discrepancies_total.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileRefunds } from '../../src/jobs/reconcile.js'
import { newId } from '../../src/domain/ids.js'
import { buildMockNotification } from '../../src/providers/mock/index.js'
import type { Fact } from '../../src/providers/types.js'
import { transactionView } from '../../src/providers/wechat/fake/views.js'
import { startAttempt } from '../../src/services/attempts.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { creemTill } from '../helpers/creem-till.js'
import { getSession } from '../helpers/merchant-api.js'
import { eventsWhere, recordRow, refundRows, sessionRow } from '../helpers/store-queries.js'
import { liveWechat } from '../helpers/wechat.js'

async function notify(ta: TestApp, facts: Fact[]) {
  const { body, headers } = buildMockNotification(ta.deps.mockConfig, { facts })
  const res = await fetch(`${ta.baseUrl}/hooks/mock`, { method: 'POST', headers, body })
  await res.arrayBuffer()
  assert.equal(res.status, 200)
}

async function metric(ta: TestApp, provider: string, kind: string) {
  const text = await ta.deps.metrics.registry.metrics()
  const line = text.split('\n').find((l) => l.startsWith(`till_provider_discrepancies_total{provider="${provider}",kind="${kind}"}`))
  return Number(line?.split(' ').at(-1) ?? NaN)
}

const discrepancies = async (ta: TestApp) => (await ta.admin('GET', '/discrepancies')).body

/** A record's refunded amount and status, as stored. */
async function totals(ta: TestApp, recordId: string) {
  const r = await recordRow(ta, recordId)
  return [r.refunded_amount, r.status]
}

/** The one discrepancy recorded, which must be of this kind. */
async function onlyDiscrepancy(ta: TestApp, kind: string) {
  const [d, ...more] = (await discrepancies(ta)).data
  assert.equal(more.length, 0, JSON.stringify(more))
  assert.equal(d?.kind, kind, JSON.stringify(d))
  return d
}

test('WeChat: a signed REFUND.SUCCESS for a refund Till never issued, 50,000 on a payment of 9,900, refunds nothing', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
  await w.ctl.pay({ out_trade_no: attempt.id })
  const record = (await w.ta.request('GET', `/api/v1/sessions/${s.id}`, { key: w.ta.merchant.liveKey })).body.record
  assert.equal(record.status, 'paid')
  const order = await w.ctl.order(attempt.id)

  const forged = { service: 'mainland' as const, currency: 'CNY', mchId: w.creds.mchId, outTradeNo: attempt.id, transactionId: order.transaction_id, total: 9900, notifyUrl: `${w.ta.baseUrl}/hooks/wechat/${w.configId}`, createTimeMs: Date.now(), successTimeMs: Date.now() }
  // One named with an id of Till's own form that Till never issued, one started "outside Till" for more than was paid.
  await w.fake.notifier.refundSettled({ ...forged, outRefundNo: newId('ref'), refundId: '50300000000000000001', refund: 50_000, status: 'SUCCESS', outcome: 'SUCCESS' })
  await w.fake.notifier.refundSettled({ ...forged, outRefundNo: 'dashboard-1', refundId: '50300000000000000002', refund: 50_000, status: 'SUCCESS', outcome: 'SUCCESS' })

  const after = await recordRow(w.ta, record.id)
  assert.deepEqual([after.status, after.refunded_amount], ['paid', 0])
  assert.equal((await refundRows(w.ta, record.id)).length, 0)
  assert.equal((await sessionRow(w.ta, s.id)).status, 'paid')
  const list = await discrepancies(w.ta)
  assert.deepEqual(list.data.map((d: any) => d.kind).sort(), ['refund_amount', 'unknown_refund'])
  const over = list.data.find((d: any) => d.kind === 'refund_amount')
  assert.equal(over.provider, 'wechat')
  assert.equal(over.providerConfigId, w.configId)
  assert.equal(over.merchantId, w.ta.merchant.id)
  assert.equal(over.report.amount, 50_000)
  assert.deepEqual(over.expected, { recordId: record.id, refundable: 9900, currency: 'CNY' })
  assert.equal(await metric(w.ta, 'wechat', 'refund_amount'), 1)
  assert.equal(await metric(w.ta, 'wechat', 'unknown_refund'), 1)
})

test('a report of our refund with another amount settles nothing', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 300 } })
  const refundId = res.body.refund.id
  await notify(ta, [{ kind: 'refund', refundId, status: 'succeeded', amount: 900, currency: 'CNY', providerRefundRef: 'x' }])
  assert.equal((await refundRows(ta, paid.record.id))[0].status, 'pending')
  assert.equal((await recordRow(ta, paid.record.id)).refunded_amount, 0)
  assert.deepEqual((await eventsWhere(ta, 'refundId', refundId)).map((e) => e.type), ['refund.pending'])
  const [d] = (await discrepancies(ta)).data
  assert.deepEqual([d.kind, d.expected], ['refund_amount', { refundId, amount: 300 }])
  // The right amount (or none: settled by our id) still settles it.
  await notify(ta, [{ kind: 'refund', refundId, status: 'succeeded', amount: 300, currency: 'CNY', providerRefundRef: 'x' }])
  assert.equal((await recordRow(ta, paid.record.id)).refunded_amount, 300)
})

test('a refund started outside Till without an amount or its currency, or for an unknown payment, is recorded, not applied', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' })
  const attemptId = (await ta.database.pool.query('select attempt_id from records where id = $1', [paid.record.id])).rows[0].attempt_id
  await notify(ta, [{ kind: 'refund', attemptId, providerRefundRef: 'dash-1', status: 'succeeded' }])
  await notify(ta, [{ kind: 'refund', attemptId: newId('att'), providerRefundRef: 'dash-2', status: 'succeeded', amount: 100, currency: 'CNY' }])
  ta.clock.advance(1000) // listed newest first
  await notify(ta, [{ kind: 'refund', attemptId, providerRefundRef: 'dash-0', status: 'succeeded', amount: 100 }])
  assert.equal((await refundRows(ta, paid.record.id)).length, 0)
  assert.deepEqual((await discrepancies(ta)).data.map((d: any) => d.kind), ['refund_currency', 'unmatched_refund', 'unmatched_refund'])
  // Within what is refundable, a dashboard refund is still recorded as before.
  await notify(ta, [{ kind: 'refund', attemptId, providerRefundRef: 'dash-3', status: 'succeeded', amount: 400, currency: 'CNY' }])
  assert.equal((await recordRow(ta, paid.record.id)).refunded_amount, 400)
})

test('a payment reported without an amount or currency, or with other ones, is not recorded as paid', async (t) => {
  const ta = await startTestApp(t)
  const attemptFor = async () => {
    const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } })
    const { attempt } = await startAttempt(ta.deps, created.body.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
    return { sessionId: created.body.id as string, attemptId: attempt.id }
  }
  const cases: Array<Partial<Fact>> = [{ currency: 'CNY' }, { amount: 1000 }, { amount: 999, currency: 'CNY' }, { amount: 1000, currency: 'EUR' }]
  for (const c of cases) {
    const a = await attemptFor()
    await notify(ta, [{ kind: 'payment', attemptId: a.attemptId, status: 'succeeded', ...c } as Fact])
    assert.equal((await sessionRow(ta, a.sessionId)).status, 'processing', JSON.stringify(c))
    assert.deepEqual(await eventsWhere(ta, 'sessionId', a.sessionId), [])
  }
  const list = (await discrepancies(ta)).data
  assert.equal(list.length, 4)
  assert.ok(list.every((d: any) => d.kind === 'payment_amount' && d.expected.amount === 1000 && d.expected.currency === 'CNY'))
  assert.equal(await metric(ta, 'mock', 'payment_amount'), 4)
  // Paged, newest first.
  const first = await ta.admin('GET', '/discrepancies?limit=3')
  assert.equal(first.body.data.length, 3)
  assert.equal(first.body.hasMore, true)
  const rest = await ta.admin('GET', `/discrepancies?limit=3&starting_after=${first.body.data[2].id}`)
  assert.deepEqual([rest.body.data.length, rest.body.hasMore], [1, false])
  assert.equal((await ta.admin('GET', `/discrepancies?merchant_id=${ta.merchant.id}`)).body.data.length, 4)
  assert.equal((await ta.admin('GET', '/discrepancies?merchant_id=mer_none')).body.data.length, 0)
})

test('a session paid twice through two attempts: both notifications answer 200, one record, one payment.succeeded, one paid_twice', async (t) => {
  const ta = await startTestApp(t)
  const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } })
  const start = () => startAttempt(ta.deps, created.body.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const first = (await start()).attempt
  const second = (await start()).attempt
  const paid = (attemptId: string): Fact => ({ kind: 'payment', attemptId, status: 'succeeded', providerRef: `pay_${attemptId}`, amount: 1000, currency: 'CNY' })
  await notify(ta, [paid(first.id)])
  await notify(ta, [paid(second.id)])
  const { rows } = await ta.database.pool.query('select attempt_id from records where session_id = $1', [created.body.id])
  assert.deepEqual(rows, [{ attempt_id: first.id }])
  assert.equal((await sessionRow(ta, created.body.id)).status, 'paid')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', created.body.id)).map((e) => e.type), ['payment.succeeded'])
  const d = await onlyDiscrepancy(ta, 'paid_twice')
  assert.deepEqual([d.report.attemptId, d.merchantId], [second.id, ta.merchant.id])
  assert.equal(d.expected.paidBy.attemptId, first.id)
  // The same second payment reported again is the same money: nothing more is recorded.
  await notify(ta, [paid(second.id)])
  assert.equal((await discrepancies(ta)).data.length, 1)
  assert.equal(await metric(ta, 'mock', 'paid_twice'), 1)
})

/** Not paid, nothing recorded or told the merchant, one payment_amount discrepancy naming both currencies. */
async function refusedAsOtherCurrency(ta: TestApp, provider: string, configId: string, sessionId: string, attemptId: string, expected: { amount: number; currency: string }, reported: string) {
  const s = await getSession(ta, sessionId, ta.merchant.liveKey)
  assert.equal(s.body.status, 'processing')
  assert.equal(s.body.record, undefined)
  assert.equal((await ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [sessionId])).rows[0].n, 0)
  assert.deepEqual(await eventsWhere(ta, 'sessionId', sessionId), [])
  const [d, ...more] = (await discrepancies(ta)).data
  assert.equal(more.length, 0)
  assert.deepEqual([d.kind, d.provider, d.providerConfigId, d.merchantId], ['payment_amount', provider, configId, ta.merchant.id])
  assert.deepEqual(d.expected, { attemptId, ...expected })
  assert.equal(d.report.currency, reported)
  assert.equal(d.report.amount, expected.amount, 'the same number: only the currency differs')
  assert.equal(await metric(ta, provider, 'payment_amount'), 1)
}

test('WeChat Pay: a signed TRANSACTION.SUCCESS reporting USD for a CNY session does not mark it paid', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
  const order = w.order(attempt.id)
  Object.assign(order, { state: 'SUCCESS', transactionId: '4200000000000000000000000001', successTimeMs: w.ta.clock().getTime(), payerOpenid: 'oPayer' })
  const view = transactionView(order)
  await w.fake.notifier.paymentSucceeded(order, order.notifyUrl, { ...view, amount: { total: 9900, payer_total: 9900, currency: 'USD', payer_currency: 'USD' } })
  await refusedAsOtherCurrency(w.ta, 'wechat', w.configId, s.id, attempt.id, { amount: 9900, currency: 'CNY' }, 'USD')
})

test('WeChat Pay Global: a payment of an EUR order reported in USD does not mark the session paid', async (t) => {
  const w = await liveWechat(t, { crossBorder: 'EUR' })
  const s = await w.session({ amount: 1234, currency: 'EUR' })
  const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
  // The order as WeChat keeps it says USD: its notification (and any query) reports USD.
  w.order(attempt.id).currency = 'USD'
  await w.ctl.pay({ out_trade_no: attempt.id })
  await refusedAsOtherCurrency(w.ta, 'wechat', w.configId, s.id, attempt.id, { amount: 1234, currency: 'EUR' }, 'USD')
})

test('Creem: a completed checkout whose order Creem shows in USD does not mark an EUR session paid', async (t) => {
  const c = await creemTill(t)
  const id = await c.session()
  const { attempt } = await c.start(id)
  // The product changed in Creem's dashboard: the order is made in its currency, and the API shows it so.
  const checkout = c.fake.store.checkouts.get(attempt.providerRef!)!
  c.fake.store.products.get(checkout.productId)!.currency = 'USD'
  await c.ctl.complete(attempt.providerRef!)
  await refusedAsOtherCurrency(c.ta, 'creem', c.configId, id, attempt.id, { amount: 1234, currency: 'EUR' }, 'USD')
})

test('WeChat Pay: a dashboard refund of 500 on a payment of 1,000 with 800 of Till\'s pending creates nothing: 200 is refundable', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session({ amount: 1000 })
  const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
  await w.ctl.pay({ out_trade_no: attempt.id })
  const recordId = (await getSession(w.ta, s.id, w.ta.merchant.liveKey)).body.record.id
  const ours = await w.ta.request('POST', '/api/v1/refunds', { key: w.ta.merchant.liveKey, body: { recordId, amount: 800 } })
  assert.deepEqual([ours.body.refund.status, ours.body.refundedAmount], ['pending', 0])
  const order = await w.ctl.order(attempt.id)
  // Refunded in the merchant platform while Till's 800 is still processing there.
  await w.fake.notifier.refundSettled({
    service: 'mainland', currency: 'CNY', mchId: w.creds.mchId, outTradeNo: attempt.id, transactionId: order.transaction_id, total: 1000,
    notifyUrl: `${w.ta.baseUrl}/hooks/wechat/${w.configId}`, createTimeMs: Date.now(), successTimeMs: Date.now(),
    outRefundNo: 'dashboard-1', refundId: '50300000000000000009', refund: 500, status: 'SUCCESS', outcome: 'SUCCESS',
  })
  assert.deepEqual((await refundRows(w.ta, recordId)).map((r) => [r.id, r.status, r.amount]), [[ours.body.refund.id, 'pending', 800]])
  assert.deepEqual(await totals(w.ta, recordId), [0, 'refunding'])
  const d = await onlyDiscrepancy(w.ta, 'refund_amount')
  assert.deepEqual(d.expected, { recordId, refundable: 200, currency: 'CNY' })
  // Till's own refund still settles; then nothing is left that a dashboard refund could add to.
  await w.ctl.tick()
  assert.deepEqual(await totals(w.ta, recordId), [800, 'partially_refunded'])
})

test('WeChat Pay Global: a signed REFUND.SUCCESS of 300 CNY on a JPY record refunds nothing, ours or started outside Till', async (t) => {
  const w = await liveWechat(t, { crossBorder: 'JPY' })
  const s = await w.session({ amount: 1000, currency: 'JPY' })
  const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
  await w.ctl.pay({ out_trade_no: attempt.id })
  const recordId = (await getSession(w.ta, s.id, w.ta.merchant.liveKey)).body.record.id
  const refund = (amount: number) => w.ta.request('POST', '/api/v1/refunds', { key: w.ta.merchant.liveKey, body: { recordId, amount } })
  await refund(334)
  await w.ctl.tick()
  assert.equal((await recordRow(w.ta, recordId)).refunded_amount, 334)
  w.ta.clock.advance(1000)
  const pending = (await refund(300)).body.refund
  const order = await w.ctl.order(attempt.id)
  const forged = {
    service: 'cross_border' as const, currency: 'CNY', mchId: w.creds.mchId, outTradeNo: attempt.id, transactionId: order.id, total: 1000,
    notifyUrl: `${w.ta.baseUrl}/hooks/wechat/${w.configId}`, createTimeMs: Date.now(), successTimeMs: Date.now(), refund: 300, status: 'SUCCESS' as const, outcome: 'SUCCESS' as const,
  }
  // Started outside Till, then one naming Till's pending refund of 300: both in CNY.
  await w.fake.notifier.refundSettled({ ...forged, outRefundNo: 'dashboard-1', refundId: '50300000000000000001' })
  w.ta.clock.advance(1000) // listed newest first
  await w.fake.notifier.refundSettled({ ...forged, outRefundNo: pending.id, refundId: '50300000000000000002' })
  assert.deepEqual(await totals(w.ta, recordId), [334, 'refunding'])
  assert.deepEqual((await refundRows(w.ta, recordId)).map((r) => [r.amount, r.status]), [[334, 'succeeded'], [300, 'pending']])
  assert.deepEqual((await eventsWhere(w.ta, 'refundId', pending.id)).map((e) => e.type), ['refund.pending'])
  const list = (await discrepancies(w.ta)).data
  assert.deepEqual(list.map((d: any) => [d.kind, d.report.currency, d.expected]), [
    ['refund_currency', 'CNY', { refundId: pending.id, currency: 'JPY' }],
    ['refund_currency', 'CNY', { recordId, currency: 'JPY' }],
  ])
  assert.equal(await metric(w.ta, 'wechat', 'refund_currency'), 2)

  // Reconciliation's query reporting the pending refund in CNY: the same, nothing settles.
  w.fake.store.refunds.forEach((r) => { if (r.outRefundNo === pending.id) r.currency = 'CNY' })
  await w.ctl.notifications({ mode: 'drop' })
  await w.ctl.tick()
  w.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(w.ta.deps), 1)
  assert.deepEqual((await refundRows(w.ta, recordId)).map((r) => r.status), ['succeeded', 'pending'])
  assert.equal((await recordRow(w.ta, recordId)).refunded_amount, 334)
  const [fromQuery] = (await discrepancies(w.ta)).data
  assert.deepEqual([fromQuery.kind, fromQuery.report.currency, fromQuery.expected], ['refund_currency', 'CNY', { refundId: pending.id, currency: 'JPY' }])
})

test('Creem: refund.created in USD on a EUR record refunds nothing', async (t) => {
  const c = await creemTill(t)
  const { recordId, checkoutId } = await c.paid()
  const transaction = (await c.ctl.checkout(checkoutId)).order.transaction
  c.fake.store.transactions.get(transaction)!.currency = 'USD'
  await c.ctl.dashboardRefund(transaction, 500)
  assert.deepEqual(await refundRows(c.ta, recordId), [])
  assert.deepEqual(await totals(c.ta, recordId), [0, 'paid'])
  const d = await onlyDiscrepancy(c.ta, 'refund_currency')
  assert.deepEqual([d.report.currency, d.report.amount, d.expected], ['USD', 500, { recordId, currency: 'EUR' }])
})
