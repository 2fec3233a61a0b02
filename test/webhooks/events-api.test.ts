/**
 * /api/v1/events: cursor pagination newest first, the type filter, one event with its deliveries and
 * every attempt, and redelivery by hand.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { createEndpoint, startReceiver, verifySignature } from '../helpers/receiver.js'
import { createSession, ISO_MS } from '../helpers/store-queries.js'
import { errorBody } from '../helpers/errors.js'

const get = (ta: TestApp, path: string, key = ta.merchant.testKey) => ta.request('GET', `/api/v1/events${path}`, { key })
const redeliver = (ta: TestApp, id: string, body?: unknown, key = ta.merchant.testKey) => ta.request('POST', `/api/v1/events/${id}/redeliver`, { key, body })

/** n sessions canceled one second apart: n session.canceled events, oldest first. */
async function canceledSessions(ta: TestApp, n: number) {
  const ids = []
  for (let i = 0; i < n; i++) {
    const s = await createSession(ta, { amount: 100 + i, currency: 'CNY' })
    await ta.request('POST', `/api/v1/test_helpers/sessions/${s.id}/cancel`, { key: ta.merchant.testKey })
    ids.push(s.id)
    ta.clock.advance(1000)
  }
  return ids
}

test('the list is newest first, paged with limit and starting_after, and filtered by type', async (t) => {
  const ta = await startTestApp(t)
  const sessions = await canceledSessions(ta, 5)
  const paid = await paidSession(ta, { amount: 700, currency: 'USD', metadata: { order: 'p' } })

  const all = await get(ta, '')
  assert.equal(all.status, 200)
  assert.equal(all.body.hasMore, false)
  assert.equal(all.body.data.length, 6)
  assert.deepEqual(all.body.data.map((e: any) => e.data.sessionId), [paid.id, ...sessions.slice().reverse()])
  const newest = all.body.data[0]
  assert.deepEqual(Object.keys(newest), ['id', 'type', 'createdAt', 'mode', 'data'])
  assert.equal(newest.type, 'payment.succeeded')
  assert.match(newest.createdAt, ISO_MS)
  assert.equal(newest.mode, 'test')
  assert.equal(newest.data.amount, 700)
  assert.deepEqual(newest.data.metadata, { order: 'p' })

  const page1 = await get(ta, '?limit=2')
  assert.deepEqual(page1.body.data.map((e: any) => e.id), all.body.data.slice(0, 2).map((e: any) => e.id))
  assert.equal(page1.body.hasMore, true)
  const page2 = await get(ta, `?limit=2&starting_after=${page1.body.data[1].id}`)
  assert.deepEqual(page2.body.data.map((e: any) => e.id), all.body.data.slice(2, 4).map((e: any) => e.id))
  assert.equal(page2.body.hasMore, true)
  const page3 = await get(ta, `?limit=2&starting_after=${page2.body.data[1].id}`)
  assert.deepEqual(page3.body.data.map((e: any) => e.id), all.body.data.slice(4).map((e: any) => e.id))
  assert.equal(page3.body.hasMore, false)

  const canceled = await get(ta, '?type=session.canceled&limit=100')
  assert.equal(canceled.body.data.length, 5)
  assert.ok(canceled.body.data.every((e: any) => e.type === 'session.canceled'))
  assert.deepEqual((await get(ta, '?type=refund.failed')).body, { data: [], hasMore: false })
  // Default page size: 10.
  await canceledSessions(ta, 6)
  const firstPage = await get(ta, '')
  assert.equal(firstPage.body.data.length, 10)
  assert.equal(firstPage.body.hasMore, true)
})

test('list parameters are checked with field messages', async (t) => {
  const ta = await startTestApp(t)
  const other = await ta.newMerchant('Other')
  await canceledSessions(ta, 1)
  const foreign = (await get(ta, '')).body.data[0].id
  const cases: [string, string][] = [
    ['?limit=0', 'limit: must be at least 1'],
    ['?limit=101', 'limit: must be at most 100'],
    ['?limit=ten', 'limit: must be an integer'],
    ['?type=payment.done', 'type: must be one of payment.succeeded, payment.failed, session.canceled, session.expired, refund.pending, refund.succeeded, refund.failed, reconciliation.mismatches_found, payment.disputed, payment.dispute_closed'],
    ['?starting_after=evt_doesnotexist', 'starting_after: no such event'],
    ['?cursor=x', 'unknown field: cursor'],
  ]
  for (const [q, error] of cases) {
    const res = await get(ta, q)
    assert.deepEqual([res.status, res.body], [400, errorBody(error)], q)
  }
  // Another merchant's event is no cursor either.
  const res = await get(ta, `?starting_after=${foreign}`, other.testKey)
  assert.deepEqual([res.status, res.body], [400, { error: 'starting_after: no such event', code: 'invalid_field', param: 'starting_after' }])
})

