/**
 * The Alipay adapter against `till fake alipay`, in public-key and certificate mode: orders on each
 * channel, notifications (verified, answered `success`, forgeries refused), queries, close, refunds
 * once per out_request_no, the refund query's rules, unknown outcomes, signed returns, and every
 * request the adapter sends checked with Alipay's own SDK.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { generateKeyPairSync } from 'node:crypto'
import type { KeyMode } from '../../src/providers/alipay/fake/store.js'
import { createAlipayProvider } from '../../src/providers/alipay/index.js'
import { ProviderError, type PaymentFact } from '../../src/providers/types.js'
import { sdkAcceptsRequest } from '../helpers/alipay.js'
import { alipayAdapter } from '../helpers/alipay-till.js'

const MODES: KeyMode[] = ['publicKey', 'cert']
const isError = (outcome: 'rejected' | 'unknown', code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === outcome && e.code === code
const refundRef = (refundId: string, attemptId: string, amount: number, createdAt: Date) => ({ refundId, providerRefundRef: null, amount, createdAt, payment: { attemptId, providerRef: null, data: {} } })
const refundInput = (refundId: string, attemptId: string, amount: number, totalAmount = 8888) => ({
  refundId, amount, totalAmount, currency: 'CNY' as const, reason: 'damaged', payment: { attemptId, providerRef: null, data: {} }, notifyUrl: 'http://127.0.0.1:9/unused',
})

for (const mode of MODES) {
  test(`${mode} mode: a QR order paid; the notification verified, answered success, its amount exact; the query agrees`, async (t) => {
    const s = await alipayAdapter(t, { mode })
    const a = s.attempt({ amount: 115 })
    const created = await s.provider.createAttempt(s.cfg, a)
    assert.equal(created.action.kind, 'qr')
    const qr = (created.action as { content: string }).content
    assert.match(qr, /^https:\/\/qr\.alipay\.com\//)
    assert.deepEqual(created.data, { channel: 'precreate', qrCode: qr })
    const order = await s.ctl.order(a.attemptId)
    assert.deepEqual([order.total_amount, order.subject, order.product, order.notify_url, order.time_expire], ['1.15', 'Blue mug', 'precreate', s.rx.url, '2026-05-20 13:00:00'])
    // Not scanned: no trade at Alipay yet, which is not a failure.
    assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} }), { status: 'pending' })

    await s.ctl.pay({ qr_code: qr })
    const paid = await s.ctl.order(a.attemptId)
    assert.equal(s.rx.received.length, 1)
    assert.equal(s.rx.received[0].result.ack.body, 'success')
    assert.deepEqual(s.rx.received[0].result.facts, [{ kind: 'payment', attemptId: a.attemptId, status: 'succeeded', providerRef: paid.trade_no, amount: 115, currency: 'CNY', paidAt: s.clock() }])
    assert.deepEqual((await s.ctl.deliveries()).map((d) => [d.status, d.acked]), [[200, true]])
    const state = await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} })
    assert.deepEqual(state, { status: 'succeeded', providerRef: paid.trade_no, amount: 115, currency: 'CNY', paidAt: s.clock() })
  })

  test(`${mode} mode: page and wap pay are signed cashier URLs the fake serves; the signed return names the attempt`, async (t) => {
    const s = await alipayAdapter(t, { mode })
    for (const channel of ['page', 'wap'] as const) {
      const a = s.attempt({ channel })
      const created = await s.provider.createAttempt(s.cfg, a)
      assert.equal(created.action.kind, 'redirect')
      const url = new URL((created.action as { url: string }).url)
      assert.equal(`${url.origin}${url.pathname}`, `${s.fake.url}/gateway.do`)
      assert.equal(url.searchParams.get('method'), channel === 'page' ? 'alipay.trade.page.pay' : 'alipay.trade.wap.pay')
      assert.equal(url.searchParams.get('return_url'), a.returnUrl)
      assert.deepEqual(JSON.parse(url.searchParams.get('biz_content')!).product_code, channel === 'page' ? 'FAST_INSTANT_TRADE_PAY' : 'QUICK_WAP_WAY')
      // The browser's GET: the gateway accepts the signature and sends it on to the cashier.
      const res = await fetch(url, { redirect: 'manual' })
      assert.equal(res.status, 302, await res.text())
      const cashier = res.headers.get('location')!
      assert.match(cashier, /\/__fake\/alipay\/cashier\/\w+$/)
      // The buyer pays on the cashier and comes back with Alipay's signed parameters.
      const paid = await fetch(cashier, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
      const back = new URL(paid.headers.get('location')!)
      assert.equal(`${back.origin}${back.pathname}`, a.returnUrl)
      assert.deepEqual(s.provider.verifyReturn!(s.cfg, back.searchParams), { verified: true, attemptId: a.attemptId })
      const forged = new URLSearchParams(back.searchParams)
      forged.set('out_trade_no', 'att_someoneelse00000000000')
      assert.deepEqual(s.provider.verifyReturn!(s.cfg, forged), { verified: false, reason: 'return signature refused' })
      assert.equal((await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} })).status, 'succeeded')
    }
  })

  test(`${mode} mode: every request the adapter sent passes Alipay's SDK's own signature check`, async (t) => {
    const s = await alipayAdapter(t, { mode })
    const a = await s.paid()
    await s.provider.createAttempt(s.cfg, s.attempt({ channel: 'page' })).then((r) => fetch((r.action as { url: string }).url, { redirect: 'manual' }))
    await s.provider.createAttempt(s.cfg, s.attempt({ channel: 'wap' })).then((r) => fetch((r.action as { url: string }).url, { redirect: 'manual' }))
    const open = s.attempt()
    await s.provider.createAttempt(s.cfg, open)
    await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} })
    await s.provider.closePayment(s.cfg, { attemptId: open.attemptId, providerRef: null, data: {} })
    await s.provider.refund(s.cfg, refundInput('ref_AAAAAAAAAAAAAAAAAAAAAAAA', a.attemptId, 100))
    await s.provider.queryRefund(s.cfg, refundRef('ref_AAAAAAAAAAAAAAAAAAAAAAAA', a.attemptId, 100, s.clock()))
    const requests = await s.ctl.requests()
    assert.deepEqual(requests.map((r) => r.method), [
      'alipay.trade.precreate', 'alipay.trade.page.pay', 'alipay.trade.wap.pay', 'alipay.trade.precreate', 'alipay.trade.query',
      'alipay.trade.close', 'alipay.trade.refund', 'alipay.trade.fastpay.refund.query',
    ])
    for (const r of requests) {
      assert.equal(r.verified, true, r.method)
      assert.equal(sdkAcceptsRequest(r.params, s.app), true, `${r.method}: the SDK's verifier refuses ${JSON.stringify(r.params)}`)
      assert.equal(sdkAcceptsRequest({ ...r.params, timestamp: '2000-01-01 00:00:00' }, s.app), false, 'and refuses it changed')
      assert.deepEqual([r.params.app_id, r.params.sign_type, r.params.charset, r.params.version, r.params.format], [s.app.appId, 'RSA2', 'utf-8', '1.0', 'JSON'])
      if (mode === 'cert') assert.ok(r.params.app_cert_sn && r.params.alipay_root_cert_sn, r.method)
      else assert.equal(r.params.app_cert_sn, undefined)
    }
  })
}

test('notifications: a forgery is refused with fail and comes back; another app\'s is taken and ignored; closings change nothing', async (t) => {
  const s = await alipayAdapter(t)
  const a = s.attempt()
  await s.provider.createAttempt(s.cfg, a)
  await s.ctl.tamper({ fields: { total_amount: '0.01' } })
  await s.ctl.pay({ out_trade_no: a.attemptId })
  assert.deepEqual([s.rx.received[0].result.ack.status, s.rx.received[0].result.ack.body], [400, 'fail'])
  assert.deepEqual(s.rx.received[0].result.facts, [{ kind: 'ignored', reason: 'signature refused' }])
  // Not answered success, it comes back 4 minutes later (the same forgery, refused again).
  await s.ctl.advance({ next: true })
  assert.deepEqual((await s.ctl.deliveries()).map((d) => [d.attempt, d.acked]), [[0, false], [1, false]])
  // The genuine notification is taken, with the exact amount.
  await s.ctl.resend({ out_trade_no: a.attemptId })
  assert.equal(s.rx.received[2].result.ack.body, 'success')
  assert.equal((s.rx.received[2].result.facts[0] as PaymentFact).amount, 8888)

  // Genuine, but for the other app of this Alipay: not this configuration's.
  const other = s.apps.cert
  const foreign = { ...s.cfg, credentials: { ...s.cfg.credentials, appId: other.appId } }
  const last = s.rx.received.at(-1)!
  assert.deepEqual(await s.provider.parseNotification(foreign, { body: last.body, headers: last.headers }), {
    ack: { status: 200, body: 'success', headers: { 'content-type': 'text/plain; charset=utf-8' } },
    facts: [{ kind: 'ignored', reason: `notification for app ${s.app.appId}` }],
  })

  // An order closed at Alipay notifies TRADE_CLOSED: taken, nothing to apply.
  const closing = s.attempt()
  await s.provider.createAttempt(s.cfg, closing)
  await s.ctl.scan({ out_trade_no: closing.attemptId })
  assert.deepEqual(await s.provider.closePayment(s.cfg, { attemptId: closing.attemptId, providerRef: null, data: {} }), { closed: true })
  await s.ctl.tick()
  const closed = s.rx.received.at(-1)!.result
  assert.equal(closed.ack.body, 'success')
  assert.equal(closed.facts[0].kind, 'ignored')
  assert.match((closed.facts[0] as { reason: string }).reason, /TRADE_CLOSED/)
})

test('close: never scanned (ACQ.TRADE_NOT_EXIST) is closed; a trade paid meanwhile comes back as alreadyPaid', async (t) => {
  const s = await alipayAdapter(t)
  const never = s.attempt({ channel: 'page' })
  await s.provider.createAttempt(s.cfg, never)
  assert.deepEqual(await s.provider.closePayment(s.cfg, { attemptId: never.attemptId, providerRef: null, data: {} }), { closed: true })
  assert.deepEqual((await s.ctl.requests()).at(-1)!.answer, { code: '40004', sub_code: 'ACQ.TRADE_NOT_EXIST' })

  const racing = s.attempt()
  await s.provider.createAttempt(s.cfg, racing)
  await s.ctl.scan({ out_trade_no: racing.attemptId })
  await s.ctl.notifications({ mode: 'drop', persist: true })
  await s.ctl.pay({ out_trade_no: racing.attemptId }, { at: 'close' })
  const result = await s.provider.closePayment(s.cfg, { attemptId: racing.attemptId, providerRef: null, data: {} })
  const order = await s.ctl.order(racing.attemptId)
  assert.deepEqual(result, { alreadyPaid: { kind: 'payment', attemptId: racing.attemptId, status: 'succeeded', providerRef: order.trade_no, amount: 8888, currency: 'CNY', paidAt: s.clock() } })

  // Expired at Alipay: closed by the query behind the refused close.
  const expired = s.attempt()
  await s.provider.createAttempt(s.cfg, expired)
  await s.ctl.scan({ out_trade_no: expired.attemptId })
  await s.ctl.expire({ out_trade_no: expired.attemptId })
  assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: expired.attemptId, providerRef: null, data: {} }), { status: 'closed' })
  assert.deepEqual(await s.provider.closePayment(s.cfg, { attemptId: expired.attemptId, providerRef: null, data: {} }), { closed: true })
})

test('refunds: partial then full under their own out_request_no; the same number again refunds nothing more; beyond the payment is refused', async (t) => {
  const s = await alipayAdapter(t)
  const a = await s.paid()
  assert.deepEqual(await s.provider.refund(s.cfg, refundInput('ref_AAAAAAAAAAAAAAAAAAAAAAA1', a.attemptId, 888)), { status: 'succeeded', currency: 'CNY' })
  // A retry of the same refund (fund_change N): the refund query confirms it, nothing moves twice.
  assert.deepEqual(await s.provider.refund(s.cfg, refundInput('ref_AAAAAAAAAAAAAAAAAAAAAAA1', a.attemptId, 888)), { status: 'succeeded', currency: 'CNY' })
  await assert.rejects(s.provider.refund(s.cfg, refundInput('ref_AAAAAAAAAAAAAAAAAAAAAAA2', a.attemptId, 8001)), isError('rejected', 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL'))
  assert.deepEqual(await s.provider.refund(s.cfg, refundInput('ref_AAAAAAAAAAAAAAAAAAAAAAA3', a.attemptId, 8000)), { status: 'succeeded', currency: 'CNY' })
  const order = await s.ctl.order(a.attemptId)
  assert.deepEqual([order.refunded, order.trade_status, order.refunds.map((r: { out_request_no: string; refund_amount: string; refund_reason: string }) => [r.out_request_no, r.refund_amount, r.refund_reason])], [
    '88.88', 'TRADE_CLOSED', [['ref_AAAAAAAAAAAAAAAAAAAAAAA1', '8.88', 'damaged'], ['ref_AAAAAAAAAAAAAAAAAAAAAAA3', '80.00', 'damaged']],
  ])
  await assert.rejects(s.provider.refund(s.cfg, { ...refundInput('ref_x', a.attemptId, 100), currency: 'USD' }), isError('rejected', 'unsupported_currency'))
})

test('the refund query: REFUND_SUCCESS settles; none shown is unknown for a minute, then not_found (Alipay never took it)', async (t) => {
  const s = await alipayAdapter(t)
  const a = await s.paid()
  const asked = s.clock()
  await s.ctl.settings({ refundQueryDelayMs: 30_000 })
  await s.provider.refund(s.cfg, refundInput('ref_AAAAAAAAAAAAAAAAAAAAAAA1', a.attemptId, 100))
  // Alipay does not show it yet: too early to say it was never received.
  await assert.rejects(s.provider.queryRefund(s.cfg, refundRef('ref_AAAAAAAAAAAAAAAAAAAAAAA1', a.attemptId, 100, asked)), isError('unknown', 'refund_not_visible_yet'))
  s.clock.advance(30_000)
  assert.deepEqual(await s.provider.queryRefund(s.cfg, refundRef('ref_AAAAAAAAAAAAAAAAAAAAAAA1', a.attemptId, 100, asked)), { status: 'succeeded', currency: 'CNY' })
  // Shown for another amount than ours: not believed.
  await assert.rejects(s.provider.queryRefund(s.cfg, refundRef('ref_AAAAAAAAAAAAAAAAAAAAAAA1', a.attemptId, 200, asked)), isError('unknown', 'refund_amount_mismatch'))
  // Never sent: unknown within the minute, not_found after it.
  await assert.rejects(s.provider.queryRefund(s.cfg, refundRef('ref_BBBBBBBBBBBBBBBBBBBBBBB1', a.attemptId, 100, s.clock())), isError('unknown', 'refund_not_visible_yet'))
  s.clock.advance(60_000)
  await assert.rejects(s.provider.queryRefund(s.cfg, refundRef('ref_BBBBBBBBBBBBBBBBBBBBBBB1', a.attemptId, 100, asked)), isError('unknown', 'not_found'))
})

test('unknown outcomes: HTTP 5xx, 20000, ACQ.SYSTEM_ERROR, a timeout; business refusals are rejected with Alipay\'s words', async (t) => {
  const s = await alipayAdapter(t)
  const a = await s.paid()
  const ref = (n: string) => refundInput(`ref_CCCCCCCCCCCCCCCCCCCCCCC${n}`, a.attemptId, 100)
  await s.ctl.error({ route: 'refund', status: 502 })
  await assert.rejects(s.provider.refund(s.cfg, ref('1')), isError('unknown', 'HTTP_502'))
  await s.ctl.error({ route: 'refund', sub_code: 'isp.unknow-error' })
  await assert.rejects(s.provider.refund(s.cfg, ref('2')), isError('unknown', 'isp.unknow-error'))
  await s.ctl.error({ route: 'refund', sub_code: 'ACQ.SYSTEM_ERROR', applied: true })
  await assert.rejects(s.provider.refund(s.cfg, ref('3')), isError('unknown', 'ACQ.SYSTEM_ERROR'))
  // A short timeout for the hanging query only: the other calls' work is not cut by it on a busy machine.
  const impatient = createAlipayProvider({ now: s.clock, timeoutMs: 300 })
  t.after(() => impatient.client.close())
  await s.ctl.error({ route: 'query', status: 200, hangMs: 1500 })
  await assert.rejects(impatient.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} }), isError('unknown', 'network'))
  await s.ctl.error({ route: 'refund', sub_code: 'ACQ.SELLER_BALANCE_NOT_ENOUGH', sub_msg: '卖家余额不足' })
  await assert.rejects(s.provider.refund(s.cfg, ref('4')), (e) => isError('rejected', 'ACQ.SELLER_BALANCE_NOT_ENOUGH')(e) && /卖家余额不足/.test((e as Error).message))
  // The refund whose answer was lost (ACQ.SYSTEM_ERROR after acting) was made once: the query finds it.
  s.clock.advance(60_000)
  assert.equal((await s.provider.queryRefund(s.cfg, refundRef('ref_CCCCCCCCCCCCCCCCCCCCCCC3', a.attemptId, 100, s.clock()))).status, 'succeeded')
  assert.deepEqual((await s.ctl.order(a.attemptId)).refunds.length, 1)
})

test('answers are verified: a configuration holding another Alipay public key believes nothing', async (t) => {
  const s = await alipayAdapter(t)
  const a = await s.paid()
  const wrong = { ...s.cfg, credentials: { ...s.cfg.credentials, alipayPublicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) } }
  await assert.rejects(s.provider.queryPayment(wrong, { attemptId: a.attemptId, providerRef: null, data: {} }), isError('unknown', 'invalid_response_signature'))
  const last = s.rx.received.at(-1)!
  assert.deepEqual((await s.provider.parseNotification(wrong, { body: last.body, headers: last.headers })).ack, { status: 400, body: 'fail', headers: { 'content-type': 'text/plain; charset=utf-8' } })
})

test('with settings.sellerId, a genuine notification or return naming another seller_id is taken but not this configuration\'s; without it, the app decides', async (t) => {
  const s = await alipayAdapter(t)
  const seller = { ...s.cfg, settings: { ...s.cfg.settings, sellerId: s.app.sellerId } }
  const a = s.attempt()
  await s.provider.createAttempt(seller, a)
  // Signed by Alipay for this app, but for a seller this configuration is not.
  await s.ctl.tamper({ fields: { seller_id: '2088000000000001' }, resign: true })
  await s.ctl.pay({ out_trade_no: a.attemptId })
  const foreign = s.rx.received[0]
  assert.deepEqual((await s.provider.parseNotification(seller, { body: foreign.body, headers: foreign.headers })).facts, [{ kind: 'ignored', reason: 'notification for seller 2088000000000001' }])
  // The configuration's own seller: the payment.
  await s.ctl.resend({ out_trade_no: a.attemptId })
  const own = s.rx.received.at(-1)!
  assert.equal((await s.provider.parseNotification(seller, { body: own.body, headers: own.headers })).facts[0].kind, 'payment')
  // No sellerId configured: the app is the check, as before.
  assert.equal((await s.provider.parseNotification(s.cfg, { body: foreign.body, headers: foreign.headers })).facts[0].kind, 'payment')
  // A genuine return from the cashier names the seller too: verified for it, not for a configuration of another.
  const page = s.attempt({ channel: 'page' })
  const created = await s.provider.createAttempt(seller, page)
  const cashier = (await fetch((created.action as { url: string }).url, { redirect: 'manual' })).headers.get('location')!
  const paid = await fetch(cashier, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
  const back = new URL(paid.headers.get('location')!).searchParams
  assert.deepEqual(s.provider.verifyReturn!(seller, back), { verified: true, attemptId: page.attemptId })
  const other = { ...seller, settings: { ...seller.settings, sellerId: '2088000000000001' } }
  assert.deepEqual(s.provider.verifyReturn!(other, back), { verified: false, reason: `return for seller ${s.app.sellerId}` })
})
