/**
 * WeChat Pay end to end through Till: a live merchant whose wechat configuration points
 * settings.apiBase at the fake; the fake's signed, encrypted notifications reach
 * /hooks/wechat/{configId}; refunds go through the API; reconciliation is driven by the clock.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { reconcileAttempts, reconcileRefunds } from '../../src/jobs/reconcile.js'
import { SIGN_SCHEME } from '../../src/providers/wechat/constants.js'
import { beijing, gcmSeal, randomAlnum, signB64, uuid, wechatSigningString } from '../../src/providers/wechat/fake/crypto.js'
import { signer, transactionView } from '../../src/providers/wechat/fake/views.js'
import { toBeijingTime } from '../../src/providers/wechat/wire.js'
import { startAttempt } from '../../src/services/attempts.js'
import { cancelSession, expireDue } from '../../src/services/sessions.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { getSession, refundRecord } from '../helpers/merchant-api.js'
import { eventsWhere } from '../helpers/store-queries.js'
import { startFake } from '../helpers/wechat.js'

async function till(t: TestContext) {
  const ta = await startTestApp(t)
  const { fake, ctl } = await startFake(t, { clock: ta.clock })
  const creds = fake.addMerchant()
  const addConfig = async (label: string, credentials: object) => {
    const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label, credentials, settings: { apiBase: fake.url } })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.id as string
  }
  const configId = await addConfig('main', creds)
  const live = { key: ta.merchant.liveKey }
  const session = async (extra: Record<string, unknown> = {}) => {
    const res = await ta.request('POST', '/api/v1/checkout', { ...live, body: { amount: 9900, currency: 'CNY', description: 'Order #42', providerHints: { wechat: 'main' }, ...extra } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.id as string
  }
  const start = (sessionId: string, channel = 'native', extra: { clientIp?: string; payerId?: string } = {}, cfg = configId) =>
    startAttempt(ta.deps, sessionId, { provider: 'wechat', providerConfigId: cfg, channel, ...extra })
  const read = async (id: string) => (await getSession(ta, id, ta.merchant.liveKey)).body
  const refund = (recordId: string, amount?: number) => refundRecord(ta, recordId, amount, ta.merchant.liveKey)
  const attemptStatus = async (id: string) => (await ta.database.pool.query('select status from attempts where id = $1', [id])).rows[0].status
  /** A session paid through a Native QR, its notification delivered. */
  const paid = async () => {
    const id = await session()
    const { attempt } = await start(id)
    await ctl.pay({ out_trade_no: attempt.id })
    const s = await read(id)
    assert.equal(s.status, 'paid')
    return { id, attemptId: attempt.id, recordId: s.record.id as string }
  }
  return { ta, fake, ctl, creds, configId, addConfig, session, start, read, refund, attemptStatus, paid }
}

const types = async (ta: TestApp, field: 'sessionId' | 'refundId', id: string) => (await eventsWhere(ta, field, id)).map((e) => e.type)

test('a live WeChat session paid by QR: the signed, encrypted notification makes it paid with the transaction id', async (t) => {
  const w = await till(t)
  const id = await w.session()
  const { action, attempt } = await w.start(id)
  assert.equal(action.kind, 'qr')
  assert.equal((await w.read(id)).status, 'processing')
  const order = await w.ctl.order(attempt.id)
  assert.equal(order.description, 'Order #42')
  assert.equal(order.notify_url, `${w.ta.baseUrl}/hooks/wechat/${w.configId}`)
  assert.equal(order.time_expire, toBeijingTime(new Date((await w.read(id)).expiresAt)))
  await w.ctl.pay({ out_trade_no: attempt.id })
  const deliveries = await w.ctl.deliveries()
  assert.deepEqual(deliveries.map((d) => [d.url, d.status, d.acked]), [[`${w.ta.baseUrl}/hooks/wechat/${w.configId}`, 204, true]])
  const s = await w.read(id)
  const paidOrder = await w.ctl.order(attempt.id)
  assert.equal(s.status, 'paid')
  assert.deepEqual({ ...s.record, id: undefined, paidAt: undefined }, { id: undefined, paidAt: undefined, provider: 'wechat', providerRef: paidOrder.transaction_id, amount: 9900, refundedAmount: 0, status: 'paid' })
  assert.equal(s.record.paidAt, w.ta.clock().toISOString().replace(/\.\d{3}Z$/, '.000Z'))
  assert.deepEqual(await types(w.ta, 'sessionId', id), ['payment.succeeded'])
})

