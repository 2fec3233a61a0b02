/** Test mode helpers and the mock provider's notification path (docs/architecture.md#the-state-machines, docs/architecture.md#provider-notifications-in, docs/integrate.md#test-mode). */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { buildMockNotification } from '../../src/providers/mock/index.js'
import type { Fact } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/attempts.js'
import { expireSession } from '../../src/services/sessions.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { getSession } from '../helpers/merchant-api.js'
import { createSession, eventsWhere, ISO_MS, sessionRow } from '../helpers/store-queries.js'

const helper = (ta: TestApp, id: string, action: string, opts: { key?: string; body?: unknown } = {}) =>
  ta.request('POST', `/api/v1/test_helpers/sessions/${id}/${action}`, { key: opts.key ?? ta.merchant.testKey, body: opts.body })

async function countEvents(ta: TestApp) {
  const { rows } = await ta.database.pool.query('select count(*)::int as n from events')
  return rows[0].n as number
}

/** The session's attempts' statuses by attempt id. */
async function attemptStatuses(ta: TestApp, sessionId: string) {
  const { rows } = await ta.database.pool.query('select id, status from attempts where session_id = $1', [sessionId])
  return Object.fromEntries(rows.map((r) => [r.id, r.status]))
}

/** The customer starts a mock payment; returns the attempt the notification will name. */
async function startMockAttempt(ta: TestApp, sessionId: string) {
  const { attempt } = await startAttempt(ta.deps, sessionId, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  return attempt
}

function paymentNotice(ta: TestApp, attempt: { id: string; providerRef: string | null }, amount: number, currency: string) {
  const fact: Fact = { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: attempt.providerRef ?? undefined, amount, currency, paidAt: ta.clock() }
  return buildMockNotification(ta.deps.mockConfig, { facts: [fact] })
}

const postHook = (ta: TestApp, body: Buffer, headers: Record<string, string>) =>
  fetch(`${ta.baseUrl}/hooks/mock`, { method: 'POST', body: new Uint8Array(body), headers })

test('pay answers the session exactly as a lookup shows it after payment', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 2500, currency: 'USD' })
  const paid = await helper(ta, created.id, 'pay', { body: {} })
  assert.equal(paid.status, 200)
  assert.equal(paid.body.status, 'paid')
  assert.equal(paid.body.id, created.id)
  assert.equal(paid.body.amount, 2500)
  assert.equal(paid.body.chosenProvider, 'mock')
  assert.match(paid.body.record.id, /^rec_[0-9A-Za-z]{24}$/)
  assert.equal(paid.body.record.provider, 'mock')
  assert.equal(paid.body.record.amount, 2500)
  assert.equal(paid.body.record.status, 'paid')
  assert.equal(typeof paid.body.record.providerRef, 'string')
  assert.match(paid.body.record.paidAt, ISO_MS)
  const looked = await getSession(ta, created.id)
  assert.equal(looked.status, 200)
  assert.deepEqual(paid.body, looked.body)
})

test('pay without a body pays too', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const paid = await helper(ta, created.id, 'pay')
  assert.equal(paid.status, 200)
  assert.equal(paid.body.status, 'paid')
})

test('paying emits exactly one payment.succeeded event with the record facts and metadata', async (t) => {
  const ta = await startTestApp(t)
  const metadata = { orderId: 'o-42' }
  const paid = await paidSession(ta, { amount: 1999, currency: 'HKD', metadata })
  const evs = await eventsWhere(ta, 'sessionId', paid.id)
  assert.deepEqual(evs.map((e) => e.type), ['payment.succeeded'])
  assert.deepEqual(evs[0].data, {
    sessionId: paid.id,
    status: 'paid',
    amount: 1999,
    currency: 'HKD',
    metadata,
    recordId: paid.record.id,
    provider: 'mock',
    providerRef: paid.record.providerRef,
    paidAt: paid.record.paidAt,
  })
  assert.ok(Number.isInteger(evs[0].data.amount))
})

test('fail makes the session failed with a payment.failed event', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 700, currency: 'CNY', metadata: { k: 'v' } })
  const res = await helper(ta, created.id, 'fail')
  assert.equal(res.status, 200)
  assert.equal(res.body.status, 'failed')
  assert.equal(res.body.record, undefined)
  assert.equal((await getSession(ta, created.id)).body.status, 'failed')
  const evs = await eventsWhere(ta, 'sessionId', created.id)
  assert.deepEqual(evs.map((e) => e.type), ['payment.failed'])
  assert.equal(evs[0].data.status, 'failed')
  assert.equal(evs[0].data.amount, 700)
  assert.deepEqual(evs[0].data.metadata, { k: 'v' })
})

