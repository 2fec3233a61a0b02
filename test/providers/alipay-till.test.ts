/**
 * Alipay end to end through Till: a live merchant whose alipay configuration points
 * settings.apiBase at `till fake alipay`; the fake's signed notifications reach
 * /hooks/alipay/{configId}; the cashier's return comes through the relay; refunds go through the
 * API; reconciliation is driven by the clock.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { deliverDue } from '../../src/jobs/outbox.js'
import { reconcileAttempts, reconcileRefunds } from '../../src/jobs/reconcile.js'
import { configFor } from '../../src/services/attempts.js'
import { cancelSession, expireDue } from '../../src/services/sessions.js'
import { alipayTill, type AlipayTill } from '../helpers/alipay-till.js'
import { relayWait } from '../helpers/pages.js'
import { createEndpoint, startReceiver, TRUST_TEST_CA } from '../helpers/receiver.js'
import { refundRows } from '../helpers/store-queries.js'

const SUCCESS_URL = 'https://shop.example/thanks?order=42'

const discrepancies = async (a: AlipayTill) => (await a.ta.admin('GET', '/discrepancies')).body.data as { kind: string; report: Record<string, unknown> }[]

/** The customer's browser: the gateway URL, the cashier, paying, and back through the relay. */
async function payOnCashier(a: AlipayTill, url: string) {
  const gateway = await fetch(url, { redirect: 'manual' })
  assert.equal(gateway.status, 302, await gateway.text())
  const paid = await fetch(gateway.headers.get('location')!, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
  const back = new URL(paid.headers.get('location')!)
  const relay = await fetch(a.ta.baseUrl + back.pathname + back.search, { redirect: 'manual' })
  return { back, status: relay.status, location: relay.headers.get('location') ?? '', wait: relayWait(relay.headers) }
}

test('a live Alipay session paid by QR: the verified notification makes it paid with Alipay\'s trade_no, once, and the merchant\'s webhook hears of it', async (t) => {
  const a = await alipayTill(t, { config: { webhookAllowPrivate: true } })
  const rx = await startReceiver(t, undefined, { tls: true })
  await createEndpoint(a.ta, rx.url, {}, a.ta.merchant.liveKey)
  await a.ctl.notifications({ mode: 'duplicate', count: 3 })
  const id = await a.session()
  const { action, attempt } = await a.start(id)
  assert.equal(action.kind, 'qr')
  const order = await a.ctl.order(attempt.id)
  assert.deepEqual([order.total_amount, order.notify_url, order.subject], ['88.88', `${a.ta.baseUrl}/hooks/alipay/${a.configId}`, 'Blue mug'])
  assert.equal(order.time_expire.length, 19)
  await a.ctl.pay({ out_trade_no: attempt.id })
  assert.deepEqual((await a.ctl.deliveries()).map((d) => [d.status, d.acked]), [[200, true], [200, true], [200, true]])
  const s = await a.read(id)
  const paidOrder = await a.ctl.order(attempt.id)
  assert.equal(s.status, 'paid')
  assert.deepEqual({ ...s.record, id: undefined, paidAt: undefined }, { id: undefined, paidAt: undefined, provider: 'alipay', providerRef: paidOrder.trade_no, amount: 8888, refundedAmount: 0, status: 'paid' })
  assert.equal(s.chosenProvider, 'alipay')
  assert.deepEqual(await a.types('sessionId', id), ['payment.succeeded'])
  await deliverDue(a.ta.deps, { tls: TRUST_TEST_CA })
  const [hook] = await rx.received(1)
  assert.equal(hook.json.type, 'payment.succeeded')
  assert.deepEqual([hook.json.data.sessionId, hook.json.data.provider, hook.json.data.providerRef, hook.json.data.amount, hook.json.data.currency], [id, 'alipay', paidOrder.trade_no, 8888, 'CNY'])
})

test('page pay and wap pay: paid on the cashier, back through the relay with paid_confirmed=1, even with the notification lost', async (t) => {
  const a = await alipayTill(t)
  await a.ctl.notifications({ mode: 'drop', persist: true })
  for (const channel of ['page', 'wap']) {
    const id = await a.session({ successUrl: SUCCESS_URL })
    const { action, attempt } = await a.start(id, channel)
    assert.equal(action.kind, 'redirect')
    const r = await payOnCashier(a, (action as { url: string }).url)
    // A buyer who leaves the mobile cashier unpaid comes back to the checkout page to choose again.
    assert.equal((await a.ctl.order(attempt.id)).quit_url, channel === 'wap' ? `${a.ta.baseUrl}/c/${id}` : null)
    assert.equal(r.back.pathname, `/c/${id}/done`)
    // Alipay's signed return made Till ask alipay.trade.query at once: paid before the relay had to wait.
    assert.equal(r.wait, 'none', channel)
    const s = await a.read(id)
    assert.equal(s.status, 'paid', channel)
    assert.deepEqual([r.status, r.location], [303, `https://shop.example/thanks?order=42&session_id=${id}&record_id=${s.record.id}&paid_confirmed=1`])
    assert.deepEqual(await a.types('sessionId', id), ['payment.succeeded'])
  }
})

test('a forged return changes nothing: Alipay is not asked and the relay says not confirmed', async (t) => {
  const a = await alipayTill(t, { config: { relayWaitMs: 500 } })
  const id = await a.session({ successUrl: SUCCESS_URL })
  const { attempt } = await a.start(id, 'page')
  const queries = async () => (await a.ctl.requests()).filter((r) => r.method === 'alipay.trade.query').length
  const forged = `/c/${id}/done?out_trade_no=${attempt.id}&app_id=${a.app.appId}&total_amount=88.88&trade_no=1&sign_type=RSA2&sign=${'A'.repeat(344)}`
  const res = await fetch(a.ta.baseUrl + forged, { redirect: 'manual' })
  assert.equal(relayWait(res.headers), 'timeout')
  assert.match(res.headers.get('location')!, /paid_confirmed=0$/)
  assert.equal(await queries(), 0)
  assert.equal((await a.read(id)).status, 'processing')
})

test('Till failing to take a notification: Alipay sends it again 4 minutes later and it is taken once', async (t) => {
  const a = await alipayTill(t)
  const adapter = a.ta.deps.providers.get('alipay')!
  const parse = adapter.parseNotification
  let failures = 1
  adapter.parseNotification = async (cfg, raw) => {
    if (failures-- > 0) throw new Error('database briefly away')
    return parse(cfg, raw)
  }
  t.after(() => {
    adapter.parseNotification = parse
  })
  const id = await a.session()
  const { attempt } = await a.start(id)
  await a.ctl.pay({ out_trade_no: attempt.id })
  assert.equal((await a.read(id)).status, 'processing')
  const { advancedMs } = await a.ctl.advance({ next: true })
  assert.equal(advancedMs, 240_000)
  assert.deepEqual((await a.ctl.deliveries()).map((d) => [d.attempt, d.status, d.acked]), [[0, 500, false], [1, 200, true]])
  assert.equal((await a.read(id)).status, 'paid')
  await a.ctl.resend({ out_trade_no: attempt.id })
  assert.deepEqual(await a.types('sessionId', id), ['payment.succeeded'])
})

test('a genuine notification with another amount or currency is taken but changes nothing: a discrepancy', async (t) => {
  const a = await alipayTill(t)
  const cases: Record<string, string>[] = [{ total_amount: '0.01' }, { trans_currency: 'USD' }]
  for (const fields of cases) {
    const id = await a.session()
    const { attempt } = await a.start(id)
    await a.ctl.tamper({ fields, resign: true })
    await a.ctl.pay({ out_trade_no: attempt.id })
    assert.equal((await a.ctl.deliveries()).at(-1)!.acked, true, 'answered success: Alipay must not keep sending it')
    assert.equal((await a.read(id)).status, 'processing')
    assert.deepEqual(await a.types('sessionId', id), [])
  }
  const found = await discrepancies(a)
  assert.deepEqual(found.map((d) => [d.kind, d.report.amount, d.report.currency]).sort(), [['payment_amount', 1, 'CNY'], ['payment_amount', 8888, 'USD']])
})

test('refunds through the API: partial, then the rest; the record refunded; each refund once at Alipay under its own out_request_no', async (t) => {
  const a = await alipayTill(t)
  const { id, recordId, attemptId } = await a.paid()
  const first = await a.refund(recordId, 1000)
  assert.equal(first.status, 200, JSON.stringify(first.body))
  assert.deepEqual([first.body.refund.status, first.body.status, first.body.refundedAmount], ['succeeded', 'partially_refunded', 1000])
  const rest = await a.refund(recordId)
  assert.deepEqual([rest.body.refund.status, rest.body.status, rest.body.refundedAmount], ['succeeded', 'refunded', 8888])
  assert.equal((await a.read(id)).status, 'refunded')
  const order = await a.ctl.order(attemptId)
  assert.deepEqual(order.refunds.map((r: { out_request_no: string; refund_amount: string }) => [r.out_request_no, r.refund_amount]), [[first.body.refund.id, '10.00'], [rest.body.refund.id, '78.88']])
  assert.deepEqual(await a.types('refundId', first.body.refund.id), ['refund.succeeded'])
  assert.deepEqual(await a.types('refundId', rest.body.refund.id), ['refund.succeeded'])
  // Alipay's own refund notices (trade_status_sync with refund fields) are taken and change nothing more.
  await a.ctl.tick()
  assert.deepEqual((await a.ctl.deliveries()).map((d) => [d.kind, d.acked]), [['payment', true], ['refund', true], ['refund', true]])
  assert.deepEqual(await a.types('sessionId', id), ['payment.succeeded', 'refund.succeeded', 'refund.succeeded'])
  const refused = await a.refund(recordId, 1)
  assert.equal(refused.status, 400)
})

test('a refund Alipay refuses fails with Alipay\'s reason, and its amount is refundable again', async (t) => {
  const a = await alipayTill(t)
  const { recordId } = await a.paid()
  await a.ctl.error({ route: 'refund', sub_code: 'ACQ.SELLER_BALANCE_NOT_ENOUGH', sub_msg: '卖家余额不足' })
  const res = await a.refund(recordId, 500)
  assert.equal(res.body.refund.status, 'failed')
  const [row] = await refundRows(a.ta, recordId)
  assert.match(row.failure_reason, /^ACQ\.SELLER_BALANCE_NOT_ENOUGH: .*卖家余额不足/)
  assert.equal((await a.refund(recordId)).body.refund.status, 'succeeded')
})

test('a refund whose answer was lost stays pending; reconciliation finds it at Alipay; it was made once', async (t) => {
  const a = await alipayTill(t)
  const { recordId, attemptId } = await a.paid()
  await a.ctl.error({ route: 'refund', sub_code: 'ACQ.SYSTEM_ERROR', applied: true })
  const res = await a.refund(recordId, 500)
  assert.deepEqual([res.body.refund.status, res.body.status], ['pending', 'refunding'])
  a.ta.clock.advance(30_000)
  // Alipay shows it; the minute Till gives a refund to appear only matters when it does not.
  assert.equal(await reconcileRefunds(a.ta.deps), 1)
  assert.deepEqual(await a.types('refundId', res.body.refund.id), ['refund.pending', 'refund.succeeded'])
  assert.equal((await a.ctl.order(attemptId)).refunds.length, 1)
})

test('a refund Alipay never received (a system error before acting): reconciliation finds none and sends it again with the same out_request_no; it refunds once', async (t) => {
  const a = await alipayTill(t)
  const { id, recordId, attemptId } = await a.paid()
  await a.ctl.error({ route: 'refund', sub_code: 'ACQ.SYSTEM_ERROR' })
  const res = await a.refund(recordId, 500)
  assert.deepEqual([res.body.refund.status, res.body.status], ['pending', 'refunding'])
  const refundId = res.body.refund.id as string
  // Within its first minute a refund Alipay does not show may still appear: nothing is sent.
  a.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(a.ta.deps), 1)
  assert.deepEqual(await a.types('refundId', refundId), ['refund.pending'])
  a.ta.clock.advance(60_000)
  assert.equal(await reconcileRefunds(a.ta.deps), 1)
  assert.deepEqual(await a.types('refundId', refundId), ['refund.pending', 'refund.succeeded'])
  const refunds = (await a.ctl.order(attemptId)).refunds as { out_request_no: string; refund_amount: string }[]
  assert.deepEqual(refunds.map((r) => [r.out_request_no, r.refund_amount]), [[refundId, '5.00']])
  assert.equal((await a.ctl.requests()).filter((r) => r.method === 'alipay.trade.refund').length, 2)
  const s = await a.read(id)
  assert.deepEqual([s.record.status, s.record.refundedAmount], ['partially_refunded', 500])
})