test('five deliveries of the payment notification make one record and one event', async (t) => {
  const w = await till(t)
  await w.ctl.notifications({ mode: 'duplicate', count: 5 })
  const { id } = await w.paid()
  assert.deepEqual((await w.ctl.deliveries()).map((d) => d.status), [204, 204, 204, 204, 204])
  assert.deepEqual(await types(w.ta, 'sessionId', id), ['payment.succeeded'])
  assert.equal((await w.ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [id])).rows[0].n, 1)
})

test('a probe is refused by Till and the genuine notification that follows is accepted', async (t) => {
  const w = await till(t)
  await w.ctl.probe()
  await w.paid()
  assert.deepEqual((await w.ctl.deliveries()).map((d) => [d.probe, d.status]), [[true, 401], [false, 204]])
})

test('refunds through the API: PROCESSING is pending until REFUND.SUCCESS; partial refunds add up to refunded', async (t) => {
  const w = await till(t)
  const { id, recordId, attemptId } = await w.paid()
  const first = await w.refund(recordId, 3000)
  assert.equal(first.status, 200, JSON.stringify(first.body))
  assert.equal(first.body.status, 'refunding')
  assert.equal(first.body.refund.status, 'pending')
  assert.match(first.body.refund.providerRef, /^50\d{27}$/)
  await w.ctl.tick()
  assert.deepEqual(await types(w.ta, 'refundId', first.body.refund.id), ['refund.pending', 'refund.succeeded'])
  assert.equal((await w.read(id)).record.status, 'partially_refunded')

  const rest = await w.refund(recordId)
  assert.equal(rest.body.refund.amount, 6900)
  await w.ctl.tick()
  const after = await w.read(id)
  assert.equal(after.status, 'refunded')
  assert.equal(after.record.status, 'refunded')
  assert.deepEqual((await w.ctl.order(attemptId)).refunds.map((r: any) => [r.out_refund_no, r.amount.refund, r.status]), [
    [first.body.refund.id, 3000, 'SUCCESS'], [rest.body.refund.id, 6900, 'SUCCESS'],
  ])
  const over = await w.refund(recordId, 1)
  assert.deepEqual([over.status, over.body], [400, { error: 'amount exceeds refundable', code: 'already_refunded', refundable: 0, detail: 'the record is already refunded in full' }])
})

test('an ABNORMAL refund stays pending with its amount reserved, and is recorded when the merchant settles it', async (t) => {
  const w = await till(t)
  const { id, recordId } = await w.paid()
  await w.ctl.refundOutcome({ status: 'ABNORMAL' })
  const res = await w.refund(recordId, 1000)
  assert.equal(res.body.refund.status, 'pending')
  w.ta.clock.advance(1000)
  await w.ctl.tick()
  assert.deepEqual(await types(w.ta, 'refundId', res.body.refund.id), ['refund.pending'])
  assert.equal((await w.read(id)).record.status, 'refunding')
  const more = await w.refund(recordId, 9000)
  assert.deepEqual([more.status, more.body], [400, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 8900 }])
  await w.ctl.refundResolve({ out_refund_no: res.body.refund.id, status: 'SUCCESS' })
  assert.deepEqual(await types(w.ta, 'refundId', res.body.refund.id), ['refund.pending', 'refund.succeeded'])
  assert.equal((await w.read(id)).record.status, 'partially_refunded')
})

test('a refund WeChat closes is failed with its reason, and the amount is refundable again', async (t) => {
  const w = await till(t)
  const { id, recordId } = await w.paid()
  await w.ctl.refundOutcome({ status: 'CLOSED' })
  const res = await w.refund(recordId, 1000)
  w.ta.clock.advance(1000)
  await w.ctl.tick()
  const { rows } = await w.ta.database.pool.query('select status, failure_reason from refunds where id = $1', [res.body.refund.id])
  assert.deepEqual(rows[0], { status: 'failed', failure_reason: 'CLOSED: the refund was closed by WeChat Pay' })
  assert.equal((await w.read(id)).record.status, 'paid')
})

test('reordered refund notifications settle each refund once', async (t) => {
  const w = await till(t)
  const { recordId } = await w.paid()
  const a = (await w.refund(recordId, 1000)).body.refund.id
  const b = (await w.refund(recordId, 2000)).body.refund.id
  await w.ctl.notifications({ mode: 'reorder' })
  await w.ctl.tick()
  const refunds = (await w.ctl.deliveries()).filter((d) => d.eventType === 'REFUND.SUCCESS').map((d) => d.ref)
  assert.deepEqual(refunds, [b, a], 'the second refund\'s notification arrived first')
  assert.deepEqual(await types(w.ta, 'refundId', a), ['refund.pending', 'refund.succeeded'])
  assert.deepEqual(await types(w.ta, 'refundId', b), ['refund.pending', 'refund.succeeded'])
  assert.equal((await w.refund(recordId)).body.refund.amount, 6900)
})

