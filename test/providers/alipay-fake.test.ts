/**
 * `till fake alipay` on its own: the gateway's refusals (isv.*), when a trade exists, refunds at
 * most once per out_request_no, expiry, the cashier, notifications on Alipay's retry schedule, and
 * the knobs. Requests are made by hand (../../src/providers/alipay/sign.ts) where a test needs a
 * parameter wrong, and with Alipay's SDK otherwise; the SDK checks are in test/sdk/alipay-sdk.test.ts.
 */
import assert from 'node:assert/strict'
import { createPrivateKey } from 'node:crypto'
import { test, type TestContext } from 'node:test'
import { alipayFakeControl } from '../../src/providers/alipay/fake/client.js'
import { RETRY_SCHEDULE_SEC } from '../../src/providers/alipay/fake/notify.js'
import type { AlipayFake, AppCredentials } from '../../src/providers/alipay/fake/index.js'
import { beijingText } from '../../src/providers/alipay/fake/wire.js'
import { responseParts, withSign } from '../../src/providers/alipay/sign.js'
import { testClock } from '../helpers/app.js'
import { alipaySdk, alipayWithApps } from '../helpers/alipay.js'
import { startReceiver, type Respond } from '../helpers/receiver.js'

type Params = Record<string, string | undefined>

/**
 * One gateway call made by hand: the common parameters, `set` before signing, `after` once signed
 * (undefined removes), posted as a form. The answer's `…_response` (or error_response) value, parsed.
 */