test('a crash between the reservation and the call: reconciliation sends the refund with the same out_request_no, and it refunds once', async (t) => {
  const a = await alipayTill(t)
  const { recordId, attemptId, id } = await a.paid()
  const now = a.ta.clock()
  // What a crash leaves: the refund reserved and committed, the record refunding, Alipay never asked.
  const crashed = async (amount: number) => {
    const refundId = newId('ref')
    await a.ta.database.pool.query(
      `insert into refunds (id, record_id, merchant_id, mode, amount, status, next_check_at, created_at, updated_at) values ($1, $2, $3, 'live', $4, 'pending', $5, $5, $5)`,
      [refundId, recordId, a.ta.merchant.id, amount, now],
    )
    await a.ta.database.pool.query(`update records set status = 'refunding' where id = $1`, [recordId])
    return refundId
  }
  const never = await crashed(1000)
  // The second crashed after Alipay took it: the call went out, the answer was never stored.
  const took = await crashed(2000)
  const cfg = await configFor(a.ta.deps, a.ta.deps.db, 'alipay', a.configId)
  await a.ta.deps.providers.get('alipay')!.refund(cfg, {
    refundId: took, amount: 2000, totalAmount: 8888, currency: 'CNY', reason: null, payment: { attemptId, providerRef: null, data: {} }, notifyUrl: '',
  })

  a.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(a.ta.deps), 2)
  // Found at Alipay: settled. Not found within a minute of the refund: asked again later, nothing sent.
  assert.deepEqual(await a.types('refundId', took), ['refund.succeeded'])
  assert.deepEqual(await a.types('refundId', never), [])
  assert.equal((await a.ctl.order(attemptId)).refunds.length, 1)

  a.ta.clock.advance(60_000)
  assert.equal(await reconcileRefunds(a.ta.deps), 1)
  assert.deepEqual(await a.types('refundId', never), ['refund.succeeded'])
  const refunds = (await a.ctl.order(attemptId)).refunds as { out_request_no: string; refund_amount: string }[]
  assert.deepEqual(refunds.map((r) => [r.out_request_no, r.refund_amount]).sort(), [[never, '10.00'], [took, '20.00']].sort())
  const s = await a.read(id)
  assert.deepEqual([s.record.status, s.record.refundedAmount], ['partially_refunded', 3000])
  // Settled refunds are not asked about again, and nothing is sent twice.
  a.ta.clock.advance(3600_000)
  assert.equal(await reconcileRefunds(a.ta.deps), 0)
  assert.equal((await a.ctl.requests()).filter((r) => r.method === 'alipay.trade.refund').length, 2)
})

