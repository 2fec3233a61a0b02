/**
 * Inbound stays idempotent: the same provider notification delivered five times, at once, or out of
 * order, changes state once, writes one event, and so sends the merchant one webhook. And it is
 * atomic: a change and its event commit together or not at all.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { buildMockNotification } from '../../src/providers/mock/index.js'
import type { Fact } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/attempts.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { createEndpoint, startReceiver } from '../helpers/receiver.js'
import { createSession, eventsWhere, recordRow, refundRows, sessionRow } from '../helpers/store-queries.js'

/** The mock provider's server posting a signed notification to /hooks/mock over HTTP. */
async function notify(ta: TestApp, facts: Fact[]) {
  const { body, headers } = buildMockNotification(ta.deps.mockConfig, { facts })
  const res = await fetch(`${ta.baseUrl}/hooks/mock`, { method: 'POST', headers, body })
  return res.status
}

test('the same payment notification five times at once: one record, one payment.succeeded, one webhook', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  const s = await createSession(ta, { amount: 2500, currency: 'CNY', metadata: { order: 'dup' } })
  const { attempt } = await startAttempt(ta.deps, s.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const fact: Fact = { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: attempt.providerRef!, amount: 2500, currency: 'CNY', paidAt: ta.clock() }

  const statuses = await Promise.all(Array.from({ length: 5 }, () => notify(ta, [fact])))
  assert.deepEqual(statuses, [200, 200, 200, 200, 200])
  assert.equal((await sessionRow(ta, s.id)).status, 'paid')
  const { rows } = await ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [s.id])
  assert.equal(rows[0].n, 1)
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type), ['payment.succeeded'])

  await deliverDue(ta.deps)
  assert.equal(rx.requests.length, 1)
  assert.equal(rx.requests[0].json.type, 'payment.succeeded')
  assert.deepEqual(rx.requests[0].json.data.metadata, { order: 'dup' })
})

test('out of order: refund notifications first settle once, a late payment notification and a late failure change nothing', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id } })
  assert.equal(refund.body.refund.status, 'pending')
  const refundId = refund.body.refund.id
  const { rows: [attempt] } = await ta.database.pool.query('select id, provider_ref from attempts where session_id = $1', [paid.id])

  const settled: Fact = { kind: 'refund', refundId, status: 'succeeded', providerRefundRef: `mock_ref_${refundId.slice(4)}` }
  for (let i = 0; i < 5; i++) assert.equal(await notify(ta, [settled]), 200)
  // The payment notification again, after the refund: and a failure report for the same attempt.
  const lateSuccess: Fact = { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: attempt.provider_ref, amount: 1000, currency: 'CNY', paidAt: ta.clock() }
  const lateFailure: Fact = { kind: 'payment', attemptId: attempt.id, status: 'failed', providerRef: attempt.provider_ref }
  assert.equal(await notify(ta, [lateSuccess, lateFailure]), 200)
  // And a pending report arriving after the success.
  assert.equal(await notify(ta, [{ ...settled, status: 'pending' }]), 200)

  assert.equal((await sessionRow(ta, paid.id)).status, 'refunded')
  const record = await recordRow(ta, paid.record.id)
  assert.equal(record.status, 'refunded')
  assert.equal(record.refunded_amount, 1000)
  assert.deepEqual((await refundRows(ta, paid.record.id)).map((r) => r.status), ['succeeded'])
  assert.deepEqual((await eventsWhere(ta, 'sessionId', paid.id)).map((e) => e.type).sort(), ['payment.succeeded', 'refund.pending', 'refund.succeeded'])

  await deliverDue(ta.deps)
  assert.deepEqual(rx.requests.map((r) => r.json.type).sort(), ['payment.succeeded', 'refund.pending', 'refund.succeeded'])
})

/**
 * A failure after the event's insert, before the commit: a trigger made by the test refuses the
 * webhook delivery row the same transaction writes next (no production seam needed). Returns its undoing.
 */
async function refuseDeliveries(ta: TestApp) {
  await ta.database.pool.query(`create function refuse_delivery() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`)
  await ta.database.pool.query('create trigger refuse_delivery before insert on webhook_deliveries for each row execute function refuse_delivery()')
  return async () => {
    await ta.database.pool.query('drop trigger refuse_delivery on webhook_deliveries')
  }
}

test('a failure between the event insert and the commit leaves no change, no event and no delivery: a payment and a refund settlement', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  const deliveries = async () => (await ta.database.pool.query('select count(*)::int as n from webhook_deliveries')).rows[0].n as number
  const s = await createSession(ta, { amount: 1000, currency: 'CNY' })
  const { attempt } = await startAttempt(ta.deps, s.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const paid: Fact = { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: attempt.providerRef!, amount: 1000, currency: 'CNY' }
  const other = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const refundId = (await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: other.record.id } })).body.refund.id
  const settled: Fact = { kind: 'refund', refundId, status: 'succeeded', providerRefundRef: `mock_ref_${refundId.slice(4)}` }
  const before = await deliveries()

  const restore = await refuseDeliveries(ta)
  assert.equal(await notify(ta, [paid]), 500)
  assert.equal(await notify(ta, [settled]), 500)
  assert.equal((await sessionRow(ta, s.id)).status, 'processing')
  assert.deepEqual(await eventsWhere(ta, 'sessionId', s.id), [])
  assert.deepEqual((await refundRows(ta, other.record.id)).map((r) => r.status), ['pending'])
  const record = await recordRow(ta, other.record.id)
  assert.deepEqual([record.status, record.refunded_amount], ['refunding', 0])
  assert.deepEqual((await eventsWhere(ta, 'refundId', refundId)).map((e) => e.type), ['refund.pending'])
  assert.equal(await deliveries(), before)

  // The provider retries once the fault is gone: each change commits with its event and delivery.
  await restore()
  assert.equal(await notify(ta, [paid]), 200)
  assert.equal(await notify(ta, [settled]), 200)
  assert.equal((await sessionRow(ta, s.id)).status, 'paid')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type), ['payment.succeeded'])
  assert.deepEqual((await eventsWhere(ta, 'refundId', refundId)).map((e) => e.type), ['refund.pending', 'refund.succeeded'])
  assert.equal(await deliveries(), before + 2)
})
