/**
 * Signed delivery to a real local receiver: every event type with its data, the signature over the
 * exact raw bytes (signed later than stored), the headers, and the retry schedule driven by the injectable clock.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import Ajv from 'ajv'
import { EVENT_TYPES } from '../../src/domain/events.js'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { createEndpoint, deliveryRows, startReceiver, verifySignature } from '../helpers/receiver.js'
import { createSession, ISO_MS } from '../helpers/store-queries.js'

const MIN = 60_000
const helper = (ta: TestApp, path: string, body: unknown = {}) => ta.request('POST', `/api/v1/test_helpers/${path}`, { key: ta.merchant.testKey, body })

test('every event type arrives signed over its raw bytes, with its data, metadata and headers', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  const ep = await createEndpoint(ta, rx.url)
  const meta = { orderId: 'A-1', note: '谢谢 🧾' }

  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY', metadata: meta })
  const failed = await createSession(ta, { amount: 1500, currency: 'JPY', metadata: meta })
  await helper(ta, `sessions/${failed.id}/fail`)
  const canceled = await createSession(ta, { amount: 100, currency: 'USD', metadata: meta })
  await helper(ta, `sessions/${canceled.id}/cancel`)
  const expired = await createSession(ta, { amount: 200, currency: 'EUR', metadata: meta })
  await helper(ta, `sessions/${expired.id}/expire`)
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 1000, reason: '破损' } })
  const slow = await paidSession(ta, { amount: 5000, currency: 'HKD', metadata: meta }, 'pending')
  const pending = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: slow.record.id, amount: 700 } })
  const refused = await paidSession(ta, { amount: 3000, currency: 'CNY', metadata: meta }, 'fail')
  const failedRefund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: refused.record.id } })

  // Stored now, sent five minutes later: each body carries the moment it was signed, and the
  // signature must cover exactly the bytes sent, not the stored event nor another rendering of it.
  const paidAt = ta.clock().toISOString()
  ta.clock.advance(5 * MIN)
  const signedAt = ta.clock().toISOString()
  // More than the 8 deliveries one endpoint may have in flight at once: raise that cap for this one pass.
  const results = await deliverDue(ta.deps, { perEndpoint: 16 })
  assert.equal(results.length, 9)
  assert.ok(results.every((r) => r.status === 'delivered' && r.statusCode === 200), JSON.stringify(results))
  const got = await rx.received(9)

  for (const r of got) {
    assert.equal(r.method, 'POST')
    assert.equal(r.url, '/hooks')
    assert.match(String(r.headers['x-service-signature']), /^[0-9a-f]{64}$/)
    assert.ok(verifySignature(ep.secret, r.body, r.headers['x-service-signature']), 'signature verifies over the raw bytes')
    assert.equal(r.headers['content-type'], 'application/json')
    assert.equal(r.headers['user-agent'], 'Till-Webhooks/1.0')
    assert.equal(r.headers['x-service-event-id'], r.json.id)
    assert.equal(r.headers['x-service-event-type'], r.json.type)
    assert.deepEqual(Object.keys(r.json), ['id', 'type', 'createdAt', 'mode', 'data'])
    assert.match(r.json.id, /^evt_[0-9A-Za-z]{24}$/)
    assert.match(r.json.createdAt, ISO_MS)
    assert.equal(r.json.createdAt, signedAt, 'createdAt is the moment of signing, not of storing')
    assert.equal(r.json.mode, 'test')
    assert.deepEqual(r.json.data.metadata, meta)
    // Re-serialising what was parsed gives other bytes only if the receiver changed them: the raw body is what is signed.
    assert.equal(r.body.toString('utf8'), JSON.stringify(r.json))
  }
  const byType = (type: string) => got.filter((r) => r.json.type === type).map((r) => r.json.data)
  assert.deepEqual(byType('payment.succeeded').find((d) => d.sessionId === paid.id), {
    sessionId: paid.id, status: 'paid', amount: 9900, currency: 'CNY', metadata: meta,
    recordId: paid.record.id, provider: 'mock', providerRef: paid.record.providerRef, paidAt,
  })
  assert.deepEqual(byType('payment.failed'), [{ sessionId: failed.id, status: 'failed', amount: 1500, currency: 'JPY', metadata: meta }])
  assert.deepEqual(byType('session.canceled'), [{ sessionId: canceled.id, status: 'canceled', amount: 100, currency: 'USD', metadata: meta }])
  assert.deepEqual(byType('session.expired'), [{ sessionId: expired.id, status: 'expired', amount: 200, currency: 'EUR', metadata: meta }])
  assert.deepEqual(byType('refund.succeeded'), [{
    refundId: refund.body.refund.id, recordId: paid.record.id, sessionId: paid.id, amount: 1000, refundedAmount: 1000,
    recordStatus: 'partially_refunded', currency: 'CNY', status: 'succeeded', reason: '破损', metadata: meta,
  }])
  assert.deepEqual(byType('refund.pending'), [{
    refundId: pending.body.refund.id, recordId: slow.record.id, sessionId: slow.id, amount: 700, refundedAmount: 0,
    recordStatus: 'refunding', currency: 'HKD', status: 'pending', reason: null, metadata: meta,
  }])
  assert.deepEqual(byType('refund.failed'), [{
    refundId: failedRefund.body.refund.id, recordId: refused.record.id, sessionId: refused.id, amount: 3000, refundedAmount: 0,
    recordStatus: 'paid', currency: 'CNY', status: 'failed', reason: null, metadata: meta,
  }])
  assert.equal(byType('payment.succeeded').length, 3)
  assert.deepEqual(new Set(got.map((r) => r.json.type)).size, 7)

  // A byte changed anywhere, or another secret, and the signature no longer verifies.
  const r = got[0]
  const tampered = Buffer.from(r.body)
  tampered[tampered.length - 2] ^= 1
  assert.equal(verifySignature(ep.secret, tampered, r.headers['x-service-signature']), false)
  // The last character replaced by one it is not (a secret may itself end in 'x').
  const otherSecret = ep.secret.slice(0, -1) + (ep.secret.endsWith('x') ? 'y' : 'x')
  assert.equal(verifySignature(otherSecret, r.body, r.headers['x-service-signature']), false)

  // Delivered means done: nothing more is due.
  ta.clock.advance(48 * 3600_000)
  assert.deepEqual(await deliverDue(ta.deps), [])
  assert.equal(rx.requests.length, 9)

  // The reference describes each of them exactly: its body (no field it does not list) and its headers.
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES].sort())
  for (const received of got) {
    const type: string = received.json.type
    const op = doc.webhooks[type].post
    const validate = new Ajv.default({ strict: false }).addFormat('date-time', true).compile(closed(op.requestBody.content['application/json'].schema))
    assert.ok(validate(received.json), `${type}: ${JSON.stringify(validate.errors)}`)
    assert.ok(validate(op.requestBody.content['application/json'].example), `${type}'s example: ${JSON.stringify(validate.errors)}`)
    for (const h of op.parameters) assert.ok(received.headers[h.name.toLowerCase()], `${type} carries ${h.name}`)
  }
})

/** A schema that refuses any property it does not list, at every level. */
function closed(schema: any): any {
  if (Array.isArray(schema)) return schema.map(closed)
  if (!schema || typeof schema !== 'object') return schema
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]))
  if (out.type === 'object' && out.properties && Object.keys(out.properties).length && out.additionalProperties === undefined) out.additionalProperties = false
  return out
}