test('expiry: the order expires at Alipay with the session; one never scanned is closed by Till (ACQ.TRADE_NOT_EXIST counts as closed)', async (t) => {
  const a = await alipayTill(t)
  const scanned = await a.session({ expiresInSeconds: 60 })
  const never = await a.session({ expiresInSeconds: 60 })
  const { attempt: s1 } = await a.start(scanned)
  const { attempt: s2 } = await a.start(never, 'page')
  await a.ctl.scan({ out_trade_no: s1.id })
  a.ta.clock.advance(61_000)
  assert.equal(await expireDue(a.ta.deps), 2)
  assert.equal(await reconcileAttempts(a.ta.deps), 2)
  assert.deepEqual([await a.attemptStatus(s1.id), await a.attemptStatus(s2.id)], ['closed', 'closed'])
  // time_expire was the session's expiry: Alipay closed the scanned trade itself, and says so.
  assert.equal((await a.ctl.order(s1.id)).trade_status, 'TRADE_CLOSED')
  const closes = (await a.ctl.requests()).filter((r) => r.method === 'alipay.trade.close')
  assert.deepEqual(closes.map((r) => [JSON.parse(r.params.biz_content).out_trade_no, r.answer]), [[s2.id, { code: '40004', sub_code: 'ACQ.TRADE_NOT_EXIST' }]])
  for (const id of [scanned, never]) {
    assert.equal((await a.read(id)).status, 'expired')
    assert.deepEqual(await a.types('sessionId', id), ['session.expired'])
  }
})