test('an event reads back with each delivery and every attempt: time, status, latency, answer, error', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, (_r, n) => (n === 0 ? { status: 500, body: 'x'.repeat(3000) } : { status: 204 }))
  const good = await createEndpoint(ta, rx.url)
  const dead = await createEndpoint(ta, 'http://127.0.0.1:1/hooks')
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { order: 'A' } })
  const [event] = (await get(ta, '')).body.data

  const before = await get(ta, `/${event.id}`)
  assert.equal(before.status, 200)
  assert.deepEqual(before.body.deliveries.map((d: any) => [d.endpointId, d.status, d.attempts.length]).sort(), [[good.id, 'pending', 0], [dead.id, 'pending', 0]].sort())

  const t0 = ta.clock().toISOString()
  await deliverDue(ta.deps)
  ta.clock.advance(70_000)
  const t1 = ta.clock().toISOString()
  await deliverDue(ta.deps)

  const res = await get(ta, `/${event.id}`)
  const { deliveries, ...rest } = res.body
  assert.deepEqual(rest, event)
  assert.equal(rest.data.sessionId, paid.id)
  const byId = Object.fromEntries(deliveries.map((d: any) => [d.endpointId, d]))
  const g = byId[good.id]
  assert.equal(g.url, rx.url)
  assert.equal(g.status, 'delivered')
  assert.equal(g.nextAttemptAt, null)
  assert.equal(g.deliveredAt, t1)
  assert.equal(g.attempts.length, 2)
  assert.deepEqual(Object.keys(g.attempts[0]), ['attemptedAt', 'statusCode', 'latencyMs', 'responseBody', 'error'])
  assert.equal(g.attempts[0].attemptedAt, t0)
  assert.equal(g.attempts[0].statusCode, 500)
  assert.equal(g.attempts[0].responseBody, 'x'.repeat(1024))
  assert.equal(g.attempts[0].error, null)
  assert.ok(Number.isInteger(g.attempts[0].latencyMs) && g.attempts[0].latencyMs >= 0)
  assert.deepEqual([g.attempts[1].attemptedAt, g.attempts[1].statusCode, g.attempts[1].responseBody], [t1, 204, ''])

  const d = byId[dead.id]
  assert.equal(d.status, 'pending')
  assert.equal(d.attempts.length, 2)
  assert.equal(d.attempts[1].statusCode, null)
  assert.equal(d.attempts[1].responseBody, null)
  assert.match(d.attempts[1].error, /^ECONNREFUSED: /)
  assert.match(d.nextAttemptAt, ISO_MS)
  assert.ok(Date.parse(d.nextAttemptAt) > Date.parse(t1))

  for (const key of [ta.merchant.liveKey, (await ta.newMerchant('Other')).testKey]) {
    const res = await get(ta, `/${event.id}`, key)
    assert.deepEqual([res.status, res.body], [404, { error: 'Not found', code: 'not_found' }])
  }
})

