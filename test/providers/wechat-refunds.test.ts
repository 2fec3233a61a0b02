/**
 * Contract tests, continued: refunds (async, failed, partial, idempotent), WeChat's errors and
 * timeouts, answers that fail verification, platform-certificate mode, and the fake's own request
 * checks (it must refuse what WeChat refuses, or adapter bugs would pass).
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import { test } from 'node:test'
import { request } from 'undici'
import { newId } from '../../src/domain/ids.js'
import type { RefundInput } from '../../src/providers/types.js'
import { ProviderError } from '../../src/providers/types.js'
import { createWechatProvider } from '../../src/providers/wechat/index.js'
import { authorization, nonceStr, privateKeyOf, publicKeyOf, verifySigned } from '../../src/providers/wechat/sign.js'
import { setup } from '../helpers/wechat.js'

const isRejected = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === code
const isUnknown = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === code

type S = Awaited<ReturnType<typeof setup>>
const refundInput = (s: S, attemptId: string, amount: number, refundId = newId('ref')): RefundInput => ({
  refundId, amount, totalAmount: 9900, currency: 'CNY', reason: 'customer asked', notifyUrl: s.rx.url,
  payment: { attemptId, providerRef: null, data: {} },
})
const refundRef = (r: RefundInput) => ({ refundId: r.refundId, providerRefundRef: null, amount: r.amount, createdAt: new Date(), payment: r.payment })

test('a refund is PROCESSING (pending) until REFUND.SUCCESS arrives; the query agrees; the same out_refund_no is the same refund', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  const r = refundInput(s, a.attemptId, 3000)
  const first = await s.provider.refund(s.cfg, r)
  assert.deepEqual([first.status, first.currency], ['pending', 'CNY'])
  assert.match(first.providerRefundRef!, /^50\d{27}$/)
  assert.deepEqual(await s.provider.queryRefund(s.cfg, refundRef(r)), first)
  assert.equal(s.rx.received.length, 1, 'no refund notification before WeChat settles it')
  assert.equal((await s.ctl.tick()).ran, 1)
  assert.deepEqual(s.rx.received[1].result, {
    ack: { status: 204 },
    facts: [{ kind: 'refund', refundId: r.refundId, providerRefundRef: first.providerRefundRef, attemptId: a.attemptId, status: 'succeeded', amount: 3000, currency: 'CNY' }],
  })
  assert.deepEqual(await s.provider.queryRefund(s.cfg, refundRef(r)), { status: 'succeeded', providerRefundRef: first.providerRefundRef, currency: 'CNY' })
  // A retry (say after a crash) with the same id: the same refund, not a second one.
  assert.deepEqual(await s.provider.refund(s.cfg, r), { status: 'succeeded', providerRefundRef: first.providerRefundRef, currency: 'CNY' })
  assert.equal((await s.ctl.order(a.attemptId)).refunds.length, 1)
  assert.equal((await s.ctl.order(a.attemptId)).trade_state, 'REFUND')
  assert.deepEqual(await s.provider.queryPayment(s.cfg, r.payment), { status: 'succeeded', providerRef: (await s.ctl.order(a.attemptId)).transaction_id, amount: 9900, currency: 'CNY', paidAt: new Date('2026-05-20T04:00:00.000Z') })
})

test('partial refunds add up to the total and no further', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  assert.equal((await s.provider.refund(s.cfg, refundInput(s, a.attemptId, 3000))).status, 'pending')
  assert.equal((await s.provider.refund(s.cfg, refundInput(s, a.attemptId, 6900))).status, 'pending')
  await assert.rejects(s.provider.refund(s.cfg, refundInput(s, a.attemptId, 1)), isRejected('INVALID_REQUEST'))
  await s.ctl.tick()
  const facts = s.rx.received.slice(1).map((x) => x.result.facts[0] as { status: string; amount: number })
  assert.deepEqual(facts.map((f) => [f.status, f.amount]), [['succeeded', 3000], ['succeeded', 6900]])
  const unpaid = s.attempt()
  await s.provider.createAttempt(s.cfg, unpaid)
  await assert.rejects(s.provider.refund(s.cfg, refundInput(s, unpaid.attemptId, 100)), isRejected('RESOURCE_NOT_EXISTS'))
})

test('ABNORMAL stays pending and CLOSED is a failure; a delayed outcome waits for its time; a sync SUCCESS needs no notification to count', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  const abnormal = refundInput(s, a.attemptId, 1000)
  await s.ctl.refundOutcome({ out_refund_no: abnormal.refundId, status: 'ABNORMAL' })
  assert.equal((await s.provider.refund(s.cfg, abnormal)).status, 'pending')
  await s.ctl.tick()
  assert.deepEqual((s.rx.received.at(-1)!.result.facts[0] as { status: string }).status, 'pending')
  assert.equal(JSON.parse(s.rx.received.at(-1)!.body.toString()).event_type, 'REFUND.ABNORMAL')
  const q = await s.provider.queryRefund(s.cfg, refundRef(abnormal))
  assert.deepEqual(q, { status: 'pending', providerRefundRef: q.providerRefundRef, currency: 'CNY', failureReason: 'ABNORMAL: the refund could not reach the payer; handle it in the merchant platform' })

  await s.ctl.refundOutcome({ status: 'CLOSED', delayMs: 60_000 })
  const closed = refundInput(s, a.attemptId, 1000)
  await s.provider.refund(s.cfg, closed)
  s.clock.advance(59_999)
  assert.equal((await s.ctl.tick()).ran, 0)
  assert.equal((await s.provider.queryRefund(s.cfg, refundRef(closed))).status, 'pending')
  s.clock.advance(1)
  assert.equal((await s.ctl.tick()).ran, 1)
  assert.equal(JSON.parse(s.rx.received.at(-1)!.body.toString()).event_type, 'REFUND.CLOSED')
  assert.equal((await s.provider.queryRefund(s.cfg, refundRef(closed))).status, 'failed')

  await s.ctl.refundOutcome({ status: 'SUCCESS', sync: true })
  assert.equal((await s.provider.refund(s.cfg, refundInput(s, a.attemptId, 500))).status, 'succeeded')
})

test('a refund WeChat never received is `not_found`, so reconciliation sends it again with the same id', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  const r = refundInput(s, a.attemptId, 100)
  await assert.rejects(s.provider.queryRefund(s.cfg, refundRef(r)), isUnknown('not_found'))
})

test('5xx, 429 and timeouts are unknown outcomes; 4xx refusals are rejected; a lost reply is found by the query', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  await s.ctl.error({ route: 'refund', status: 500, code: 'SYSTEM_ERROR' })
  const lost = refundInput(s, a.attemptId, 100)
  await assert.rejects(s.provider.refund(s.cfg, lost), isUnknown('SYSTEM_ERROR'))
  await assert.rejects(s.ctl.refund(lost.refundId), /404/)

  await s.ctl.error({ route: 'refund', status: 500, code: 'SYSTEM_ERROR', applied: true })
  const applied = refundInput(s, a.attemptId, 100)
  await assert.rejects(s.provider.refund(s.cfg, applied), isUnknown('SYSTEM_ERROR'))
  assert.equal((await s.provider.queryRefund(s.cfg, refundRef(applied))).status, 'pending', 'it reached WeChat after all')

  await s.ctl.error({ route: 'refund', status: 429, code: 'FREQUENCY_LIMITED' })
  await assert.rejects(s.provider.refund(s.cfg, refundInput(s, a.attemptId, 100)), isUnknown('FREQUENCY_LIMITED'))
  await s.ctl.error({ route: 'refund', status: 403, code: 'NOT_ENOUGH', message: '商户余额不足' })
  await assert.rejects(s.provider.refund(s.cfg, refundInput(s, a.attemptId, 100)), (e: unknown) => isRejected('NOT_ENOUGH')(e) && (e as Error).message === 'WeChat Pay 403 NOT_ENOUGH: 商户余额不足')

  const impatient = createWechatProvider({ now: s.clock, timeoutMs: 200 })
  t.after(() => impatient.client.close())
  await s.ctl.error({ route: 'query', hangMs: 1000 })
  await assert.rejects(impatient.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} }), isUnknown('network'))
})

test('answers that fail verification are not believed: stale by exactly 300 s, or signed by another key', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  const ref = { attemptId: a.attemptId, providerRef: null, data: {} }
  // 300 s: the fake still takes our request (it allows ≤ 300), but its answer is stale to us (we refuse ≥ 300).
  await s.ctl.clockSkew(300)
  await assert.rejects(s.provider.queryPayment(s.cfg, ref), isUnknown('invalid_response_signature'))
  await s.ctl.clockSkew(301)
  await assert.rejects(s.provider.queryPayment(s.cfg, ref), isRejected('SIGN_ERROR'))
  await s.ctl.clockSkew(0)
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string
  await assert.rejects(s.provider.queryPayment({ ...s.cfg, credentials: { ...s.cfg.credentials, platformPublicKey: other } }, ref), isUnknown('invalid_response_signature'))
  assert.equal((await s.provider.queryPayment(s.cfg, ref)).status, 'succeeded')
})

test('public-key mode names PUB_KEY_ID_ in Wechatpay-Serial, so answers come signed with the public key and no certificates are needed', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} })
  assert.deepEqual((await s.ctl.requests()).map((r) => r.path.split('/')[2]), ['pay', 'pay'])
})

test('platform-certificate mode: certificates fetched once, decrypted with the APIv3 key; a rotated serial is fetched again', async (t) => {
  const s = await setup(t, { mode: 'platformCert' })
  assert.equal(s.creds.platformPublicKeyId, undefined)
  const a = await s.paid()
  assert.deepEqual(s.rx.received[0].result.ack, { status: 204 })
  const ref = { attemptId: a.attemptId, providerRef: null, data: {} }
  assert.equal((await s.provider.queryPayment(s.cfg, ref)).status, 'succeeded')
  const certCalls = async () => (await s.ctl.requests()).filter((r) => r.path === '/v3/certificates').length
  assert.equal(await certCalls(), 1)
  const rotated = await s.ctl.mode('platformCert', true)
  assert.equal(rotated.certificates.length, 2)
  // Issued at the same instant, the new one still takes effect later: clients name the newest.
  const [newer, older] = rotated.certificates.map((c: { pem: string }) => Date.parse(new X509Certificate(c.pem).validFrom))
  assert.ok(newer > older, `the rotated certificate takes effect at ${newer}, the old one at ${older}`)
  // Within a minute of the last fetch an unknown serial is not a reason to fetch again.
  await assert.rejects(s.provider.queryPayment(s.cfg, ref), isUnknown('invalid_response_signature'))
  s.clock.advance(60_000)
  assert.equal((await s.provider.queryPayment(s.cfg, ref)).status, 'succeeded')
  assert.equal(await certCalls(), 2)
})

test('certificate mode: every call names the newest platform certificate in Wechatpay-Serial, as the Go SDK does', async (t) => {
  const s = await setup(t, { mode: 'platformCert' })
  const a = s.attempt()
  await s.provider.createAttempt(s.cfg, a)
  const ref = { attemptId: a.attemptId, providerRef: null, data: {} }
  await s.provider.queryPayment(s.cfg, ref)
  const [first] = (await s.ctl.identity()).certificates
  const named = async () => (await s.ctl.requests()).map((r) => [r.path.split('?')[0].replace(a.attemptId, '{no}'), r.wechatpaySerial ?? null])
  // The certificate list itself is asked for without one (the SDK's downloader sends none either).
  assert.deepEqual(await named(), [['/v3/certificates', null], ['/v3/pay/transactions/native', first.serial], ['/v3/pay/transactions/out-trade-no/{no}', first.serial]])
  // A rotation: the next answer is signed with a serial Till does not know yet; it fetches the list and names the newer one from then on.
  s.clock.advance(61_000)
  const [newer] = (await s.ctl.mode('platformCert', true)).certificates
  assert.notEqual(newer.serial, first.serial)
  await s.provider.queryPayment(s.cfg, ref)
  await s.provider.queryPayment(s.cfg, ref)
  assert.deepEqual((await named()).slice(3), [['/v3/pay/transactions/out-trade-no/{no}', first.serial], ['/v3/certificates', null], ['/v3/pay/transactions/out-trade-no/{no}', newer.serial]])
})

test('the fake refuses what WeChat refuses: no or bad signature, another merchant serial, no Accept, unknown fields, bad fields', async (t) => {
  const s = await setup(t)
  const key = privateKeyOf(s.creds.privateKey)
  const send = async (method: string, path: string, body: unknown, o: { accept?: boolean; serial?: string; signKey?: typeof key; skipAuth?: boolean; wechatpaySerial?: string } = {}) => {
    const text = body === undefined ? '' : JSON.stringify(body)
    const ts = String(Math.floor(s.clock().getTime() / 1000))
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (o.accept !== false) headers.accept = 'application/json'
    if (o.wechatpaySerial) headers['wechatpay-serial'] = o.wechatpaySerial
    if (!o.skipAuth) headers.authorization = authorization({ mchId: s.creds.mchId, serialNo: o.serial ?? s.creds.merchantSerialNo, privateKey: o.signKey ?? key, method, target: path, body: text, timestamp: ts, nonce: nonceStr() })
    // undici's request, not fetch: fetch would add `accept: */*` by itself.
    const res = await request(s.fake.url + path, { method: method as 'POST', headers, body: body === undefined ? undefined : text })
    const raw = await res.body.text()
    return { status: res.statusCode, body: raw ? JSON.parse(raw) : null, headers: res.headers, raw }
  }
  const order = { appid: s.creds.appId, mchid: s.creds.mchId, description: 'x', out_trade_no: 'att_fakecheck0001', notify_url: 'https://shop.example.com/n', amount: { total: 1, currency: 'CNY' } }
  const SIGN_ERROR = { code: 'SIGN_ERROR', message: '签名错误' }
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', order, { skipAuth: true })).body, SIGN_ERROR)
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', order, { signKey: privateKeyOf(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string) })).body, SIGN_ERROR)
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', order, { serial: '0123456789ABCDEF' })).body, SIGN_ERROR)
  assert.deepEqual(await send('POST', '/v3/pay/transactions/native', order, { accept: false }).then((r) => [r.status, r.body.code]), [400, 'PARAM_ERROR'])
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', { ...order, foo: 1 })).body, { code: 'PARAM_ERROR', message: '参数中含有非法的额外参数: foo' })
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ out_trade_no: 'abc' }, 'out_trade_no格式不正确'],
    [{ description: '' }, 'description长度应在1到127之间'],
    [{ amount: { total: 1.5, currency: 'CNY' } }, 'amount.total必须为正整数（单位为分）'],
    [{ amount: { total: 1, currency: 'USD' } }, 'amount.currency仅支持CNY'],
    [{ notify_url: 'https://shop.example.com/n?x=1' }, 'notify_url格式不正确'],
    [{ time_expire: '2026-05-20 12:00:00' }, 'time_expire格式不正确，应为RFC3339'],
    [{ time_expire: '2026-05-20T11:59:59+08:00' }, 'time_expire已过期'],
  ]
  for (const [change, message] of bad) assert.deepEqual((await send('POST', '/v3/pay/transactions/native', { ...order, ...change })).body, { code: 'PARAM_ERROR', message }, message)
  assert.equal((await send('POST', '/v3/pay/transactions/native', order)).status, 200)
  // limit_pay is a field of the SDK's PrepayRequest: taken, and checked to be a list of strings.
  assert.equal((await send('POST', '/v3/pay/transactions/native', { ...order, out_trade_no: 'att_limitpay0001', limit_pay: ['no_credit'] })).status, 200)
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', { ...order, out_trade_no: 'att_limitpay0002', limit_pay: 'no_credit' })).body, { code: 'PARAM_ERROR', message: 'limit_pay格式不正确' })
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', { ...order, description: 'y' })).body, { code: 'INVALID_REQUEST', message: '请求重入时，参数与首次请求时不一致' })
  // Every answer is signed, the empty 204 of a close too.
  const close = await send('POST', `/v3/pay/transactions/out-trade-no/${order.out_trade_no}/close`, { mchid: s.creds.mchId }, { wechatpaySerial: s.creds.platformPublicKeyId })
  assert.equal(close.status, 204)
  const keys = { publicKeyId: s.creds.platformPublicKeyId, publicKey: publicKeyOf(s.creds.platformPublicKey!) }
  assert.deepEqual(verifySigned(close.headers, '', keys, s.clock()), { ok: true, serial: s.creds.platformPublicKeyId })
  // Pitfall P3: a request that does not name the public key gets an answer signed with the platform certificate.
  const unnamed = await send('GET', `/v3/pay/transactions/out-trade-no/${order.out_trade_no}?mchid=${s.creds.mchId}`, undefined)
  assert.equal(unnamed.headers['wechatpay-serial'], (await s.ctl.identity()).certificates[0].serial)
  assert.deepEqual((await send('POST', '/v3/pay/transactions/native', order)).body, { code: 'ORDER_CLOSED', message: '订单已关闭' })
})