test('canceling a session closes its open Alipay order at the next reconciliation; a close that finds it paid records the payment', async (t) => {
  const a = await alipayTill(t)
  const id = await a.session()
  const { attempt } = await a.start(id)
  await a.ctl.scan({ out_trade_no: attempt.id })
  await cancelSession(a.ta.deps, id)
  assert.equal(await reconcileAttempts(a.ta.deps), 1)
  assert.equal(await a.attemptStatus(attempt.id), 'closed')
  assert.equal((await a.ctl.order(attempt.id)).trade_status, 'TRADE_CLOSED')
  assert.deepEqual((await a.ctl.requests()).filter((r) => r.method === 'alipay.trade.close').map((r) => r.answer), [{ code: '10000' }])

  // The customer pays just as Till closes, and the notification is lost: the close surfaces the money.
  const other = await a.session()
  const { attempt: racing } = await a.start(other)
  await a.ctl.scan({ out_trade_no: racing.id })
  await a.ctl.notifications({ mode: 'drop', persist: true })
  await a.ctl.pay({ out_trade_no: racing.id }, { at: 'close' })
  await cancelSession(a.ta.deps, other)
  a.ta.clock.advance(1000)
  assert.equal(await reconcileAttempts(a.ta.deps), 1)
  const s = await a.read(other)
  assert.equal(s.status, 'paid')
  assert.equal(s.record.providerRef, (await a.ctl.order(racing.id)).trade_no)
  assert.deepEqual(await a.types('sessionId', other), ['session.canceled', 'payment.succeeded'])
})

