/**
 * Provider notifications delivered 2 to 5 times each, shuffled across many sessions and sent
 * concurrently, refund results before late payment duplicates and stale `pending` reports after
 * the final answer: every session is paid once with one record and one payment.succeeded, every
 * refund settles once with one refund.pending and one refund.succeeded. Randomized with a seed
 * (printed; FAULT_SEED replays it). The fixed cases live in test/webhooks/inbound.test.ts (mock) and
 * test/providers/wechat-till.test.ts (WeChat: five duplicates, reordered refunds).
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { buildMockNotification } from '../../src/providers/mock/index.js'
import type { Fact } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/attempts.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { eventsWhere, recordRow } from '../helpers/store-queries.js'
import { liveWechat } from '../helpers/wechat.js'

/** mulberry32: small, seedable, good enough to shuffle. */
function rng(t: TestContext) {
  let a = Number(process.env.FAULT_SEED) || (Date.now() % 2 ** 31)
  t.diagnostic(`seed ${a} (FAULT_SEED=${a} replays this run)`)
  const next = () => {
    a = (a + 0x6d2b79f5) | 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  return {
    times: () => 2 + Math.floor(next() * 4), // 2, 3, 4 or 5
    shuffle<T>(xs: T[]): T[] {
      const out = xs.slice()
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j], out[i]]
      }
      return out
    },
  }
}

/** Sends them all at once, eight in flight at a time, in the order given; every one must be acknowledged. */
async function deliverAll(sends: (() => Promise<number>)[]) {
  const queue = sends.slice()
  const statuses: number[] = []
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let send = queue.shift(); send; send = queue.shift()) statuses.push(await send())
  }))
  assert.deepEqual(statuses.filter((s) => s !== 200), [])
  assert.equal(statuses.length, sends.length)
}

const types = async (ta: TestApp, field: 'sessionId' | 'refundId', id: string) => (await eventsWhere(ta, field, id)).map((e) => e.type)

test('mock provider: 20 sessions, every notification 2–5 times, shuffled and concurrent, refunds before late payment duplicates', async (t) => {
  const ta = await startTestApp(t)
  const r = rng(t)
  const notify = (facts: Fact[]) => async () => {
    const { body, headers } = buildMockNotification(ta.deps.mockConfig, { facts })
    const res = await fetch(`${ta.baseUrl}/hooks/mock`, { method: 'POST', headers, body })
    await res.arrayBuffer()
    return res.status
  }
  const sessions: { id: string; pay: Fact }[] = []
  for (let i = 0; i < 20; i++) {
    const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000 + i, currency: 'CNY', metadata: { order: `N-${i}` } } })
    const { attempt } = await startAttempt(ta.deps, created.body.id, { provider: 'mock', providerConfigId: null, channel: 'mock', options: { refundBehavior: 'pending' } })
    sessions.push({ id: created.body.id, pay: { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: attempt.providerRef!, amount: 1000 + i, currency: 'CNY', paidAt: ta.clock() } })
  }
  await deliverAll(r.shuffle(sessions.flatMap((s) => Array.from({ length: r.times() }, () => notify([s.pay])))))

  const refunds: { sessionId: string; recordId: string; refundId: string; amount: number }[] = []
  for (const s of sessions) {
    const got = await ta.request('GET', `/api/v1/sessions/${s.id}`, { key: ta.merchant.testKey })
    assert.equal(got.body.status, 'paid')
    assert.deepEqual(await types(ta, 'sessionId', s.id), ['payment.succeeded'])
    for (const amount of [300, 200]) {
      const res = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: got.body.record.id, amount } })
      assert.equal(res.body.refund.status, 'pending')
      refunds.push({ sessionId: s.id, recordId: got.body.record.id, refundId: res.body.refund.id, amount })
    }
  }
  const { rows } = await ta.database.pool.query('select count(*)::int as n, count(distinct session_id)::int as sessions from records')
  assert.deepEqual(rows[0], { n: 20, sessions: 20 })

  // The final answers 2–5 times each, stale `pending` reports, and the payment notifications again, all mixed.
  const settle = (f: (typeof refunds)[number], status: 'succeeded' | 'pending'): Fact => ({ kind: 'refund', refundId: f.refundId, status, providerRefundRef: `mock_ref_${f.refundId.slice(4)}` })
  await deliverAll(r.shuffle([
    ...refunds.flatMap((f) => Array.from({ length: r.times() }, () => notify([settle(f, 'succeeded')]))),
    ...refunds.map((f) => notify([settle(f, 'pending')])),
    ...sessions.map((s) => notify([s.pay])),
  ]))

  for (const f of refunds) assert.deepEqual((await types(ta, 'refundId', f.refundId)).sort(), ['refund.pending', 'refund.succeeded'], f.refundId)
  for (const s of sessions) {
    assert.deepEqual(await types(ta, 'sessionId', s.id).then((ts) => ts.filter((x) => x.startsWith('payment.'))), ['payment.succeeded'])
    const record = await recordRow(ta, refunds.find((f) => f.sessionId === s.id)!.recordId)
    assert.deepEqual([record.refunded_amount, record.status], [500, 'partially_refunded'])
  }
  const dupes = await ta.database.pool.query(`select type, data->>'sessionId' as s, data->>'refundId' as r, count(*)::int as n from events group by 1, 2, 3 having count(*) > 1`)
  assert.deepEqual(dupes.rows, [])
})

