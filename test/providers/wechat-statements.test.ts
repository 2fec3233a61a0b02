/**
 * Statements (docs/providers.md#statements): the WeChat adapter fetches and reads its fake's daily
 * statement over real HTTP. The fake builds it from its own orders and refunds; its knobs make each
 * kind of mismatch. Mainland here, then WeChat Pay Global.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { gathered } from '../../src/providers/statement-stream.js'
import type { StatementSource } from '../../src/providers/statements.js'
import type { ProviderConfig, RefundInput } from '../../src/providers/types.js'
import { createWechatProvider } from '../../src/providers/wechat/index.js'
import { fetchWhole, type WholeFetch } from '../helpers/reconciliation.js'
import { setup, wechatStatementPublishedAt } from '../helpers/wechat.js'
import { lines, read, totals } from '../helpers/statements.js'

type S = Awaited<ReturnType<typeof setup>>
const DAY = '2026-05-20'


/** A refund through the adapter, settled by the fake's job queue. */
async function refunded(s: S, attemptId: string, amount: number, total = 9900, currency: 'CNY' | 'HKD' = 'CNY') {
  const r: RefundInput = { refundId: newId('ref'), amount, totalAmount: total, currency, reason: null, notifyUrl: s.rx.url, payment: { attemptId, providerRef: null, data: {} } }
  await s.provider.refund(s.cfg, r)
  await s.fake.runDue()
  return r.refundId
}

/** Two payments and a refund on DAY, the clock moved to when WeChat publishes the statement. */
async function aDay(s: S) {
  const a = await s.paid()
  s.clock.advance(60_000)
  const b = await s.paid({ amount: 1234 })
  s.clock.advance(60_000)
  const refundId = await refunded(s, a.attemptId, 5000)
  const tx = async (id: string) => (await s.ctl.order(id)).transaction_id as string
  const refund = (await s.ctl.refund(refundId)) as { refund_id: string }
  s.clock.set(wechatStatementPublishedAt(DAY))
  return { a, b, refundId, txA: await tx(a.attemptId), txB: await tx(b.attemptId), refundRef: refund.refund_id }
}

test('a clean day: the trade bill and the fund-flow bill, gzip, each checked against its SHA1; the lines are exactly the fake\'s payments and refund', async (t) => {
  const s = await setup(t)
  const d = await aDay(s)
  const f = await fetchWhole(s.provider.statements!, s.cfg, DAY)
  assert.equal(s.provider.statements!.zone, 'Asia/Shanghai')
  assert.deepEqual(f.ready && f.files.map((x) => [x.name, x.type]), [['tradebill', 'text/csv; charset=utf-8'], ['fundflowbill', 'text/csv; charset=utf-8']])
  const items = await read(s.provider.statements!, f)
  assert.deepEqual(lines(items), [
    { kind: 'payment', tillRef: d.a.attemptId, providerRef: d.txA, amount: 9900, currency: 'CNY', status: 'succeeded', fee: 59, at: new Date('2026-05-20T04:00:00.000Z') },
    { kind: 'payment', tillRef: d.b.attemptId, providerRef: d.txB, amount: 1234, currency: 'CNY', status: 'succeeded', fee: 7, at: new Date('2026-05-20T04:01:00.000Z') },
    {
      kind: 'refund', tillRef: d.refundId, providerRef: d.refundRef, paymentTillRef: d.a.attemptId, paymentProviderRef: d.txA, amount: 5000, currency: 'CNY',
      status: 'succeeded', fee: -30, at: new Date('2026-05-20T04:02:00.000Z'),
    },
  ])
  assert.deepEqual(totals(items), [{ kind: 'total', currency: 'CNY', payments: { count: 2, amount: 11134 }, refunds: { count: 1, amount: 5000 }, fees: 36 }])
  const paths = (await s.ctl.requests()).map((r) => `${r.method} ${r.path.replace(/token=\w+/, 'token=…')} ${r.status}`).slice(-4)
  assert.deepEqual(paths, [
    `GET /v3/bill/tradebill?bill_date=${DAY}&bill_type=ALL&tar_type=GZIP 200`,
    'GET /v3/billdownload/file?token=… 200',
    `GET /v3/bill/fundflowbill?bill_date=${DAY}&account_type=BASIC&tar_type=GZIP 200`,
    'GET /v3/billdownload/file?token=… 200',
  ])
})