test('a dropped payment notification: reconciliation asks WeChat and records the payment', async (t) => {
  const w = await till(t)
  await w.ctl.notifications({ mode: 'drop' })
  const id = await w.session()
  const { attempt } = await w.start(id)
  await w.ctl.pay({ out_trade_no: attempt.id })
  assert.equal((await w.read(id)).status, 'processing')
  w.ta.clock.advance(59_000)
  assert.equal(await reconcileAttempts(w.ta.deps), 0, 'not due before its first check')
  w.ta.clock.advance(1_000)
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  const s = await w.read(id)
  assert.equal(s.status, 'paid')
  assert.equal(s.record.providerRef, (await w.ctl.order(attempt.id)).transaction_id)
  assert.deepEqual(await types(w.ta, 'sessionId', id), ['payment.succeeded'])
})

test('a dropped refund notification: reconciliation asks WeChat and settles the refund', async (t) => {
  const w = await till(t)
  const { recordId, id } = await w.paid()
  await w.ctl.notifications({ mode: 'drop' })
  const r = (await w.refund(recordId)).body.refund.id
  await w.ctl.tick()
  assert.deepEqual(await types(w.ta, 'refundId', r), ['refund.pending'])
  w.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(w.ta.deps), 1)
  assert.deepEqual(await types(w.ta, 'refundId', r), ['refund.pending', 'refund.succeeded'])
  assert.equal((await w.read(id)).status, 'refunded')
})

test('a refund whose reply was lost stays pending; reconciliation finds it at WeChat', async (t) => {
  const w = await till(t)
  const { recordId } = await w.paid()
  await w.ctl.notifications({ mode: 'drop' })
  await w.ctl.error({ route: 'refund', status: 500, code: 'SYSTEM_ERROR', applied: true })
  const res = await w.refund(recordId, 500)
  assert.equal(res.body.refund.status, 'pending')
  assert.equal(res.body.refund.providerRef, null)
  await w.ctl.tick()
  w.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(w.ta.deps), 1)
  assert.deepEqual(await types(w.ta, 'refundId', res.body.refund.id), ['refund.pending', 'refund.succeeded'])
  assert.equal((await w.ctl.refund(res.body.refund.id)).status, 'SUCCESS')
})

test('a refund WeChat never received (a 5xx before acting): reconciliation finds none and sends it again with the same out_refund_no; it refunds once', async (t) => {
  const w = await till(t)
  const { id, recordId } = await w.paid()
  await w.ctl.error({ route: 'refund', status: 500, code: 'SYSTEM_ERROR' })
  const res = await w.refund(recordId, 500)
  assert.deepEqual([res.body.refund.status, res.body.status], ['pending', 'refunding'])
  const refundId = res.body.refund.id as string
  w.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(w.ta.deps), 1)
  await w.ctl.tick()
  assert.deepEqual(await types(w.ta, 'refundId', refundId), ['refund.pending', 'refund.succeeded'])
  assert.equal((await w.ctl.refund(refundId)).status, 'SUCCESS')
  const sent = (await w.ctl.requests()).filter((r) => r.path === '/v3/refund/domestic/refunds')
  assert.deepEqual(sent.map((r) => [r.status, r.request?.out_refund_no]), [[500, refundId], [200, refundId]])
  const s = await w.read(id)
  assert.deepEqual([s.record.status, s.record.refundedAmount], ['partially_refunded', 500])
})

test('a refund whose call and first lookup both have no known outcome is not sent again until WeChat shows none', async (t) => {
  const w = await till(t)
  const { recordId } = await w.paid()
  await w.ctl.error({ route: 'refund', status: 500, code: 'SYSTEM_ERROR' })
  const res = await w.refund(recordId, 500)
  const refundId = res.body.refund.id as string
  await w.ctl.error({ route: 'queryRefund', status: 500, code: 'SYSTEM_ERROR' })
  w.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(w.ta.deps), 1)
  const sent = async () => (await w.ctl.requests()).filter((r) => r.path === '/v3/refund/domestic/refunds').map((r) => r.status)
  assert.deepEqual(await sent(), [500], 'a lookup that failed is no answer: nothing is sent again')
  assert.deepEqual(await types(w.ta, 'refundId', refundId), ['refund.pending'])
  w.ta.clock.advance(3600_000)
  assert.equal(await reconcileRefunds(w.ta.deps), 1)
  assert.deepEqual(await sent(), [500, 200])
})