test('a receiver answering 500 then 200 gets the event twice, the second time one minute later, freshly signed', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, (_r, n) => (n === 0 ? { status: 500, body: 'database down' } : { status: 200, body: 'thanks' }))
  const ep = await createEndpoint(ta, rx.url)
  await paidSession(ta)

  const first = await deliverDue(ta.deps, { random: () => 0.5 })
  assert.equal(first.length, 1)
  assert.equal(first[0].statusCode, 500)
  assert.equal(first[0].status, 'pending')
  assert.equal(first[0].responseBody, 'database down')
  assert.equal(first[0].nextAttemptAt!.getTime(), ta.clock().getTime() + MIN)

  // Not due yet: one second short of a minute, nothing is sent.
  ta.clock.advance(MIN - 1000)
  assert.deepEqual(await deliverDue(ta.deps), [])
  assert.equal(rx.requests.length, 1)

  ta.clock.advance(1000)
  const second = await deliverDue(ta.deps)
  assert.equal(second.length, 1)
  assert.equal(second[0].statusCode, 200)
  assert.equal(second[0].status, 'delivered')

  const [a, b] = await rx.received(2)
  const [ja, jb] = [JSON.parse(a.body.toString()), JSON.parse(b.body.toString())]
  // The same event, signed at each attempt's own time, so a receiver's replay window accepts the retry.
  assert.deepEqual({ ...ja, createdAt: null }, { ...jb, createdAt: null })
  assert.equal(new Date(jb.createdAt).getTime() - new Date(ja.createdAt).getTime(), MIN)
  assert.equal(jb.createdAt, ta.clock().toISOString())
  assert.equal(a.headers['x-service-event-id'], b.headers['x-service-event-id'])
  assert.ok(verifySignature(ep.secret, a.body, a.headers['x-service-signature']))
  assert.ok(verifySignature(ep.secret, b.body, b.headers['x-service-signature']))
  const [row] = await deliveryRows(ta)
  assert.equal(row.status, 'delivered')
  assert.equal(row.attempts, 2)
  assert.equal(row.next_attempt_at, null)
  assert.equal(row.leased_until, null)
})