test('plain files verify as well as gzip ones, and read the same', async (t) => {
  const s = await setup(t)
  await aDay(s)
  const plain = createWechatProvider({ now: s.clock, statementGzip: false })
  t.after(() => plain.client.close())
  const viaGzip = lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY)))
  const viaPlain = lines(await read(plain.statements!, await fetchWhole(plain.statements!, s.cfg, DAY)))
  assert.deepEqual(viaPlain, viaGzip)
  assert.equal(viaPlain.length, 3)
  assert.ok((await s.ctl.requests()).some((r) => r.path === `/v3/bill/tradebill?bill_date=${DAY}&bill_type=ALL`))
})

test('the download needs a valid signature and its answer carries no WeChat signature', async (t) => {
  const s = await setup(t)
  await aDay(s)
  const applied = (await s.provider.client.call<{ download_url: string; hash_value: string }>(s.cfg, 'GET', `/v3/bill/tradebill?bill_date=${DAY}`)).data!
  const unsigned = await fetch(applied.download_url, { headers: { accept: 'application/json' } })
  assert.equal(unsigned.status, 401)
  assert.equal((await unsigned.json()).code, 'SIGN_ERROR')
  const url = new URL(applied.download_url)
  const signed = await s.provider.client.getFile(s.cfg, url.pathname + url.search)
  assert.equal(signed.status, 200)
  assert.equal(signed.headers['wechatpay-signature'], undefined)
  assert.match((await gathered(signed.body)).toString('utf8'), /^交易时间,公众账号ID,/)
  // Five minutes later the link is dead.
  s.clock.advance(5 * 60_000 + 1000)
  const dead = await s.provider.client.getFile(s.cfg, url.pathname + url.search)
  assert.equal(dead.status, 400)
  await gathered(dead.body)
})

test('not published yet: nothing is asked before 10:00 Beijing the next day; a held statement answers STATEMENT_CREATING until released', async (t) => {
  const s = await setup(t)
  await s.paid()
  const before = fetchWhole(s.provider.statements!, s.cfg, DAY)
  assert.deepEqual(await before, { ready: false, reason: `WeChat Pay publishes ${DAY}'s statement after 10:00 Beijing time the next day`, retryAfterS: 22 * 3600 })
  assert.equal((await s.ctl.requests()).filter((r) => r.path.startsWith('/v3/bill')).length, 0)
  await s.ctl.statementHold(DAY)
  s.clock.set(wechatStatementPublishedAt(DAY))
  assert.deepEqual(await fetchWhole(s.provider.statements!, s.cfg, DAY), { ready: false, reason: 'tradebill: WeChat Pay is still creating it', retryAfterS: 1800 })
  await s.ctl.statementRelease(DAY)
  const f = await fetchWhole(s.provider.statements!, s.cfg, DAY)
  assert.equal(lines(await read(s.provider.statements!, f)).length, 1)
})

test('a download that does not match its SHA1 is refused whole, gzip or plain, and the next one is used', async (t) => {
  const s = await setup(t)
  await aDay(s)
  const plain = createWechatProvider({ now: s.clock, statementGzip: false })
  t.after(() => plain.client.close())
  for (const p of [s.provider, plain]) {
    await s.ctl.statementCorrupt(DAY)
    assert.deepEqual(await fetchWhole(p.statements!, s.cfg, DAY), { ready: false, reason: 'tradebill: the download does not match WeChat Pay\'s SHA1; refused', retryAfterS: 60 })
    assert.equal(lines(await read(p.statements!, await fetchWhole(p.statements!, s.cfg, DAY))).length, 3)
  }
})

