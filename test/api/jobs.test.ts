/** The sweeps (expiry, refund reconciliation, idempotency-key purge), driven by the injectable clock: no sleeping. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { reconcileAttempts, reconcileRefunds } from '../../src/jobs/reconcile.js'
import { JOBS } from '../../src/jobs/runner.js'
import type { Fact } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/attempts.js'
import { sendMockNotification } from '../../src/services/test-helpers.js'
import { expireDue } from '../../src/services/sessions.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { getSession, refund } from '../helpers/merchant-api.js'
import { createSession, eventsWhere, recordRow, refundRows, sessionRow } from '../helpers/store-queries.js'

async function refundStatus(ta: TestApp, id: string) {
  const { rows } = await ta.database.pool.query('select status, next_check_at, created_at, provider_ref from refunds where id = $1', [id])
  return rows[0] as { status: string; next_check_at: Date | null; created_at: Date; provider_ref: string | null }
}

test('the expiry sweep stores expired with one event for sessions past their expiry and leaves the rest', async (t) => {
  const ta = await startTestApp(t)
  const short = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60, metadata: { orderId: 's' } })
  const started = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  await startAttempt(ta.deps, started.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const long = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 3600 })
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })

  // Not yet due: nothing moves.
  ta.clock.advance(59_000)
  assert.equal(await expireDue(ta.deps), 0)
  assert.equal((await sessionRow(ta, short.id)).status, 'pending')

  ta.clock.advance(2_000)
  assert.equal(await expireDue(ta.deps), 2)
  assert.equal((await sessionRow(ta, short.id)).status, 'expired')
  assert.equal((await sessionRow(ta, started.id)).status, 'expired')
  assert.equal((await sessionRow(ta, long.id)).status, 'pending')
  assert.equal((await sessionRow(ta, paid.id)).status, 'paid')
  assert.equal((await getSession(ta, long.id)).body.status, 'pending')
  assert.equal((await getSession(ta, paid.id)).body.status, 'paid')

  const evs = await eventsWhere(ta, 'sessionId', short.id)
  assert.deepEqual(evs.map((e) => e.type), ['session.expired'])
  assert.deepEqual(evs[0].data, { sessionId: short.id, status: 'expired', amount: 1000, currency: 'CNY', metadata: { orderId: 's' } })
  assert.deepEqual((await eventsWhere(ta, 'sessionId', started.id)).map((e) => e.type), ['session.expired'])
  assert.deepEqual(await eventsWhere(ta, 'sessionId', long.id), [])
  assert.deepEqual((await eventsWhere(ta, 'sessionId', paid.id)).map((e) => e.type), ['payment.succeeded'])

  // The sweep again: nothing left to do, nothing emitted twice.
  assert.equal(await expireDue(ta.deps), 0)
  assert.equal((await eventsWhere(ta, 'sessionId', short.id)).length, 1)
})

test('two expiry sweeps running at once emit exactly one event per session', async (t) => {
  const ta = await startTestApp(t)
  const ids: string[] = []
  for (let i = 0; i < 6; i++) ids.push((await createSession(ta, { amount: 100 + i, currency: 'CNY', expiresInSeconds: 60 })).id)
  ta.clock.advance(3_600_000)
  const counts = await Promise.all([expireDue(ta.deps), expireDue(ta.deps), expireDue(ta.deps)])
  assert.equal(counts.reduce((a, b) => a + b, 0), 6)
  for (const id of ids) {
    assert.equal((await sessionRow(ta, id)).status, 'expired')
    assert.deepEqual((await eventsWhere(ta, 'sessionId', id)).map((e) => e.type), ['session.expired'])
  }
  const { rows } = await ta.database.pool.query("select count(*)::int as n from events where type = 'session.expired'")
  assert.equal(rows[0].n, 6)
})

test('a session the test helper already expired is not expired again by the sweep', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  const res = await ta.request('POST', `/api/v1/test_helpers/sessions/${s.id}/expire`, { key: ta.merchant.testKey })
  assert.equal(res.body.status, 'expired')
  ta.clock.advance(120_000)
  assert.equal(await expireDue(ta.deps), 0)
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type), ['session.expired'])
})

test('a pending mock refund settles as succeeded through reconciliation once 30 s have passed, not before', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { orderId: 'p' } }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id })
  assert.equal(res.body.refund.status, 'pending')
  const id = res.body.refund.id

  // Right away, and just before 30 s: not due, nothing settles.
  assert.equal(await reconcileRefunds(ta.deps), 0)
  ta.clock.advance(29_000)
  assert.equal(await reconcileRefunds(ta.deps), 0)
  assert.equal((await refundStatus(ta, id)).status, 'pending')
  assert.equal((await recordRow(ta, paid.record.id)).status, 'refunding')

  // Past both the check time and 30 s since the refund was made.
  const row = await refundStatus(ta, id)
  const due = Math.max(row.next_check_at!.getTime(), row.created_at.getTime() + 30_000)
  ta.clock.set(new Date(due + 1))
  assert.equal(await reconcileRefunds(ta.deps), 1)
  assert.equal((await refundStatus(ta, id)).status, 'succeeded')
  const record = await recordRow(ta, paid.record.id)
  assert.equal(record.status, 'refunded')
  assert.equal(record.refunded_amount, 1000)
  assert.equal((await getSession(ta, paid.id)).body.status, 'refunded')

  const evs = await eventsWhere(ta, 'refundId', id)
  assert.deepEqual(evs.map((e) => e.type).sort(), ['refund.pending', 'refund.succeeded'])
  const done = evs.find((e) => e.type === 'refund.succeeded')!
  assert.equal(done.data.amount, 1000)
  assert.equal(done.data.refundedAmount, 1000)
  assert.equal(done.data.recordStatus, 'refunded')
  assert.deepEqual(done.data.metadata, { orderId: 'p' })

  // Settled means settled: a later pass finds nothing.
  ta.clock.advance(3_600_000)
  assert.equal(await reconcileRefunds(ta.deps), 0)
  assert.equal((await eventsWhere(ta, 'refundId', id)).length, 2)
})

test('a pending refund asked about before 30 s stays pending and is asked again later', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id, amount: 400 })
  const id = res.body.refund.id
  // Due for a check early (as after a restart), but the provider still says pending.
  await ta.database.pool.query('update refunds set next_check_at = $2 where id = $1', [id, new Date(ta.clock().getTime() - 1)])
  ta.clock.advance(10_000)
  assert.equal(await reconcileRefunds(ta.deps), 1)
  const still = await refundStatus(ta, id)
  assert.equal(still.status, 'pending')
  assert.ok(still.next_check_at!.getTime() > ta.clock().getTime(), 'the next check is pushed back')
  assert.equal((await recordRow(ta, paid.record.id)).status, 'refunding')
  assert.deepEqual((await eventsWhere(ta, 'refundId', id)).map((e) => e.type), ['refund.pending'])

  ta.clock.set(new Date(still.next_check_at!.getTime() + 1))
  assert.equal(await reconcileRefunds(ta.deps), 1)
  assert.equal((await refundStatus(ta, id)).status, 'succeeded')
  const record = await recordRow(ta, paid.record.id)
  assert.equal(record.status, 'partially_refunded')
  assert.equal(record.refunded_amount, 400)
})

test('a refund left pending by a crash before the provider call is settled by reconciliation', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { orderId: 'crash' } })
  const id = newId('ref')
  const now = ta.clock()
  // What the reservation commits before the provider is called: a pending row, no provider ref.
  await ta.database.pool.query(
    `insert into refunds (id, record_id, merchant_id, mode, amount, status, reason, idempotency_key, next_check_at, created_at, updated_at)
     values ($1, $2, $3, 'test', 400, 'pending', 'crashed', null, $4, $5, $5)`,
    [id, paid.record.id, ta.merchant.id, new Date(now.getTime() - 1000), now],
  )
  // Already held back from what can be refunded.
  const over = await refund(ta, { recordId: paid.record.id, amount: 601 })
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 600 })

  assert.equal(await reconcileRefunds(ta.deps), 1)
  const settled = await refundStatus(ta, id)
  assert.equal(settled.status, 'succeeded')
  assert.equal(typeof settled.provider_ref, 'string')
  const record = await recordRow(ta, paid.record.id)
  assert.equal(record.status, 'partially_refunded')
  assert.equal(record.refunded_amount, 400)
  assert.equal((await getSession(ta, paid.id)).body.record.status, 'partially_refunded')

  const evs = await eventsWhere(ta, 'refundId', id)
  assert.deepEqual(evs.map((e) => e.type), ['refund.succeeded'])
  assert.equal(evs[0].data.amount, 400)
  assert.equal(evs[0].data.refundedAmount, 400)
  assert.equal(evs[0].data.recordStatus, 'partially_refunded')
  assert.deepEqual(evs[0].data.metadata, { orderId: 'crash' })

  // The rest is refundable again, exactly.
  const rest = await refund(ta, { recordId: paid.record.id })
  assert.equal(rest.status, 200)
  assert.equal(rest.body.refund.amount, 600)
  assert.equal(rest.body.status, 'refunded')
  assert.equal((await refundRows(ta, paid.record.id)).length, 2)
})

test('two reconciliation passes at once settle a pending refund once', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id })
  ta.clock.advance(31_000)
  const counts = await Promise.all([reconcileRefunds(ta.deps), reconcileRefunds(ta.deps)])
  assert.equal(counts[0] + counts[1], 1)
  assert.equal((await refundStatus(ta, res.body.refund.id)).status, 'succeeded')
  const evs = await eventsWhere(ta, 'refundId', res.body.refund.id)
  assert.deepEqual(evs.map((e) => e.type).sort(), ['refund.pending', 'refund.succeeded'])
})

test('a payment that lands while reconciliation closes an expired session\'s attempt keeps its attempt succeeded: the provider\'s resend is no paid_twice', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  const { attempt } = await startAttempt(ta.deps, s.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  ta.clock.advance(61_000)
  assert.equal(await expireDue(ta.deps), 1)
  const paid: Fact = { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: 'mock_pay_late', amount: 1000, currency: 'CNY' }
  // The customer's payment is notified while the provider is being asked to close the order (which cannot be closed any more).
  const mock = ta.deps.providers.get('mock')!
  const closing = Object.assign(Object.create(mock), {
    async closePayment() {
      await sendMockNotification(ta.deps, [paid])
      return { closed: true }
    },
  })
  const registry = ta.deps.providers
  ta.deps.providers = { get: (id) => (id === 'mock' ? closing : registry.get(id)) }
  assert.equal(await reconcileAttempts(ta.deps), 1)
  assert.equal((await sessionRow(ta, s.id)).status, 'paid')
  const stored = await ta.database.pool.query('select status from attempts where id = $1', [attempt.id])
  assert.equal(stored.rows[0].status, 'succeeded')
  // The provider delivers the same notification again: the same payment, nothing more.
  await sendMockNotification(ta.deps, [paid])
  assert.deepEqual((await ta.admin('GET', '/discrepancies')).body.data, [])
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type).sort(), ['payment.succeeded', 'session.expired'])
})

test('the idempotency purge job keeps a key 24 h: at 24 h − 1 s it replays, at 24 h + 1 s the same key is a new request', async (t) => {
  const ta = await startTestApp(t)
  const purge = JOBS.find((j) => j.name === 'idempotency-purge')!.start(ta.deps)
  const send = (amount: number) =>
    ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount, currency: 'CNY' }, headers: { 'idempotency-key': 'order-77' } })
  const first = await send(1000)
  assert.equal(first.status, 200)
  const keys = async () => Number((await ta.database.pool.query('select count(*) from idempotency_keys')).rows[0].count)

  ta.clock.advance(24 * 3600_000 - 1000)
  await purge.run()
  assert.equal(await keys(), 1, 'kept at 24 h − 1 s')
  const replay = await send(1000)
  assert.equal(replay.status, 200)
  assert.equal(replay.headers.get('idempotent-replayed'), 'true')
  assert.equal(replay.body.id, first.body.id)
  assert.equal((await send(2000)).body.code, 'idempotency_mismatch', 'a different request with the key is still refused')

  ta.clock.advance(2000)
  await purge.run()
  assert.equal(await keys(), 0, 'purged at 24 h + 1 s')
  const fresh = await send(2000)
  assert.equal(fresh.status, 200, JSON.stringify(fresh.body))
  assert.equal(fresh.headers.get('idempotent-replayed'), null)
  assert.notEqual(fresh.body.id, first.body.id)
  assert.equal(fresh.body.amount, 2000)
  const again = await send(2000)
  assert.equal(again.headers.get('idempotent-replayed'), 'true', 'the key is remembered anew from its new use')
  assert.equal(again.body.id, fresh.body.id)
})
