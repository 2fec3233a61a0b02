/**
 * Contract tests: the WeChat Pay adapter against its fake over real HTTP on loopback (docs/architecture.md).
 * Payments and notifications here; refunds, errors, key modes and the fake's own request checks in
 * wechat-refunds.test.ts; the whole path through Till in wechat-till.test.ts.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AttemptInput } from '../../src/providers/types.js'
import { ProviderError } from '../../src/providers/types.js'
import { oauthAuthorizeUrl } from '../../src/providers/wechat/browser.js'
import { setup } from '../helpers/wechat.js'

const isRejected = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === code
const FAIL = { code: 'FAIL', message: '失败' }

test('Native: WeChat receives our ids, time_expire in +08:00 and fen; the page gets the code_url to show as a QR', async (t) => {
  const s = await setup(t)
  const a = s.attempt({ expiresAt: new Date('2026-05-20T04:30:00.500Z') })
  const res = await s.provider.createAttempt(s.cfg, a)
  assert.equal(res.action.kind, 'qr')
  const codeUrl = (res.action as { content: string }).content
  assert.match(codeUrl, /^weixin:\/\/wxpay\/bizpayurl\/up\?pr=[0-9A-Za-z]{7}&groupid=00$/)
  assert.deepEqual(res.data, { channel: 'native', codeUrl })
  assert.equal(res.providerRef, undefined, 'the transaction id exists only once paid')
  const order = await s.ctl.order(a.attemptId)
  assert.equal(order.trade_state, 'NOTPAY')
  assert.equal(order.trade_type, 'NATIVE')
  assert.equal(order.appid, s.creds.appId)
  assert.deepEqual(order.amount, { total: 9900, currency: 'CNY' })
  assert.equal(order.description, 'Order #42')
  assert.equal(order.time_expire, '2026-05-20T12:30:00+08:00')
  assert.equal(order.notify_url, s.rx.url)
  assert.deepEqual((await s.ctl.requests()).map(({ method, path, status, atMs, wechatpaySerial }) => ({ method, path, status, atMs, wechatpaySerial })), [
    { method: 'POST', path: '/v3/pay/transactions/native', status: 200, atMs: s.clock().getTime(), wechatpaySerial: s.creds.platformPublicKeyId },
  ])
  // The identical request again (a retry) gets the same code.
  assert.deepEqual((await s.provider.createAttempt(s.cfg, a)).action, { kind: 'qr', content: codeUrl })
})

test('H5: the browser goes to h5_url with our return address; the cashier pays and sends it back', async (t) => {
  const s = await setup(t)
  const a = s.attempt({ channel: 'h5', clientIp: '203.0.113.9' })
  const res = await s.provider.createAttempt(s.cfg, a)
  assert.equal(res.action.kind, 'redirect')
  const url = (res.action as { url: string }).url
  assert.match(url, /\/__fake\/h5\/checkmweb\?prepay_id=wx\d{14}[0-9a-z]{20}&package=\d{10}&redirect_url=/)
  assert.ok(url.startsWith(s.fake.url))
  assert.ok(url.endsWith(`&redirect_url=${encodeURIComponent(a.returnUrl)}`))
  const pageRes = await fetch(url)
  assert.equal(pageRes.status, 200)
  assert.match(await pageRes.text(), /¥99\.00/)
  const q = new URL(url).searchParams
  const back = await fetch(`${s.fake.url}/__fake/h5/checkmweb`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ prepay_id: q.get('prepay_id')!, package: q.get('package')!, redirect_url: q.get('redirect_url')!, action: 'pay' }).toString(),
  })
  assert.equal(back.status, 302)
  assert.equal(back.headers.get('location'), a.returnUrl)
  assert.equal(s.rx.received.length, 1)
  assert.equal(s.rx.received[0].result.facts[0].kind, 'payment')
  assert.equal((await s.ctl.order(a.attemptId)).trade_type, 'MWEB')
})

test('JSAPI: the page\'s WeixinJSBridge parameters pass the fake\'s paySign check; tampered ones do not', async (t) => {
  const s = await setup(t)
  const a = s.attempt({ channel: 'jsapi', payerId: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' })
  const res = await s.provider.createAttempt(s.cfg, a)
  assert.equal(res.action.kind, 'in_app')
  const params = (res.action as { params: Record<string, string> }).params
  assert.deepEqual(Object.keys(params).sort(), ['appId', 'nonceStr', 'package', 'paySign', 'signType', 'timeStamp'])
  assert.equal(params.appId, s.creds.appId)
  assert.equal(params.timeStamp, '1779249600')
  assert.equal(params.signType, 'RSA')
  assert.match(params.package, /^prepay_id=wx\d{14}[0-9a-z]{20}$/)
  assert.deepEqual(res.data, { channel: 'jsapi', prepayId: params.package.slice('prepay_id='.length) })
  assert.deepEqual(await s.ctl.jsapiCheck(params), { ok: true, err_msg: 'get_brand_wcpay_request:ok' })
  assert.deepEqual(await s.ctl.jsapiCheck({ ...params, nonceStr: 'other' }), { ok: false, reason: 'paySign does not verify', err_msg: 'get_brand_wcpay_request:fail' })
  assert.deepEqual(await s.ctl.jsapiCheck({ ...params, package: params.package.slice('prepay_id='.length) }), { ok: false, reason: 'package must be prepay_id=…', err_msg: 'get_brand_wcpay_request:fail' })
  assert.deepEqual(await s.ctl.jsapiCheck(params, true), { ok: true, err_msg: 'get_brand_wcpay_request:ok' })
  assert.equal((await s.ctl.order(a.attemptId)).payer.openid, 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o')
})

test('input a channel cannot work with is refused before WeChat is called', async (t) => {
  const s = await setup(t)
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ channel: 'h5' })), isRejected('client_ip_required'))
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ channel: 'jsapi' })), isRejected('openid_required'))
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ currency: 'USD' })), isRejected('unsupported_currency'))
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ channel: 'card' })), isRejected('unsupported_channel'))
  assert.deepEqual(await s.ctl.requests(), [])
})

test('a payment notification is verified over the raw body, decrypted, answered 204 and becomes one payment fact', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  assert.equal(s.rx.received.length, 1)
  const { result, headers } = s.rx.received[0]
  assert.deepEqual(result.ack, { status: 204 })
  const order = await s.ctl.order(a.attemptId)
  assert.match(order.transaction_id, /^42\d{26}$/)
  assert.deepEqual(result.facts, [{ kind: 'payment', attemptId: a.attemptId, status: 'succeeded', providerRef: order.transaction_id, amount: 9900, currency: 'CNY', paidAt: new Date('2026-05-20T04:00:00.000Z') }])
  assert.equal(headers['wechatpay-signature-type'], 'WECHATPAY2-SHA256-RSA2048')
  assert.equal(headers['wechatpay-serial'], s.creds.platformPublicKeyId)
  const [d] = await s.ctl.deliveries()
  assert.deepEqual({ ...d, id: undefined, url: undefined }, { id: undefined, url: undefined, eventType: 'TRANSACTION.SUCCESS', ref: a.attemptId, attempt: 0, probe: false, status: 204, acked: true, atMs: s.clock().getTime() })
})

test('a tampered body, an unknown serial, another key and a stale timestamp are each refused 401 FAIL', async (t) => {
  const s = await setup(t)
  await s.paid()
  const { body, headers } = s.rx.received[0]
  const refusal = async (b: Buffer, h: typeof headers, cfg = s.cfg) => {
    const r = await s.provider.parseNotification(cfg, { body: b, headers: h })
    assert.deepEqual(r.ack, { status: 401, body: FAIL })
    return (r.facts[0] as { reason: string }).reason
  }
  const tampered = Buffer.from(body.toString('utf8').replace('"TRANSACTION.SUCCESS"', '"TRANSACTION.SUCCESS" '))
  assert.equal(await refusal(tampered, headers), 'signature refused: bad_signature')
  assert.equal(await refusal(body, { ...headers, 'wechatpay-serial': 'PUB_KEY_ID_0000000000000000000000000000' }), 'signature refused: unknown_serial')
  const other = (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string
  assert.equal(await refusal(body, headers, { ...s.cfg, credentials: { ...s.cfg.credentials, platformPublicKey: other } }), 'signature refused: bad_signature')
  s.clock.advance(300_000)
  assert.equal(await refusal(body, headers), 'signature refused: stale_timestamp')
  s.clock.advance(-600_000)
  assert.equal(await refusal(body, headers), 'signature refused: stale_timestamp')
  s.clock.advance(300_000)
  // The untouched notification still passes: refusals were about the changes, not the notification.
  assert.deepEqual((await s.provider.parseNotification(s.cfg, { body, headers })).ack, { status: 204 })
})

test('a notification from a skewed clock is refused and redelivered on WeChat\'s schedule until acknowledged', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  await s.provider.createAttempt(s.cfg, a)
  await s.ctl.clockSkew(301)
  await s.ctl.pay({ out_trade_no: a.attemptId })
  assert.equal(s.rx.received.at(-1)!.result.facts[0].kind, 'ignored')
  assert.equal((s.rx.received.at(-1)!.result.facts[0] as { reason: string }).reason, 'signature refused: stale_timestamp')
  // Retries at +15 s, then +15 s more: nothing before they are due.
  s.clock.advance(14_999)
  assert.equal((await s.ctl.tick()).ran, 0)
  s.clock.advance(1)
  assert.equal((await s.ctl.tick()).ran, 1)
  await s.ctl.clockSkew(0)
  s.clock.advance(15_000)
  assert.equal((await s.ctl.tick()).ran, 1)
  const ds = (await s.ctl.deliveries()).map((d) => [d.attempt, d.status, d.acked, d.atMs - Date.parse('2026-05-20T04:00:00.000Z')])
  assert.deepEqual(ds, [[0, 401, false, 0], [1, 401, false, 15_000], [2, 204, true, 30_000]])
  assert.equal(s.rx.received.at(-1)!.result.facts[0].kind, 'payment')
  assert.equal((await s.ctl.tick()).pending, 0, 'an acknowledged notification is not sent again')
})

test('a WECHATPAY/SIGNTEST/ probe is refused, then the genuine notification is accepted', async (t) => {
  const s = await setup(t)
  await s.ctl.probe()
  await s.paid()
  const ds = await s.ctl.deliveries()
  assert.deepEqual(ds.map((d) => [d.probe, d.status, d.acked]), [[true, 401, false], [false, 204, true]])
  assert.deepEqual(s.rx.received.map((r) => r.result.ack.status), [401, 204])
  assert.deepEqual(s.rx.received[0].result.facts, [{ kind: 'ignored', reason: 'signature refused: probe' }])
  assert.ok(String(s.rx.received[0].headers['wechatpay-signature']).startsWith('WECHATPAY/SIGNTEST/'))
})

test('five deliveries of one notification are each acknowledged with the same fact', async (t) => {
  const s = await setup(t)
  await s.ctl.notifications({ mode: 'duplicate', count: 5 })
  await s.paid()
  assert.equal(s.rx.received.length, 5)
  assert.deepEqual(s.rx.received.map((r) => r.result.ack.status), [204, 204, 204, 204, 204])
  for (const r of s.rx.received) assert.deepEqual(r.result.facts, s.rx.received[0].result.facts)
  assert.equal(new Set(s.rx.received.map((r) => JSON.parse(r.body.toString()).id)).size, 1, 'one notification id')
})

test('reordered notifications arrive later one first and are each understood on their own', async (t) => {
  const s = await setup(t)
  await s.ctl.notifications({ mode: 'reorder' })
  const first = await s.paid()
  assert.equal(s.rx.received.length, 0, 'held back')
  const second = await s.paid()
  assert.deepEqual(s.rx.received.map((r) => (r.result.facts[0] as { attemptId: string }).attemptId), [second.attemptId, first.attemptId])
})

test('a delayed notification arrives when its time comes', async (t) => {
  const s = await setup(t)
  await s.ctl.notifications({ mode: 'delayed', delayMs: 5_000 })
  await s.paid()
  assert.equal(s.rx.received.length, 0)
  s.clock.advance(4_999)
  assert.equal((await s.ctl.tick()).ran, 0)
  s.clock.advance(1)
  assert.equal((await s.ctl.tick()).ran, 1)
  assert.deepEqual(s.rx.received.map((r) => r.result.ack.status), [204])
})

test('a dropped notification is never sent, and the query still reports the payment', async (t) => {
  const s = await setup(t)
  await s.ctl.notifications({ mode: 'drop' })
  const a = await s.paid()
  assert.equal(s.rx.received.length, 0)
  assert.deepEqual((await s.ctl.deliveries()).map((d) => [d.status, d.acked, d.error]), [[null, false, 'dropped by the drop knob']])
  const order = await s.ctl.order(a.attemptId)
  assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} }), {
    status: 'succeeded', providerRef: order.transaction_id, amount: 9900, currency: 'CNY', paidAt: new Date('2026-05-20T04:00:00.000Z'),
  })
  const { method, path, status, atMs, request } = (await s.ctl.requests()).at(-1)!
  assert.deepEqual({ method, path, status, atMs, request }, { method: 'GET', path: `/v3/pay/transactions/out-trade-no/${a.attemptId}?mchid=${s.creds.mchId}`, status: 200, atMs: s.clock().getTime(), request: undefined })
})

test('query and close: unpaid is pending (a failed try too); close, expiry and unknown orders are closed', async (t) => {
  const s = await setup(t)
  const ref = (a: AttemptInput) => ({ attemptId: a.attemptId, providerRef: null, data: {} })
  const a = s.attempt()
  await s.provider.createAttempt(s.cfg, a)
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref(a)), { status: 'pending' })
  await s.ctl.fail({ out_trade_no: a.attemptId })
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref(a)), { status: 'pending' })
  assert.deepEqual(await s.provider.closePayment(s.cfg, ref(a)), { closed: true })
  assert.equal((await s.ctl.order(a.attemptId)).trade_state, 'CLOSED')
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref(a)), { status: 'closed' })
  assert.deepEqual(await s.provider.closePayment(s.cfg, ref(a)), { closed: true }, 'closing twice is harmless')

  const b = s.attempt({ expiresAt: new Date(s.clock().getTime() + 60_000) })
  await s.provider.createAttempt(s.cfg, b)
  s.clock.advance(60_000)
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref(b)), { status: 'closed' }, 'time_expire passed')

  const never = s.attempt()
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref(never)), { status: 'closed' })
  assert.deepEqual(await s.provider.closePayment(s.cfg, ref(never)), { closed: true })
})

test('closing an order the customer has just paid surfaces the payment instead of hiding it', async (t) => {
  const s = await setup(t)
  const ref = (a: AttemptInput) => ({ attemptId: a.attemptId, providerRef: null, data: {} })
  await s.ctl.notifications({ mode: 'drop', persist: true })
  const a = s.attempt()
  await s.provider.createAttempt(s.cfg, a)
  await s.ctl.pay({ out_trade_no: a.attemptId }, { at: 'close' })
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref(a)), { status: 'pending' })
  const closed = await s.provider.closePayment(s.cfg, ref(a))
  const order = await s.ctl.order(a.attemptId)
  assert.equal(order.trade_state, 'SUCCESS')
  assert.deepEqual(closed, { alreadyPaid: { kind: 'payment', attemptId: a.attemptId, status: 'succeeded', providerRef: order.transaction_id, amount: 9900, currency: 'CNY', paidAt: new Date('2026-05-20T04:00:00.000Z') } })
  assert.deepEqual((await s.ctl.requests()).map((r) => [r.method, r.path.split('?')[0].replace(a.attemptId, 'ATT'), r.status]), [
    ['POST', '/v3/pay/transactions/native', 200],
    ['GET', '/v3/pay/transactions/out-trade-no/ATT', 200],
    ['POST', '/v3/pay/transactions/out-trade-no/ATT/close', 400],
    ['GET', '/v3/pay/transactions/out-trade-no/ATT', 200],
  ])
})

test('the fake plays the customer: "scanning" a code_url pays it; snsapi_base OAuth yields an openid, once per code', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const codeUrl = ((await s.provider.createAttempt(s.cfg, a)).action as { content: string }).content
  assert.match(await (await fetch(`${s.fake.url}/__fake/wechat`)).text(), new RegExp(`scan\\?code_url=${encodeURIComponent(codeUrl).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
  const scan = await fetch(`${s.fake.url}/__fake/wechat/scan?code_url=${encodeURIComponent(codeUrl)}`)
  assert.match(await scan.text(), /¥99\.00[\s\S]*Order #42/)
  const paid = await fetch(`${s.fake.url}/__fake/wechat/scan`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ code_url: codeUrl, action: 'pay' }).toString(),
  })
  assert.equal(paid.status, 200)
  assert.match(await paid.text(), /<h1>Paid<\/h1>/)
  assert.equal(s.rx.received[0].result.facts[0].kind, 'payment')

  const redirectUri = 'https://shop.example.com/c/sess_1/wechat'
  const authorize = oauthAuthorizeUrl({ appId: s.creds.appId, redirectUri, state: 'att_1', apiBase: s.fake.url })
  const back = await fetch(authorize, { redirect: 'manual' })
  assert.equal(back.status, 302)
  const location = new URL(back.headers.get('location')!)
  assert.equal(`${location.origin}${location.pathname}`, redirectUri)
  assert.equal(location.searchParams.get('state'), 'att_1')
  const code = location.searchParams.get('code')!
  const withSecret = { ...s.cfg, credentials: { ...s.cfg.credentials, appSecret: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6' } }
  assert.match(await s.provider.finishBrowserStep!(withSecret, code), /^o[0-9A-Za-z]{27}$/)
  await assert.rejects(s.provider.finishBrowserStep!(withSecret, code), (e: unknown) => isRejected('oauth_failed')(e) && (e as Error).message === '40029: invalid code')
  await assert.rejects(s.provider.finishBrowserStep!(s.cfg, code), isRejected('app_secret_required'))
})