test('expiry: the sweep and reconciliation close the WeChat order', async (t) => {
  const w = await till(t)
  const id = await w.session({ expiresInSeconds: 60 })
  const { attempt } = await w.start(id)
  w.ta.clock.advance(61_000)
  assert.equal(await expireDue(w.ta.deps), 1)
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  assert.equal(await w.attemptStatus(attempt.id), 'closed')
  assert.equal((await w.ctl.order(attempt.id)).trade_state, 'CLOSED')
  assert.equal((await w.read(id)).status, 'expired')
  assert.deepEqual(await types(w.ta, 'sessionId', id), ['session.expired'])
})

test('switching channel closes the first order at WeChat; a close that finds it paid records the payment', async (t) => {
  const w = await till(t)
  const id = await w.session()
  const first = (await w.start(id)).attempt
  const second = (await w.start(id, 'h5', { clientIp: '203.0.113.9' })).attempt
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  assert.equal(await w.attemptStatus(first.id), 'closed')
  assert.equal((await w.ctl.order(first.id)).trade_state, 'CLOSED')
  assert.ok((await w.ctl.requests()).some((r) => r.path === `/v3/pay/transactions/out-trade-no/${first.id}/close` && r.status === 204))
  assert.equal(await w.attemptStatus(second.id), 'processing')

  // The customer pays the QR just as Till closes it, and the notification is lost: the close must surface the money.
  const other = await w.session()
  const qr = (await w.start(other)).attempt
  await w.ctl.notifications({ mode: 'drop', persist: true })
  await w.ctl.pay({ out_trade_no: qr.id }, { at: 'close' })
  await w.start(other, 'h5', { clientIp: '203.0.113.9' })
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  const s = await w.read(other)
  assert.equal(s.status, 'paid')
  assert.equal(s.record.providerRef, (await w.ctl.order(qr.id)).transaction_id)
  assert.equal(await w.attemptStatus(qr.id), 'succeeded')
  assert.deepEqual(await types(w.ta, 'sessionId', other), ['payment.succeeded'])
})

test('a payment confirmed after the customer canceled is still recorded', async (t) => {
  const w = await till(t)
  const id = await w.session()
  const { attempt } = await w.start(id)
  await cancelSession(w.ta.deps, id)
  assert.equal((await w.read(id)).status, 'canceled')
  w.ta.clock.advance(1000)
  await w.ctl.pay({ out_trade_no: attempt.id })
  assert.equal((await w.read(id)).status, 'paid')
  assert.deepEqual(await types(w.ta, 'sessionId', id), ['session.canceled', 'payment.succeeded'])
})

test('a genuine notification posted to another configuration\'s URL does not touch this session', async (t) => {
  const w = await till(t)
  const sameKeys = await w.addConfig('second', w.creds)
  const otherMerchant = await w.addConfig('third', w.fake.addMerchant())
  await w.ctl.notifications({ mode: 'drop' })
  const id = await w.session()
  const { attempt } = await w.start(id)
  await w.ctl.pay({ out_trade_no: attempt.id })
  // Same keys: verified and decrypted, but the attempt belongs to "main", so nothing changes.
  await w.ctl.resend({ out_trade_no: attempt.id }, `${w.ta.baseUrl}/hooks/wechat/${sameKeys}`)
  // Another merchant's configuration: its APIv3 key cannot open it, refused so WeChat would retry elsewhere.
  await w.ctl.resend({ out_trade_no: attempt.id }, `${w.ta.baseUrl}/hooks/wechat/${otherMerchant}`)
  assert.deepEqual((await w.ctl.deliveries()).map((d) => d.status), [null, 204, 400])
  assert.equal((await w.read(id)).status, 'processing')
  assert.deepEqual(await types(w.ta, 'sessionId', id), [])
  await w.ctl.resend({ out_trade_no: attempt.id })
  assert.equal((await w.read(id)).status, 'paid')
})