test('a day without business: WeChat has no file (NO_STATEMENT_EXIST), so the day is ready with files that hold no line', async (t) => {
  const s = await setup(t)
  s.clock.set(wechatStatementPublishedAt('2026-05-19'))
  const f = await fetchWhole(s.provider.statements!, s.cfg, '2026-05-19')
  assert.deepEqual(f.ready && f.files.map((x) => [x.name, x.bytes.length]), [['tradebill', 0], ['fundflowbill', 0]])
  assert.deepEqual(await read(s.provider.statements!, f), [])
})

test('each knob shows in the lines: a line dropped, an amount changed, an unknown payment, a currency changed, a refund\'s status flipped', async (t) => {
  const s = await setup(t)
  const d = await aDay(s)
  await s.ctl.statementDrop(DAY, { ref: d.b.attemptId })
  await s.ctl.statementAmount(DAY, { ref: d.a.attemptId }, 9800)
  const unknown = await s.ctl.statementUnknownPayment(DAY, { amount: 777 })
  await s.ctl.statementCurrency(DAY, { ref: d.refundId }, 'USD')
  await s.ctl.statementRefundStatus(DAY, d.refundId, 'REFUNDCLOSE')
  const got = lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY)))
  assert.deepEqual(got.map((l) => [l.kind, l.tillRef, l.providerRef, l.amount, l.currency, l.status]), [
    ['payment', d.a.attemptId, d.txA, 9800, 'CNY', 'succeeded'],
    ['refund', d.refundId, d.refundRef, 5000, 'USD', 'failed'],
    ['payment', unknown.ref, unknown.providerRef, 777, 'CNY', 'succeeded'],
  ])
  await s.ctl.statementReset(DAY)
  await s.ctl.statementRefundStatus(DAY, d.refundId, 'PROCESSING')
  const pending = lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY)))
  assert.deepEqual(pending.map((l) => [l.tillRef, l.status]), [[d.a.attemptId, 'succeeded'], [d.b.attemptId, 'succeeded'], [d.refundId, 'pending']])
})

test('a bill is not updated once published: a refund settled afterwards keeps the status it had', async (t) => {
  const s = await setup(t)
  const a = await s.paid()
  await s.ctl.refundOutcome({ status: 'SUCCESS', delayMs: 48 * 3600_000 })
  const r: RefundInput = { refundId: newId('ref'), amount: 100, totalAmount: 9900, currency: 'CNY', reason: null, notifyUrl: s.rx.url, payment: { attemptId: a.attemptId, providerRef: null, data: {} } }
  await s.provider.refund(s.cfg, r)
  s.clock.set(wechatStatementPublishedAt(DAY))
  const first = lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY)))
  assert.equal(first[1].status, 'pending')
  s.clock.advance(48 * 3600_000)
  await s.fake.runDue()
  assert.equal((await s.ctl.refund(r.refundId)).status, 'SUCCESS')
  const again = lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY)))
  assert.equal(again[1].status, 'pending')
})

test('WeChat Pay Global: one signed answer holds the statement, its SHA1 in Wechatpay-Statement-Sha1; amounts in the listed currency', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  const a = await s.paid({ amount: 2000, currency: 'HKD' })
  const refundId = await refunded(s, a.attemptId, 500, 2000, 'HKD')
  const order = await s.ctl.order(a.attemptId)
  s.clock.set(wechatStatementPublishedAt(DAY))
  const f = await fetchWhole(s.provider.statements!, s.cfg, DAY)
  assert.deepEqual(f.ready && f.files.map((x) => x.name), ['statement'])
  const got = lines(await read(s.provider.statements!, f))
  assert.deepEqual(got.map((l) => [l.kind, l.tillRef, l.providerRef, l.amount, l.currency, l.status, l.fee]), [
    ['payment', a.attemptId, order.id, 2000, 'HKD', 'succeeded', 12],
    ['refund', refundId, order.refunds[0].id, 500, 'HKD', 'succeeded', -3],
  ])
  const req = (await s.ctl.requests()).at(-1)!
  assert.equal(req.path, `/v3/global/statements?date=20260520&mchid=${s.creds.mchId}`)
})