test('reconciliation: a payment whose notification was lost is recorded by query; a switched channel\'s order is closed', async (t) => {
  const a = await alipayTill(t)
  await a.ctl.notifications({ mode: 'drop', persist: true })
  const id = await a.session()
  const { attempt: qr } = await a.start(id)
  await a.ctl.pay({ out_trade_no: qr.id })
  assert.equal((await a.read(id)).status, 'processing')
  a.ta.clock.advance(61_000)
  assert.equal(await reconcileAttempts(a.ta.deps), 1)
  const s = await a.read(id)
  assert.equal(s.status, 'paid')
  assert.equal(s.record.providerRef, (await a.ctl.order(qr.id)).trade_no)
  assert.deepEqual(await a.types('sessionId', id), ['payment.succeeded'])

  // The customer scans the QR code, then moves to the cashier page: the QR order is closed.
  const other = await a.session()
  const { attempt: first } = await a.start(other)
  await a.ctl.scan({ out_trade_no: first.id })
  const { attempt: second } = await a.start(other, 'page')
  assert.equal(await reconcileAttempts(a.ta.deps), 1)
  assert.deepEqual([await a.attemptStatus(first.id), await a.attemptStatus(second.id)], ['closed', 'processing'])
  assert.equal((await a.ctl.order(first.id)).trade_status, 'TRADE_CLOSED')
})

test('certificate mode through Till: paid by QR and refunded', async (t) => {
  const a = await alipayTill(t, { mode: 'cert' })
  const { recordId, id } = await a.paid()
  assert.equal((await a.refund(recordId)).body.refund.status, 'succeeded')
  assert.equal((await a.read(id)).status, 'refunded')
  assert.ok((await a.ctl.requests()).every((r) => r.verified === true && r.params.app_cert_sn))
})