test('the whole schedule: 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h, then the delivery is failed', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, () => ({ status: 503 }))
  await createEndpoint(ta, rx.url)
  await paidSession(ta)
  const waits: number[] = []
  for (let i = 0; i < 10; i++) {
    const [r] = await deliverDue(ta.deps, { random: () => 0.5 })
    assert.equal(r.statusCode, 503)
    if (i < 9) {
      assert.equal(r.status, 'pending')
      waits.push(r.nextAttemptAt!.getTime() - ta.clock().getTime())
      ta.clock.set(r.nextAttemptAt!)
    } else {
      assert.equal(r.status, 'failed')
      assert.equal(r.nextAttemptAt, null)
    }
  }
  assert.deepEqual(waits.map((w) => w / MIN), [1, 5, 30, 120, 300, 600, 600, 1440, 1440])
  ta.clock.advance(30 * 24 * 3600_000)
  assert.deepEqual(await deliverDue(ta.deps), [])
  assert.equal(rx.requests.length, 10)
  const [row] = await deliveryRows(ta)
  assert.equal(row.status, 'failed')
  assert.equal(row.attempts, 10)
})

test('Retry-After longer than the step is honoured, in seconds or as a date; jitter stays within 10 %', async (t) => {
  const ta = await startTestApp(t)
  let answer: Record<string, string> = { 'retry-after': '900' }
  const rx = await startReceiver(t, () => ({ status: 429, headers: answer }))
  await createEndpoint(ta, rx.url)
  await paidSession(ta)

  const [first] = await deliverDue(ta.deps)
  assert.equal(first.nextAttemptAt!.getTime() - ta.clock().getTime(), 15 * MIN)

  ta.clock.set(first.nextAttemptAt!)
  answer = { 'retry-after': new Date(ta.clock().getTime() + 3600_000).toUTCString() }
  const [second] = await deliverDue(ta.deps)
  const wait = second.nextAttemptAt!.getTime() - ta.clock().getTime()
  // An HTTP date has whole seconds.
  assert.ok(wait > 3600_000 - 1000 && wait <= 3600_000, String(wait))

  ta.clock.set(second.nextAttemptAt!)
  answer = { 'retry-after': '1' }
  const [third] = await deliverDue(ta.deps)
  const step = third.nextAttemptAt!.getTime() - ta.clock().getTime()
  assert.ok(step >= 27 * MIN && step <= 33 * MIN, `30 m ± 10 %, got ${step / MIN} m`)
  assert.equal(rx.requests.length, 3)
})

test('redirects are not followed; the answer is kept to its first KiB', async (t) => {
  const ta = await startTestApp(t)
  const target = await startReceiver(t)
  const rx = await startReceiver(t, (_r, n) =>
    n === 0 ? { status: 302, headers: { location: target.url } } : { status: 200, body: Buffer.concat([Buffer.from('é'.repeat(600)), Buffer.from([0, 1, 2])]) })
  await createEndpoint(ta, rx.url)
  await paidSession(ta)

  const [redirected] = await deliverDue(ta.deps)
  assert.equal(redirected.statusCode, 302)
  assert.equal(redirected.status, 'pending')
  assert.equal(target.requests.length, 0, 'the redirect target was never called')

  ta.clock.advance(2 * MIN)
  const [ok] = await deliverDue(ta.deps)
  assert.equal(ok.status, 'delivered')
  assert.equal(Buffer.byteLength(ok.responseBody!), 1024)
  assert.equal(ok.responseBody, 'é'.repeat(512))
  assert.ok(ok.latencyMs >= 0)
  assert.equal(ok.error, null)
})

test('a refused connection is a failed attempt with its error, retried on the schedule', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, 'http://127.0.0.1:1/hooks') // nothing listens on port 1
  await createEndpoint(ta, rx.url)
  await paidSession(ta)
  const results = await deliverDue(ta.deps)
  const bad = results.find((r) => r.statusCode === null)!
  assert.match(bad.error!, /ECONNREFUSED/)
  assert.equal(bad.status, 'pending')
  assert.equal(results.find((r) => r.statusCode === 200)!.status, 'delivered')
})