test('cancel makes the session canceled with a session.canceled event', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const res = await helper(ta, created.id, 'cancel')
  assert.equal(res.status, 200)
  assert.equal(res.body.status, 'canceled')
  assert.equal((await getSession(ta, created.id)).body.status, 'canceled')
  const evs = await eventsWhere(ta, 'sessionId', created.id)
  assert.deepEqual(evs.map((e) => e.type), ['session.canceled'])
  assert.equal(evs[0].data.status, 'canceled')
})

test('expire makes the session expired with a session.expired event', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const res = await helper(ta, created.id, 'expire')
  assert.equal(res.status, 200)
  assert.equal(res.body.status, 'expired')
  assert.equal((await getSession(ta, created.id)).body.status, 'expired')
  assert.equal((await sessionRow(ta, created.id)).status, 'expired')
  const evs = await eventsWhere(ta, 'sessionId', created.id)
  assert.deepEqual(evs.map((e) => e.type), ['session.expired'])
  assert.equal(evs[0].data.status, 'expired')
})

test('a helper on a session that is already over is refused with its status', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const twice = await helper(ta, paid.id, 'pay', { body: {} })
  assert.equal(twice.status, 400)
  assert.deepEqual(twice.body, { error: 'session is paid', code: 'session_terminal' })
  for (const action of ['fail', 'cancel', 'expire']) {
    const res = await helper(ta, paid.id, action)
    assert.equal(res.status, 400, action)
    assert.deepEqual(res.body, { error: 'session is paid', code: 'session_terminal' })
  }

  const canceled = await createSession(ta)
  await helper(ta, canceled.id, 'cancel')
  assert.deepEqual((await helper(ta, canceled.id, 'pay', { body: {} })).body, { error: 'session is canceled', code: 'session_terminal' })
  assert.deepEqual((await helper(ta, canceled.id, 'expire')).body, { error: 'session is canceled', code: 'session_terminal' })

  const failed = await createSession(ta)
  await helper(ta, failed.id, 'fail')
  assert.deepEqual((await helper(ta, failed.id, 'cancel')).body, { error: 'session is failed', code: 'session_terminal' })

  const expired = await createSession(ta)
  await helper(ta, expired.id, 'expire')
  assert.deepEqual((await helper(ta, expired.id, 'pay', { body: {} })).body, { error: 'session is expired', code: 'session_terminal' })

  const refunded = await paidSession(ta)
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: refunded.record.id } })
  assert.deepEqual((await helper(ta, refunded.id, 'pay', { body: {} })).body, { error: 'session is refunded', code: 'session_terminal' })

  // Nothing was paid, failed or closed a second time.
  assert.deepEqual((await eventsWhere(ta, 'sessionId', paid.id)).map((e) => e.type), ['payment.succeeded'])
  assert.deepEqual((await eventsWhere(ta, 'sessionId', canceled.id)).map((e) => e.type), ['session.canceled'])
})

test('paying a session whose expiry passed is refused as expired, even before the sweep', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  ta.clock.advance(61_000)
  const res = await helper(ta, created.id, 'pay', { body: {} })
  assert.equal(res.status, 400)
  assert.deepEqual(res.body, { error: 'session is expired', code: 'session_terminal' })
  assert.deepEqual((await helper(ta, created.id, 'fail')).body, { error: 'session is expired', code: 'session_terminal' })
  assert.deepEqual((await helper(ta, created.id, 'cancel')).body, { error: 'session is expired', code: 'session_terminal' })
  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'expired')
  assert.equal(s.body.record, undefined)
  const { rows } = await ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [created.id])
  assert.equal(rows[0].n, 0)
})

test('the test helpers answer a live key with a 404 that says they need a test key', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const pendingPaid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: pendingPaid.record.id, amount: 10 } })
  assert.equal(refund.body.refund.status, 'pending')
  const routes = [
    [`/api/v1/test_helpers/sessions/${created.id}/pay`, {}],
    [`/api/v1/test_helpers/sessions/${created.id}/fail`, undefined],
    [`/api/v1/test_helpers/sessions/${created.id}/cancel`, undefined],
    [`/api/v1/test_helpers/sessions/${created.id}/expire`, undefined],
    [`/api/v1/test_helpers/refunds/${refund.body.refund.id}/succeed`, undefined],
    [`/api/v1/test_helpers/refunds/${refund.body.refund.id}/fail`, undefined],
  ] as const
  for (const [path, body] of routes) {
    const res = await ta.request('POST', path, { key: ta.merchant.liveKey, body })
    assert.equal(res.status, 404, path)
    assert.deepEqual(res.body, { error: 'test helpers need a test key (sk_test_…)', code: 'test_mode_only' }, path)
  }
  assert.equal((await getSession(ta, created.id)).body.status, 'pending')
  const { rows } = await ta.database.pool.query('select status from refunds where id = $1', [refund.body.refund.id])
  assert.equal(rows[0].status, 'pending')
})