test('WeChat Pay Global: a PROCESSING refund counts as succeeded (its statements FAQ), a closed one failed; a damaged answer is refused, gzip or plain', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  const a = await s.paid({ amount: 2000, currency: 'HKD' })
  const refundId = await refunded(s, a.attemptId, 500, 2000, 'HKD')
  s.clock.set(wechatStatementPublishedAt(DAY))
  const status = async (p: { statements?: StatementSource }, cfg: ProviderConfig = s.cfg) => lines(await read(p.statements!, await fetchWhole(p.statements!, cfg, DAY)))[1].status
  await s.ctl.statementRefundStatus(DAY, refundId, 'PROCESSING')
  assert.equal(await status(s.provider), 'succeeded')
  await s.ctl.statementRefundStatus(DAY, refundId, 'REFUNDCLOSE')
  assert.equal(await status(s.provider), 'failed')
  const plain = createWechatProvider({ now: s.clock, statementGzip: false })
  t.after(() => plain.client.close())
  for (const p of [s.provider, plain]) {
    await s.ctl.statementCorrupt(DAY)
    assert.deepEqual(await fetchWhole(p.statements!, s.cfg, DAY), { ready: false, reason: 'statement: the download does not match WeChat Pay\'s SHA1; refused', retryAfterS: 60 })
    assert.equal(await status(p), 'failed')
  }
})

test('WeChat Pay Global: held, then released; a day without business is ready and empty', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  await s.paid({ amount: 2000, currency: 'HKD' })
  await s.ctl.statementHold(DAY)
  s.clock.set(wechatStatementPublishedAt(DAY))
  assert.deepEqual(await fetchWhole(s.provider.statements!, s.cfg, DAY), { ready: false, reason: 'statement: WeChat Pay is still creating it', retryAfterS: 1800 })
  await s.ctl.statementRelease(DAY)
  assert.equal(lines(await read(s.provider.statements!, await fetchWhole(s.provider.statements!, s.cfg, DAY))).length, 1)
  const empty = await fetchWhole(s.provider.statements!, s.cfg, '2026-05-19')
  assert.deepEqual(empty.ready && empty.files.map((x) => [x.name, x.bytes.length]), [['statement', 0]])
})

test('trust: a Global statement whose signature over its SHA1 does not verify is refused; a download_url on another host is never asked', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  await s.paid({ amount: 2000, currency: 'HKD' })
  s.clock.set(wechatStatementPublishedAt(DAY))
  const { generateKeyPairSync } = await import('node:crypto')
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string
  const forged: ProviderConfig = { ...s.cfg, credentials: { ...s.cfg.credentials, platformPublicKey: stranger } }
  await assert.rejects(fetchWhole(s.provider.statements!, forged, DAY), { code: 'invalid_response_signature' })

  const m = await setup(t)
  await m.paid()
  m.clock.set(wechatStatementPublishedAt(DAY))
  const elsewhere: ProviderConfig = { ...m.cfg, settings: { ...m.cfg.settings, apiBase: m.fake.url.replace('127.0.0.1', 'localhost') } }
  await assert.rejects(fetchWhole(m.provider.statements!, elsewhere, DAY), { code: 'untrusted_download_url' })
  assert.equal((await m.ctl.requests()).filter((r) => r.path.startsWith('/v3/billdownload')).length, 0)
})

test('the knobs refuse what the statement could not show: a currency WeChat\'s file has no decimals for, a day that is not one, a line named by nothing', async (t) => {
  const s = await setup(t)
  await assert.rejects(s.ctl.statementCurrency(DAY, { ref: 'x' }, 'GBP'), /currency must be one of CNY, HKD, USD, EUR, JPY/)
  await assert.rejects(s.ctl.statementHold('20260520'), /date must be YYYY-MM-DD/)
  await assert.rejects(s.ctl.statementDrop(DAY, { ref: '' }), /ref names the line/)
  await assert.rejects(s.ctl.statementRefundStatus(DAY, 'x', 'DONE'), /status must be one of SUCCESS, PROCESSING, REFUNDCLOSE, CHANGE/)
})