test('WeChat: 6 payments and their refunds, each notification resent to make 2–5 deliveries, shuffled and concurrent', async (t) => {
  const w = await liveWechat(t)
  const r = rng(t)
  const live = { key: w.ta.merchant.liveKey }
  const orders: { sessionId: string; attemptId: string }[] = []
  for (let i = 0; i < 6; i++) {
    const s = await w.session()
    const { attempt } = await startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
    await w.ctl.pay({ out_trade_no: attempt.id })
    orders.push({ sessionId: s.id, attemptId: attempt.id })
  }
  // Each order was notified once when paid: 1–4 more make 2–5.
  const resendPayments = orders.flatMap((o) => Array.from({ length: r.times() - 1 }, () => async () => (await w.ctl.resend({ out_trade_no: o.attemptId }), 200)))
  await deliverAll(r.shuffle(resendPayments))

  const refunds: string[] = []
  for (const o of orders) {
    const got = await w.ta.request('GET', `/api/v1/sessions/${o.sessionId}`, live)
    assert.equal(got.body.status, 'paid')
    assert.deepEqual(await types(w.ta, 'sessionId', o.sessionId), ['payment.succeeded'])
    const res = await w.ta.request('POST', '/api/v1/refunds', { ...live, body: { recordId: got.body.record.id, amount: 1000 } })
    assert.equal(res.body.refund.status, 'pending', JSON.stringify(res.body))
    refunds.push(res.body.refund.id)
  }
  await w.ctl.tick() // WeChat settles the refunds and notifies each once
  const resendRefunds = refunds.flatMap((id) => Array.from({ length: r.times() - 1 }, () => async () => (await w.ctl.resend({ out_refund_no: id }), 200)))
  await deliverAll(r.shuffle([...resendRefunds, ...orders.map((o) => async () => (await w.ctl.resend({ out_trade_no: o.attemptId }), 200))]))

  const sent = (await w.ctl.deliveries()).filter((d) => !d.probe)
  assert.ok(sent.every((d) => d.acked), JSON.stringify(sent.filter((d) => !d.acked)))
  const count = (type: string) => sent.filter((d) => d.eventType === type).length
  assert.deepEqual([count('TRANSACTION.SUCCESS'), count('REFUND.SUCCESS')], [6 + resendPayments.length + 6, 6 + resendRefunds.length])
  for (const id of refunds) assert.deepEqual(await types(w.ta, 'refundId', id), ['refund.pending', 'refund.succeeded'], id)
  for (const o of orders) assert.deepEqual((await types(w.ta, 'sessionId', o.sessionId)).filter((x) => x.startsWith('payment.')), ['payment.succeeded'])
  const { rows } = await w.ta.database.pool.query(`select count(*)::int as records, sum(refunded_amount)::int as refunded from records`)
  assert.deepEqual(rows[0], { records: 6, refunded: 6000 })
})