test('redeliver sends an event again, now: to every matching endpoint, new ones included, or to one', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  const first = await createEndpoint(ta, rx.url + '/first')
  await paidSession(ta)
  await deliverDue(ta.deps)
  const [event] = (await get(ta, '')).body.data
  // Made after the event, and one that filters it out.
  const later = await createEndpoint(ta, rx.url + '/later')
  const refundsOnly = await createEndpoint(ta, rx.url + '/refunds', { events: ['refund.succeeded'] })

  ta.clock.advance(3600_000)
  const res = await redeliver(ta, event.id)
  assert.equal(res.status, 202, JSON.stringify(res.body))
  assert.equal(res.body.id, event.id)
  assert.deepEqual(res.body.scheduled.map((s: any) => s.endpointId).sort(), [first.id, later.id].sort())
  assert.ok(res.body.scheduled.every((s: any) => s.nextAttemptAt === ta.clock().toISOString()))
  assert.equal((await deliverDue(ta.deps)).length, 2)
  const got = await rx.received(3)
  assert.deepEqual(got.map((r) => r.url).sort(), ['/hooks/first', '/hooks/first', '/hooks/later'])
  // The same event, signed afresh an hour later (createdAt = signing time), with each endpoint's own secret.
  const again = got.slice(1).find((r) => r.url === '/hooks/first')!
  const [a, b] = [JSON.parse(got[0].body.toString()), JSON.parse(again.body.toString())]
  assert.deepEqual({ ...b, createdAt: null }, { ...a, createdAt: null })
  assert.equal(Date.parse(b.createdAt) - Date.parse(a.createdAt), 3600_000)
  const laterReq = got.find((r) => r.url === '/hooks/later')!
  assert.ok(verifySignature(later.secret, laterReq.body, laterReq.headers['x-service-signature']))
  assert.equal(verifySignature(first.secret, laterReq.body, laterReq.headers['x-service-signature']), false)

  // Named: one endpoint, even one whose filter would skip this type.
  const one = await redeliver(ta, event.id, { endpointId: refundsOnly.id })
  assert.deepEqual(one.body.scheduled.map((s: any) => s.endpointId), [refundsOnly.id])
  await deliverDue(ta.deps)
  assert.equal(rx.requests.at(-1)!.url, '/hooks/refunds')
  assert.equal(rx.requests.length, 4)

  const detail = (await get(ta, `/${event.id}`)).body
  const firstDelivery = detail.deliveries.find((d: any) => d.endpointId === first.id)
  assert.equal(firstDelivery.attempts.length, 2, 'both attempts to the first endpoint are listed')
  assert.equal(firstDelivery.status, 'delivered')
})

test('redeliver refuses what it cannot do', async (t) => {
  const ta = await startTestApp(t)
  await paidSession(ta)
  const [event] = (await get(ta, '')).body.data
  const none = await redeliver(ta, event.id)
  assert.deepEqual([none.status, none.body], [400, { error: 'no enabled webhook endpoint takes this event', code: 'webhook_endpoint_unavailable' }])

  const ep = await createEndpoint(ta, 'http://127.0.0.1:1/x')
  await ta.request('PATCH', `/api/v1/webhook_endpoints/${ep.id}`, { key: ta.merchant.testKey, body: { enabled: false } })
  const disabled = await redeliver(ta, event.id, { endpointId: ep.id })
  assert.deepEqual([disabled.status, disabled.body], [400, { error: 'webhook endpoint is disabled', code: 'webhook_endpoint_unavailable' }])
  assert.deepEqual((await redeliver(ta, event.id)).body, { error: 'no enabled webhook endpoint takes this event', code: 'webhook_endpoint_unavailable' })

  const live = await createEndpoint(ta, 'https://shop.example.com/x', {}, ta.merchant.liveKey)
  const otherMode = await redeliver(ta, event.id, { endpointId: live.id })
  assert.deepEqual([otherMode.status, otherMode.body], [400, { error: 'endpointId: no such webhook endpoint', code: 'invalid_field', param: 'endpointId' }])
  const unknownField = await redeliver(ta, event.id, { endpoint: ep.id })
  assert.deepEqual([unknownField.status, unknownField.body], [400, { error: 'unknown field: endpoint', code: 'unknown_field', param: 'endpoint' }])

  for (const key of [ta.merchant.liveKey, (await ta.newMerchant('Other')).testKey]) {
    const res = await redeliver(ta, event.id, undefined, key)
    assert.deepEqual([res.status, res.body], [404, { error: 'Not found', code: 'not_found' }])
  }
  assert.equal((await redeliver(ta, 'evt_nope')).status, 404)
})

test('a redelivery with an Idempotency-Key is scheduled once and replayed', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  await paidSession(ta)
  await deliverDue(ta.deps)
  const [event] = (await get(ta, '')).body.data
  const send = () => ta.request('POST', `/api/v1/events/${event.id}/redeliver`, { key: ta.merchant.testKey, headers: { 'idempotency-key': 'again-1' } })
  const a = await send()
  await deliverDue(ta.deps)
  const b = await send()
  assert.equal(b.status, 202)
  assert.equal(b.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(b.body, a.body)
  assert.deepEqual(await deliverDue(ta.deps), [])
  assert.equal(rx.requests.length, 2)
})