async function call(fake: AlipayFake, app: AppCredentials, method: string, biz?: object, o: { set?: Params; after?: Params } = {}) {
  const params: Params = {
    app_id: app.appId, method, charset: 'utf-8', sign_type: 'RSA2', timestamp: beijingText(Date.now()), version: '1.0',
    biz_content: biz === undefined ? undefined : JSON.stringify(biz),
  }
  if (app.appCertificate) Object.assign(params, { app_cert_sn: fake.store.apps.get(app.appId)!.appCertSn, alipay_root_cert_sn: fake.store.pki.rootCertSn })
  const signed: Params = { ...withSign({ ...params, ...o.set }, createPrivateKey(app.privateKey)), ...o.after }
  const form = new URLSearchParams(Object.entries(signed).filter((e): e is [string, string] => e[1] !== undefined))
  const res = await fetch(fake.gateway, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' }, body: form })
  const text = await res.text()
  const parts = responseParts(text, method)
  return { status: res.status, text, key: parts?.key, answer: parts ? JSON.parse(parts.text) : null, signed: parts?.sign != null }
}

const order = (outTradeNo: string, totalAmount: unknown = '88.88', more: object = {}) => ({ out_trade_no: outTradeNo, total_amount: totalAmount, subject: 'Blue mug', ...more })

/** A notify_url receiver answering as `respond` says (by default Alipay's ack), and the forms it got. */
async function notifyReceiver(t: TestContext, respond: Respond = () => ({ status: 200, body: 'success' })) {
  const rx = await startReceiver(t, respond)
  const forms = async (n: number) => (await rx.received(n)).map((r) => Object.fromEntries(new URLSearchParams(r.body.toString('utf8'))))
  return { url: `${rx.url}/notify`, forms, rx }
}

test('the gateway refuses a request before its business with Alipay\'s isv codes, under the method\'s key or error_response', async (t) => {
  const { fake, apps } = await alipayWithApps(t)
  const app = apps.publicKey
  const q = { out_trade_no: 'att_1' }
  const cases: Array<[string, Awaited<ReturnType<typeof call>>, string, string, string]> = [
    ['no method', await call(fake, app, 'alipay.trade.query', q, { after: { method: undefined } }), 'error_response', '40001', 'isv.missing-method'],
    ['an unknown method', await call(fake, app, 'alipay.trade.create', q), 'error_response', '40002', 'isv.invalid-method'],
    ['no app_id', await call(fake, app, 'alipay.trade.query', q, { after: { app_id: undefined } }), 'alipay_trade_query_response', '40001', 'isv.missing-app-id'],
    ['no sign', await call(fake, app, 'alipay.trade.query', q, { after: { sign: undefined } }), 'alipay_trade_query_response', '40001', 'isv.missing-signature'],
    ['no sign_type', await call(fake, app, 'alipay.trade.query', q, { after: { sign_type: undefined } }), 'alipay_trade_query_response', '40001', 'isv.missing-signature-type'],
    ['RSA (SHA-1) for an RSA2 app', await call(fake, app, 'alipay.trade.query', q, { set: { sign_type: 'RSA' } }), 'alipay_trade_query_response', '40003', 'isv.missing-signature-config'],
    ['an unknown sign_type', await call(fake, app, 'alipay.trade.query', q, { set: { sign_type: 'MD5' } }), 'alipay_trade_query_response', '40002', 'isv.invalid-signature-type'],
    ['no timestamp', await call(fake, app, 'alipay.trade.query', q, { after: { timestamp: undefined } }), 'alipay_trade_query_response', '40001', 'isv.missing-timestamp'],
    ['an ISO timestamp', await call(fake, app, 'alipay.trade.query', q, { set: { timestamp: new Date().toISOString() } }), 'alipay_trade_query_response', '40002', 'isv.invalid-timestamp'],
    ['no version', await call(fake, app, 'alipay.trade.query', q, { after: { version: undefined } }), 'alipay_trade_query_response', '40001', 'isv.missing-version'],
    ['GBK', await call(fake, app, 'alipay.trade.query', q, { set: { charset: 'GBK' } }), 'alipay_trade_query_response', '40002', 'isv.invalid-charset'],
    ['format XML', await call(fake, app, 'alipay.trade.query', q, { set: { format: 'XML' } }), 'alipay_trade_query_response', '40002', 'isv.invalid-format'],
    ['a parameter added after signing', await call(fake, app, 'alipay.trade.query', q, { after: { notify_url: 'https://a.example/n' } }), 'alipay_trade_query_response', '40002', 'isv.invalid-signature'],
  ]
  for (const [what, res, key, code, subCode] of cases) {
    assert.equal(res.status, 200, what)
    assert.equal(res.key, key, what)
    assert.deepEqual([res.answer.code, res.answer.sub_code], [code, subCode], what)
  }
  // format JSON (any case) and a signed extra parameter are fine: the answer is the business one.
  assert.equal((await call(fake, app, 'alipay.trade.query', q, { set: { format: 'json', notify_url: 'https://a.example/n' } })).answer.sub_code, 'ACQ.TRADE_NOT_EXIST')
  // Only refusals of an unknown app or method come unsigned.
  assert.deepEqual(cases.filter(([, r]) => !r.signed).map(([what]) => what), ['no method', 'an unknown method', 'no app_id'])

  const { fake: clocked, apps: clockedApps } = await alipayWithApps(t, { clock: testClock(new Date('2026-05-20T04:00:00Z')) })
  await alipayFakeControl(clocked.url).settings({ maxTimestampSkewSec: 600 })
  // 12:00 Beijing time is 04:00 UTC: the right time passes, a UTC wall clock 8 hours off does not.
  assert.equal((await call(clocked, clockedApps.publicKey, 'alipay.trade.query', q, { set: { timestamp: '2026-05-20 12:05:00' } })).answer.sub_code, 'ACQ.TRADE_NOT_EXIST')
  assert.equal((await call(clocked, clockedApps.publicKey, 'alipay.trade.query', q, { set: { timestamp: '2026-05-20 04:00:00' } })).answer.sub_code, 'isv.invalid-timestamp')
})

test('orders: amounts in yuan with at most two decimals, CNY only, and a changed repeat refused', async (t) => {
  const { fake, ctl, apps } = await alipayWithApps(t)
  const app = apps.publicKey
  const precreate = async (biz: object) => (await call(fake, app, 'alipay.trade.precreate', biz)).answer
  for (const amount of ['88.888', '-1.00', '0.00', '1e2', 'abc', 88.888]) {
    assert.equal((await precreate(order(`att_a_${String(amount).replace(/\W/g, '')}`, amount))).sub_code, 'ACQ.INVALID_PARAMETER', String(amount))
  }
  // Alipay also takes "1", 1.5 and "0.5": each is that many yuan.
  for (const [amount, fen] of [['1', 100], [1.5, 150], ['0.5', 50], ['100000000.00', 10_000_000_000]] as const) {
    const no = `att_ok_${fen}`
    assert.equal((await precreate(order(no, amount))).code, '10000', String(amount))
    assert.equal(fake.store.trade(app.appId, no)!.total, fen)
  }
  assert.equal((await precreate(order('att_big', '100000000.01'))).sub_code, 'ACQ.TOTAL_FEE_EXCEED')
  assert.equal((await precreate(order('att_usd', '1.00', { trans_currency: 'USD' }))).sub_code, 'ACQ.CURRENCY_NOT_SUPPORT')
  assert.equal((await precreate(order('att_subj', '1.00', { subject: 'mug & cup' }))).sub_code, 'ACQ.INVALID_PARAMETER')
  assert.equal((await precreate(order('att-dash'))).sub_code, 'ACQ.INVALID_PARAMETER')
  const notes = (await ctl.requests()).map((r) => r.note).filter(Boolean)
  assert.ok(notes.some((n) => /subject/.test(n!)), 'the request log says which field was refused')

  await ctl.settings({ strictAmounts: true })
  assert.equal((await precreate(order('att_strict_1', '1'))).sub_code, 'ACQ.INVALID_PARAMETER')
  assert.equal((await precreate(order('att_strict_2', 1.5))).sub_code, 'ACQ.INVALID_PARAMETER')
  assert.equal((await precreate(order('att_strict_3', '1.50'))).code, '10000')

  // The same order again gets the same code; a changed one is refused; a paid one too.
  const first = await precreate(order('att_rep', '9.90'))
  assert.equal((await precreate(order('att_rep', '9.90'))).qr_code, first.qr_code)
  assert.equal((await precreate(order('att_rep', '9.91'))).sub_code, 'ACQ.CONTEXT_INCONSISTENT')
  const asPage = await call(fake, app, 'alipay.trade.page.pay', order('att_rep', '9.90', { product_code: 'FAST_INSTANT_TRADE_PAY' }))
  assert.match(asPage.text, /CONTEXT_INCONSISTENT/)
  await ctl.pay({ out_trade_no: 'att_rep' })
  assert.equal((await precreate(order('att_rep', '9.90'))).sub_code, 'ACQ.TRADE_HAS_SUCCESS')
})

test('a precreate order exists at Alipay only once scanned: before, query and close answer ACQ.TRADE_NOT_EXIST and the code stays payable until it expires', async (t) => {
  const clock = testClock(new Date('2026-05-20T04:00:00Z'))
  const { fake, ctl, apps } = await alipayWithApps(t, { clock })
  const notify = await notifyReceiver(t)
  const sdk = alipaySdk(fake, apps.publicKey)
  const precreate = (no: string, more: object = {}) => sdk.exec('alipay.trade.precreate', { notifyUrl: notify.url, bizContent: { ...order(no), ...more } })
  const query = (no: string) => sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: no } })
  const close = (no: string) => sdk.exec('alipay.trade.close', { bizContent: { out_trade_no: no } })

  const { qrCode } = await precreate('att_q1', { timeout_express: '30m' })
  assert.equal((await close('att_q1')).subCode, 'ACQ.TRADE_NOT_EXIST')
  // The merchant took that for closed, but Alipay had nothing to close: the code still pays.
  await ctl.pay({ qr_code: qrCode })
  assert.equal((await query('att_q1')).tradeStatus, 'TRADE_SUCCESS')
  assert.equal((await close('att_q1')).subCode, 'ACQ.TRADE_STATUS_ERROR')

  // Scanned, then unpaid past time_expire: closed, and Alipay notifies TRADE_CLOSED.
  await precreate('att_q2', { time_expire: beijingText(clock().getTime() + 10 * 60_000) })
  await ctl.scan({ out_trade_no: 'att_q2' })
  assert.equal((await query('att_q2')).tradeStatus, 'WAIT_BUYER_PAY')
  clock.advance(10 * 60_000)
  await ctl.tick()
  assert.equal((await query('att_q2')).tradeStatus, 'TRADE_CLOSED')
  const forms = await notify.forms(2)
  assert.deepEqual([forms[1].out_trade_no, forms[1].trade_status], ['att_q2', 'TRADE_CLOSED'])
  await assert.rejects(ctl.pay({ out_trade_no: 'att_q2' }), /409/)

  // Never scanned and expired (two hours by default): not payable, and still no trade.
  await precreate('att_q3')
  clock.advance(2 * 3600_000)
  await assert.rejects(ctl.scan({ out_trade_no: 'att_q3' }), /409.*expired/)
  assert.equal((await query('att_q3')).subCode, 'ACQ.TRADE_NOT_EXIST')

  // Closing a scanned order; the buyer paying at that very moment wins.
  await precreate('att_q4')
  await ctl.scan({ out_trade_no: 'att_q4' })
  assert.deepEqual([(await close('att_q4')).code, (await query('att_q4')).tradeStatus], ['10000', 'TRADE_CLOSED'])
  await precreate('att_q5')
  await ctl.pay({ out_trade_no: 'att_q5' }, { at: 'close' })
  assert.equal((await close('att_q5')).subCode, 'ACQ.TRADE_NOT_EXIST', 'not scanned yet: nothing to close, nothing paid')
  await ctl.scan({ out_trade_no: 'att_q5' })
  assert.equal((await close('att_q5')).subCode, 'ACQ.TRADE_STATUS_ERROR')
  assert.equal((await query('att_q5')).tradeStatus, 'TRADE_SUCCESS')
})