test('a helper on an unknown session or another merchant\'s session is Not found', async (t) => {
  const ta = await startTestApp(t)
  for (const action of ['pay', 'fail', 'cancel', 'expire']) {
    const res = await helper(ta, 'sess_000000000000000000000000', action)
    assert.equal(res.status, 404, action)
    assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
  }
  const other = await ta.newMerchant('Other')
  const theirs = await createSession(ta, { amount: 1000, currency: 'CNY' }, other.testKey)
  const res = await helper(ta, theirs.id, 'pay', { body: {} })
  assert.equal(res.status, 404)
  assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
  const s = await ta.request('GET', `/api/v1/sessions/${theirs.id}`, { key: other.testKey })
  assert.equal(s.body.status, 'pending')
})

test('a notification with a wrong signature is refused with 401 and changes nothing', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const attempt = await startMockAttempt(ta, created.id)
  const before = await countEvents(ta)
  const { body, headers } = paymentNotice(ta, attempt, 1000, 'CNY')

  const forged = createHmac('sha256', Buffer.alloc(32, 7)).update(body).digest('hex')
  const wrongKey = await postHook(ta, body, { ...headers, 'x-mock-signature': forged })
  assert.equal(wrongKey.status, 401)
  const missing = await postHook(ta, body, { 'content-type': 'application/json' })
  assert.equal(missing.status, 401)
  // A forged signature as long in characters but longer in bytes (a Latin-1 header character): refused, not a 500.
  const nonAscii = await postHook(ta, body, { ...headers, 'x-mock-signature': `\u00e9${forged.slice(1)}` })
  assert.equal(nonAscii.status, 401)
  // The right signature over other bytes does not carry over.
  const tampered = Buffer.from(body.toString('utf8').replace('"amount":1000', '"amount":1001'))
  assert.notDeepEqual(tampered, body)
  const moved = await postHook(ta, tampered, headers)
  assert.equal(moved.status, 401)

  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'processing')
  assert.equal(s.body.record, undefined)
  assert.equal(await countEvents(ta), before)
  const { rows } = await ta.database.pool.query('select status from attempts where id = $1', [attempt.id])
  assert.equal(rows[0].status, 'processing')
})

test('the same valid notification delivered five times pays once and emits one event', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 1000, currency: 'CNY', metadata: { orderId: 'dup' } })
  const attempt = await startMockAttempt(ta, created.id)
  const { body, headers } = paymentNotice(ta, attempt, 1000, 'CNY')

  const first = await postHook(ta, body, headers)
  assert.equal(first.status, 200)
  const paidOnce = await getSession(ta, created.id)
  assert.equal(paidOnce.body.status, 'paid')

  const replays = await Promise.all(Array.from({ length: 4 }, () => postHook(ta, body, headers)))
  assert.deepEqual(replays.map((r) => r.status), [200, 200, 200, 200])

  const after = await getSession(ta, created.id)
  assert.deepEqual(after.body, paidOnce.body)
  const evs = await eventsWhere(ta, 'sessionId', created.id)
  assert.deepEqual(evs.map((e) => e.type), ['payment.succeeded'])
  assert.equal(evs[0].data.recordId, after.body.record.id)
  const { rows } = await ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [created.id])
  assert.equal(rows[0].n, 1)
})

test('five concurrent deliveries of one notification pay once and emit one event', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const attempt = await startMockAttempt(ta, created.id)
  const { body, headers } = paymentNotice(ta, attempt, 1000, 'CNY')
  const all = await Promise.all(Array.from({ length: 5 }, () => postHook(ta, body, headers)))
  assert.deepEqual(all.map((r) => r.status), [200, 200, 200, 200, 200])
  assert.equal((await getSession(ta, created.id)).body.status, 'paid')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', created.id)).map((e) => e.type), ['payment.succeeded'])
  const { rows } = await ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [created.id])
  assert.equal(rows[0].n, 1)
})

test('a notification with the wrong amount does not mark the session paid', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const attempt = await startMockAttempt(ta, created.id)
  const { body, headers } = paymentNotice(ta, attempt, 10, 'CNY')
  assert.equal((await postHook(ta, body, headers)).status, 200)
  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'processing')
  assert.equal(s.body.record, undefined)
  assert.deepEqual(await eventsWhere(ta, 'sessionId', created.id), [])
  // The attempt stays open: the customer's payment of the right amount still completes it.
  assert.deepEqual(await attemptStatuses(ta, created.id), { [attempt.id]: 'processing' })
  const right = paymentNotice(ta, attempt, 1000, 'CNY')
  assert.equal((await postHook(ta, right.body, right.headers)).status, 200)
  assert.equal((await getSession(ta, created.id)).body.status, 'paid')
})