test('a notification is verified over its raw bytes: pretty-printed and signed as sent it pays; signed over its compact form it is refused', async (t) => {
  const w = await till(t)
  await w.ctl.notifications({ mode: 'drop' })
  const id = await w.session()
  const { attempt } = await w.start(id)
  await w.ctl.pay({ out_trade_no: attempt.id })
  // TRANSACTION.SUCCESS as the fake seals it, its envelope laid out with indentation.
  const store = w.fake.store
  const sealNonce = randomAlnum(12)
  const plain = JSON.stringify(transactionView(store.order(w.creds.mchId, attempt.id)!))
  const envelope = {
    id: uuid(), create_time: beijing(store.nowMs()), resource_type: 'encrypt-resource', event_type: 'TRANSACTION.SUCCESS', summary: '支付成功',
    resource: { original_type: 'transaction', algorithm: 'AEAD_AES_256_GCM', ciphertext: gcmSeal(store.merchants.get(w.creds.mchId)!.apiV3Key, sealNonce, 'transaction', plain), associated_data: 'transaction', nonce: sealNonce },
  }
  const pretty = JSON.stringify(envelope, null, 2)
  const post = (signedOver: string) => {
    const ts = String(Math.floor(w.ta.clock().getTime() / 1000))
    const nonce = randomAlnum(32)
    const who = signer(store)
    const headers = {
      'wechatpay-timestamp': ts, 'wechatpay-nonce': nonce, 'wechatpay-serial': who.serial, 'wechatpay-signature-type': SIGN_SCHEME,
      'wechatpay-signature': signB64(who.key, wechatSigningString(ts, nonce, signedOver)),
    }
    return w.ta.request('POST', `/hooks/wechat/${w.configId}`, { raw: pretty, headers })
  }
  const compact = await post(JSON.stringify(envelope))
  assert.equal(compact.status, 401)
  assert.equal((await w.read(id)).status, 'processing')
  const asSent = await post(pretty)
  assert.equal(asSent.status, 204)
  assert.equal((await w.read(id)).status, 'paid')
  assert.deepEqual(await types(w.ta, 'sessionId', id), ['payment.succeeded'])
})

test('a genuine refund notification posted to another configuration of the same keys leaves the refund pending: unknown_refund', async (t) => {
  const w = await till(t)
  const sameKeys = await w.addConfig('second', w.creds)
  const { id, recordId } = await w.paid()
  await w.ctl.notifications({ mode: 'drop' })
  const refundId = (await w.refund(recordId)).body.refund.id
  await w.ctl.tick()
  // Verified and decrypted under "second", but Till made the refund under "main".
  await w.ctl.resend({ out_refund_no: refundId }, `${w.ta.baseUrl}/hooks/wechat/${sameKeys}`)
  assert.deepEqual((await w.ctl.deliveries()).map((d) => [d.eventType, d.status]), [['TRANSACTION.SUCCESS', 204], ['REFUND.SUCCESS', null], ['REFUND.SUCCESS', 204]])
  const s = await w.read(id)
  assert.deepEqual([s.status, s.record.status, s.record.refundedAmount], ['paid', 'refunding', 0])
  assert.deepEqual(await types(w.ta, 'refundId', refundId), ['refund.pending'])
  const { data: [d, ...more] } = (await w.ta.admin('GET', '/discrepancies')).body
  assert.deepEqual([more.length, d.kind, d.providerConfigId, d.report.refundId], [0, 'unknown_refund', sameKeys, refundId])
  // The same notification at its own configuration settles it.
  await w.ctl.resend({ out_refund_no: refundId })
  assert.equal((await w.read(id)).status, 'refunded')
})

test('canceling a session closes its open WeChat order at the next reconciliation', async (t) => {
  const w = await till(t)
  const id = await w.session()
  const { attempt } = await w.start(id)
  await cancelSession(w.ta.deps, id)
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  assert.equal(await w.attemptStatus(attempt.id), 'closed')
  assert.equal((await w.ctl.order(attempt.id)).trade_state, 'CLOSED')
  assert.deepEqual((await w.ctl.requests()).slice(1).map((r) => [r.method, r.path.split('?')[0], r.status]), [
    ['GET', `/v3/pay/transactions/out-trade-no/${attempt.id}`, 200],
    ['POST', `/v3/pay/transactions/out-trade-no/${attempt.id}/close`, 204],
  ])
})

test('a notification whose amount differs from the session is acknowledged but not recorded as paid', async (t) => {
  const w = await till(t)
  const id = await w.session()
  const { attempt } = await w.start(id)
  // WeChat reporting another amount than the one ordered (a fault we cannot cause through the protocol).
  w.fake.store.order(w.creds.mchId, attempt.id)!.total = 1
  await w.ctl.pay({ out_trade_no: attempt.id })
  assert.deepEqual((await w.ctl.deliveries()).map((d) => d.status), [204])
  assert.equal((await w.read(id)).status, 'processing')
  assert.deepEqual(await types(w.ta, 'sessionId', id), [])
})