test('refunds: at most one per out_request_no (a repeat answers fund_change N), partial ones need a number, never more than was paid', async (t) => {
  const { fake, ctl, apps } = await alipayWithApps(t)
  const notify = await notifyReceiver(t)
  const sdk = alipaySdk(fake, apps.publicKey)
  const refund = (biz: object) => sdk.exec('alipay.trade.refund', { bizContent: { out_trade_no: 'att_r', ...biz } }, { validateSign: true })
  const refundQuery = (outRequestNo: string) => sdk.exec('alipay.trade.fastpay.refund.query', { bizContent: { out_trade_no: 'att_r', out_request_no: outRequestNo } })

  await sdk.exec('alipay.trade.precreate', { notifyUrl: notify.url, bizContent: order('att_r', '100.00') })
  assert.equal((await refund({ refund_amount: '1.00', out_request_no: 'r0' })).subCode, 'ACQ.TRADE_NOT_EXIST')
  await ctl.scan({ out_trade_no: 'att_r' })
  assert.equal((await refund({ refund_amount: '1.00', out_request_no: 'r0' })).subCode, 'ACQ.TRADE_STATUS_ERROR')
  await ctl.pay({ out_trade_no: 'att_r' })

  const partialWithoutNumber = await refund({ refund_amount: '30.00' })
  assert.deepEqual([partialWithoutNumber.subCode, partialWithoutNumber.refundFee, partialWithoutNumber.sendBackFee], ['ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '0.00', '0.00'])
  assert.equal((await refund({ refund_amount: '100.01', out_request_no: 'r1' })).subCode, 'ACQ.REASON_TRADE_REFUND_FEE_ERR')

  const first = await refund({ refund_amount: '30.00', out_request_no: 'r1', refund_reason: 'damaged' })
  assert.deepEqual([first.fundChange, first.refundFee], ['Y', '30.00'])
  const again = await refund({ refund_amount: '30.00', out_request_no: 'r1', refund_reason: 'damaged' })
  assert.deepEqual([again.code, again.fundChange, again.refundFee], ['10000', 'N', '30.00'])
  assert.equal((await refund({ refund_amount: '31.00', out_request_no: 'r1' })).subCode, 'ACQ.DISCORDANT_REPEAT_REQUEST')
  assert.equal((await refund({ refund_amount: '70.01', out_request_no: 'r2' })).subCode, 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL')
  assert.equal((await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_r' } })).tradeStatus, 'TRADE_SUCCESS')

  const rest = await refund({ refund_amount: '70.00', out_request_no: 'r2' })
  assert.deepEqual([rest.fundChange, rest.refundFee], ['Y', '100.00'])
  // Everything refunded: the trade closes.
  assert.equal((await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_r' } })).tradeStatus, 'TRADE_CLOSED')
  assert.equal(fake.store.refunds.length, 2)

  assert.deepEqual([(await refundQuery('r1')).refundStatus, (await refundQuery('r1')).refundAmount], ['REFUND_SUCCESS', '30.00'])
  const unknown = await refundQuery('r9')
  assert.equal(unknown.code, '10000')
  assert.equal(unknown.refundStatus, undefined, 'no refund_status: not received')

  // Alipay notifies refunds too: TRADE_SUCCESS with refund_fee, then TRADE_CLOSED once all is back.
  await ctl.tick()
  const forms = await notify.forms(3)
  assert.deepEqual(forms.map((f) => [f.trade_status, f.refund_fee, f.out_biz_no]), [['TRADE_SUCCESS', undefined, undefined], ['TRADE_SUCCESS', '30.00', 'r1'], ['TRADE_CLOSED', '100.00', 'r2']])
})

test('refunds: a full refund without out_request_no is numbered by the out_trade_no; a finished trade refunds nothing; the refund query can lag', async (t) => {
  const { fake, ctl, apps } = await alipayWithApps(t)
  const sdk = alipaySdk(fake, apps.cert)
  for (const no of ['att_f1', 'att_f2']) {
    await sdk.exec('alipay.trade.precreate', { bizContent: order(no, '5.00') })
    await ctl.pay({ out_trade_no: no })
  }
  await ctl.settings({ refundQueryDelayMs: 10_000 })
  const full = await sdk.exec('alipay.trade.refund', { bizContent: { out_trade_no: 'att_f1', refund_amount: '5.00' } }, { validateSign: true })
  assert.equal(full.fundChange, 'Y')
  assert.equal((await sdk.exec('alipay.trade.refund', { bizContent: { out_trade_no: 'att_f1', refund_amount: '5.00' } })).fundChange, 'N')
  const query = () => sdk.exec('alipay.trade.fastpay.refund.query', { bizContent: { out_trade_no: 'att_f1', out_request_no: 'att_f1' } })
  assert.equal((await query()).refundStatus, undefined, 'within the delay the refund query does not show it yet')
  await ctl.advance({ seconds: 10 })
  assert.equal((await query()).refundStatus, 'REFUND_SUCCESS')

  await ctl.finish({ out_trade_no: 'att_f2' })
  assert.equal((await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_f2' } })).tradeStatus, 'TRADE_FINISHED')
  assert.equal((await sdk.exec('alipay.trade.refund', { bizContent: { out_trade_no: 'att_f2', refund_amount: '1.00', out_request_no: 'x' } })).subCode, 'ACQ.TRADE_HAS_FINISHED')
})

test('notifications: a form POST signed over all but sign and sign_type, acknowledged only by the body success, retried 8 times on Alipay\'s schedule', async (t) => {
  const clock = testClock(new Date('2026-05-20T04:00:00Z'))
  const { fake, ctl, apps } = await alipayWithApps(t, { clock })
  // Close to an ack, but not one: Alipay wants the seven characters and nothing else.
  const notify = await notifyReceiver(t, (_r, n) => ({ status: 200, body: ['fail', 'SUCCESS', 'success\n'][n % 3] }))
  const sdk = alipaySdk(fake, apps.publicKey)
  await sdk.exec('alipay.trade.precreate', { notifyUrl: notify.url, bizContent: order('att_n') })
  await ctl.pay({ out_trade_no: 'att_n' })
  for (let i = 0; i < RETRY_SCHEDULE_SEC.length; i++) await ctl.advance({ next: true })
  assert.equal((await ctl.advance({ next: true })).pending, 0, 'no ninth attempt')

  const deliveries = await ctl.deliveries()
  assert.equal(deliveries.length, 8)
  assert.ok(deliveries.every((d) => !d.acked && d.status === 200))
  const gaps = deliveries.slice(1).map((d, i) => (d.atMs - deliveries[i].atMs) / 1000)
  assert.deepEqual(gaps, [240, 600, 600, 3600, 7200, 21600, 54000])
  const received = await notify.rx.received(8)
  assert.equal(received[0].headers['content-type'], 'application/x-www-form-urlencoded; charset=utf-8')
  const forms = await notify.forms(8)
  assert.equal(new Set(forms.map((f) => f.notify_id)).size, 1, 'the same notification each time')
  assert.equal(forms[7].notify_time, beijingText(clock().getTime() + gaps.reduce((a, b) => a + b, 0) * 1000))
  assert.ok(forms.every((f) => sdk.checkNotifySign(f)), 'each attempt signed afresh')
  assert.deepEqual(Object.keys(forms[0]).sort(), [
    'app_id', 'auth_app_id', 'buyer_id', 'buyer_pay_amount', 'charset', 'fund_bill_list', 'gmt_create', 'gmt_payment', 'invoice_amount', 'notify_id', 'notify_time',
    'notify_type', 'out_trade_no', 'point_amount', 'receipt_amount', 'seller_id', 'sign', 'sign_type', 'subject', 'total_amount', 'trade_no', 'trade_status', 'version',
  ])
  assert.equal(forms[0].seller_id, apps.publicKey.sellerId)

  // Acknowledged on the third attempt: no more after it.
  const acking = await notifyReceiver(t, (_r, n) => (n < 2 ? { status: 500, body: 'error' } : { status: 200, body: 'success' }))
  await sdk.exec('alipay.trade.precreate', { notifyUrl: acking.url, bizContent: order('att_n2') })
  await ctl.pay({ out_trade_no: 'att_n2' })
  await ctl.advance({ next: true })
  await ctl.advance({ next: true })
  assert.equal((await ctl.advance({ next: true })).pending, 0)
  assert.deepEqual((await ctl.deliveries()).filter((d) => d.outTradeNo === 'att_n2').map((d) => [d.attempt, d.acked]), [[0, false], [1, false], [2, true]])
})

test('knobs: duplicate, drop and resend a notification; forced errors before and after acting, and an HTTP failure', async (t) => {
  const { fake, ctl, apps } = await alipayWithApps(t)
  const notify = await notifyReceiver(t)
  const sdk = alipaySdk(fake, apps.publicKey)
  for (const no of ['att_k1', 'att_k2', 'att_k3']) await sdk.exec('alipay.trade.precreate', { notifyUrl: notify.url, bizContent: order(no) })

  await ctl.notifications({ mode: 'duplicate', count: 2 })
  await ctl.pay({ out_trade_no: 'att_k1' })
  await ctl.notifications({ mode: 'drop' })
  await ctl.pay({ out_trade_no: 'att_k2' })
  await ctl.resend({ out_trade_no: 'att_k2' })
  const forms = await notify.forms(3)
  assert.deepEqual(forms.map((f) => f.out_trade_no), ['att_k1', 'att_k1', 'att_k2'])
  assert.deepEqual((await ctl.deliveries()).map((d) => [d.outTradeNo, d.kind, d.error ?? null]), [
    ['att_k1', 'payment', null], ['att_k1', 'payment', null], ['att_k2', 'payment', 'dropped by the drop knob'], ['att_k2', 'resend', null],
  ])

  // ACQ.SYSTEM_ERROR before acting: nothing refunded; after acting ("applied"): refunded, the answer lost.
  await ctl.pay({ out_trade_no: 'att_k3' })
  await ctl.error({ route: 'refund', sub_code: 'ACQ.SYSTEM_ERROR', sub_msg: '系统错误' } as never)
  const refund = () => sdk.exec('alipay.trade.refund', { bizContent: { out_trade_no: 'att_k3', refund_amount: '1.00', out_request_no: 'k' } }, { validateSign: true })
  const failed = await refund()
  assert.deepEqual([failed.code, failed.subCode], ['40004', 'ACQ.SYSTEM_ERROR'])
  assert.equal(fake.store.refunds.length, 0)
  await ctl.error({ route: 'refund', sub_code: 'ACQ.SYSTEM_ERROR', sub_msg: '系统错误', applied: true } as never)
  assert.equal((await refund()).subCode, 'ACQ.SYSTEM_ERROR')
  assert.equal(fake.store.refunds.length, 1)
  assert.equal((await refund()).fundChange, 'N', 'the retry with the same number refunds nothing more')

  await ctl.error({ route: 'query', status: 502 })
  await assert.rejects(sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_k3' } }), /status: 502/)
  await ctl.error({ route: '*' })
  assert.deepEqual(Object.values(await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_k3' } })).slice(0, 4), ['20000', 'Service Currently Unavailable', 'isp.unknow-error', '系统繁忙'])
})

test('the cashier: logging in creates the trade, a wrong password leaves it unpaid, cancel goes to wap.pay\'s quit_url', async (t) => {
  const { fake, apps } = await alipayWithApps(t)
  const sdk = alipaySdk(fake, apps.publicKey)
  const url = sdk.pageExec('alipay.trade.wap.pay', 'GET', {
    returnUrl: 'https://shop.example/back', bizContent: { ...order('att_c'), product_code: 'QUICK_WAP_WAY', quit_url: 'https://shop.example/quit' },
  })
  const cashier = (await fetch(url, { redirect: 'manual' })).headers.get('location')!
  const act = (action: string) => fetch(cashier, { method: 'POST', body: new URLSearchParams({ action }), redirect: 'manual' })
  const query = async () => (await sdk.exec('alipay.trade.query', { bizContent: { out_trade_no: 'att_c' } })).tradeStatus ?? 'not created'

  assert.equal(await query(), 'not created')
  assert.equal((await act('login')).status, 303)
  assert.equal(await query(), 'WAIT_BUYER_PAY')
  assert.match(await (await act('fail')).text(), /Wrong password/)
  assert.equal(await query(), 'WAIT_BUYER_PAY')
  assert.equal((await act('cancel')).headers.get('location'), 'https://shop.example/quit')
  // The SDK's POST form (an auto-submitting page) leads to the same cashier.
  const form = sdk.pageExec('alipay.trade.wap.pay', 'POST', { bizContent: { ...order('att_c'), product_code: 'QUICK_WAP_WAY', quit_url: 'https://shop.example/quit' } })
  const action = /action="([^"]+)"/.exec(form)![1].replace(/&amp;/g, '&')
  const fields = Object.fromEntries([...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&quot;/g, '"')]))
  const posted = await fetch(action, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' })
  assert.equal(posted.headers.get('location'), cashier)
  assert.equal((await act('pay')).status, 302)
  assert.equal(await query(), 'TRADE_SUCCESS')
  assert.match(await (await fetch(cashier)).text(), /id="back" href="https:\/\/shop\.example\/back\?/)
})