test('a failure reported for an attempt the customer moved away from does not fail the session', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 1000, currency: 'CNY', metadata: { orderId: 'switch' } })
  const left = await startMockAttempt(ta, created.id)
  const current = await startMockAttempt(ta, created.id)
  const failure = buildMockNotification(ta.deps.mockConfig, { facts: [{ kind: 'payment', attemptId: left.id, status: 'failed' }] })
  assert.equal((await postHook(ta, failure.body, failure.headers)).status, 200)

  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'processing')
  assert.deepEqual(await eventsWhere(ta, 'sessionId', created.id), [], 'no payment.failed told the merchant')
  assert.deepEqual(await attemptStatuses(ta, created.id), { [left.id]: 'failed', [current.id]: 'processing' })

  // The attempt the customer is on still pays the session.
  const paid = paymentNotice(ta, current, 1000, 'CNY')
  assert.equal((await postHook(ta, paid.body, paid.headers)).status, 200)
  const after = await getSession(ta, created.id)
  assert.equal(after.body.status, 'paid')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', created.id)).map((e) => e.type), ['payment.succeeded'])
})

test('once every attempt of the session has failed, the session fails, once', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const left = await startMockAttempt(ta, created.id)
  const current = await startMockAttempt(ta, created.id)
  const fail = (a: { id: string }) => buildMockNotification(ta.deps.mockConfig, { facts: [{ kind: 'payment', attemptId: a.id, status: 'failed' }] })
  const first = fail(current)
  assert.equal((await postHook(ta, first.body, first.headers)).status, 200)
  assert.equal((await getSession(ta, created.id)).body.status, 'processing', 'the earlier attempt may still be paid')
  const last = fail(left)
  assert.equal((await postHook(ta, last.body, last.headers)).status, 200)
  assert.equal((await postHook(ta, last.body, last.headers)).status, 200)
  assert.equal((await getSession(ta, created.id)).body.status, 'failed')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', created.id)).map((e) => e.type), ['payment.failed'])
})

test('money that arrives after the session expired is not lost: the session becomes paid', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  const attempt = await startMockAttempt(ta, created.id)
  ta.clock.advance(61_000)
  assert.equal((await getSession(ta, created.id)).body.status, 'expired')
  // The stored expiry too, with its event, as the sweep or the helper would.
  await expireSession(ta.deps, created.id)
  assert.equal((await sessionRow(ta, created.id)).status, 'expired')

  const { body, headers } = paymentNotice(ta, attempt, 1000, 'CNY')
  assert.equal((await postHook(ta, body, headers)).status, 200)
  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'paid')
  assert.match(s.body.record.id, /^rec_/)
  assert.equal(s.body.record.amount, 1000)
  const evs = await eventsWhere(ta, 'sessionId', created.id)
  assert.deepEqual(evs.map((e) => e.type).sort(), ['payment.succeeded', 'session.expired'])
  assert.equal(evs.find((e) => e.type === 'payment.succeeded')!.data.recordId, s.body.record.id)

  // And that money can be refunded.
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: s.body.record.id } })
  assert.equal(refund.status, 200)
  assert.equal(refund.body.status, 'refunded')
})

test('money that arrives after the session lapsed but before the sweep makes it paid', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  const attempt = await startMockAttempt(ta, created.id)
  ta.clock.advance(120_000)
  const { body, headers } = paymentNotice(ta, attempt, 1000, 'CNY')
  assert.equal((await postHook(ta, body, headers)).status, 200)
  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'paid')
  assert.ok(s.body.record)
  assert.deepEqual((await eventsWhere(ta, 'sessionId', created.id)).map((e) => e.type), ['payment.succeeded'])
})

test('money that arrives after the customer canceled is not lost: the session becomes paid', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta, { amount: 3000, currency: 'EUR', metadata: { orderId: 'late' } })
  const attempt = await startMockAttempt(ta, created.id)
  const canceled = await helper(ta, created.id, 'cancel')
  assert.equal(canceled.body.status, 'canceled')

  const { body, headers } = paymentNotice(ta, attempt, 3000, 'EUR')
  assert.equal((await postHook(ta, body, headers)).status, 200)
  const s = await getSession(ta, created.id)
  assert.equal(s.body.status, 'paid')
  assert.equal(s.body.record.amount, 3000)
  const evs = await eventsWhere(ta, 'sessionId', created.id)
  assert.deepEqual(evs.map((e) => e.type).sort(), ['payment.succeeded', 'session.canceled'])
  const paidEvent = evs.find((e) => e.type === 'payment.succeeded')!
  assert.equal(paidEvent.data.recordId, s.body.record.id)
  assert.deepEqual(paidEvent.data.metadata, { orderId: 'late' })
})
