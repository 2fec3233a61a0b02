/**
 * Who receives what: an endpoint gets only its own merchant's events of its own mode; live mode
 * delivers over https and, unless WEBHOOK_ALLOW_PRIVATE=1, never to loopback, private or link-local
 * addresses, checked after DNS resolution.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { appendEvent } from '../../src/store/repos/events.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { createEndpoint, deliveryRows, startReceiver, TRUST_TEST_CA, verifySignature } from '../helpers/receiver.js'

/** A live-mode event for the merchant (live sessions need a real provider; the outbox does not care). */
async function liveEvent(ta: TestApp, merchantId: string, sessionId: string) {
  const data = { sessionId, status: 'paid', amount: 4200, currency: 'USD', metadata: { live: 'yes' } }
  return ta.deps.db.transaction((tx) => appendEvent(tx, { merchantId, mode: 'live' }, 'payment.succeeded', data, ta.deps.clock()))
}

test('an endpoint never receives another merchant\'s events or the other mode\'s', async (t) => {
  // Private addresses allowed, so that a leak to the live receiver on 127.0.0.1 could happen and be seen.
  const ta = await startTestApp(t, { webhookAllowPrivate: true })
  const other = await ta.newMerchant('Other')
  const rxA = await startReceiver(t)
  const rxB = await startReceiver(t)
  const rxLive = await startReceiver(t, undefined, { tls: true })
  await createEndpoint(ta, rxA.url)
  await createEndpoint(ta, rxB.url, {}, other.testKey)
  const live = await createEndpoint(ta, rxLive.url, {}, ta.merchant.liveKey)

  const a1 = await paidSession(ta, { amount: 100, currency: 'CNY', metadata: { who: 'A' } })
  const a2 = await paidSession(ta, { amount: 200, currency: 'CNY', metadata: { who: 'A' } })
  const b = await ta.request('POST', '/api/v1/checkout', { key: other.testKey, body: { amount: 300, currency: 'CNY', metadata: { who: 'B' } } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${b.body.id}/pay`, { key: other.testKey, body: {} })
  const liveEvt = await liveEvent(ta, ta.merchant.id, 'sess_live')

  const results = await deliverDue(ta.deps, { tls: TRUST_TEST_CA })
  assert.equal(results.length, 4)
  assert.ok(results.every((r) => r.status === 'delivered'), JSON.stringify(results))
  assert.deepEqual(rxA.requests.map((r) => r.json.data.sessionId).sort(), [a1.id, a2.id].sort())
  assert.ok(rxA.requests.every((r) => r.json.mode === 'test' && r.json.data.metadata.who === 'A'))
  assert.deepEqual(rxB.requests.map((r) => r.json.data.sessionId), [b.body.id])
  // The live receiver, over https: its one live event and nothing else.
  assert.deepEqual(rxLive.requests.map((r) => [r.json.id, r.json.mode]), [[liveEvt.id, 'live']])
  assert.ok(verifySignature(live.secret, rxLive.requests[0].body, rxLive.requests[0].headers['x-service-signature']))
  assert.equal((await deliveryRows(ta, 'd.endpoint_id = $1', [live.id])).length, 1)

  // Redelivering A's event from B's side is 404, so nothing crosses that way either.
  const aEvent = rxA.requests[0].json.id
  const cross = await ta.request('POST', `/api/v1/events/${aEvent}/redeliver`, { key: other.testKey })
  assert.equal(cross.status, 404)
  assert.equal((await ta.request('POST', `/api/v1/events/${aEvent}/redeliver`, { key: ta.merchant.liveKey })).status, 404)
})

test('live mode refuses loopback after DNS (127.0.0.1 and localhost), without connecting, and retries later', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, undefined, { tls: true })
  const byIp = await createEndpoint(ta, rx.url, {}, ta.merchant.liveKey)
  const byName = await createEndpoint(ta, `https://localhost:${rx.port}/hooks`, {}, ta.merchant.liveKey)
  await liveEvent(ta, ta.merchant.id, 'sess_x')

  const results = await deliverDue(ta.deps, { tls: TRUST_TEST_CA })
  assert.equal(results.length, 2)
  const ip = results.find((r) => r.endpointId === byIp.id)!
  const name = results.find((r) => r.endpointId === byName.id)!
  assert.equal(ip.error, 'refused to connect to 127.0.0.1 (127.0.0.1, a loopback address): set WEBHOOK_ALLOW_PRIVATE=1 to allow it')
  assert.match(name.error!, /^refused to connect to localhost \((127\.0\.0\.1|::1), a loopback address\): set WEBHOOK_ALLOW_PRIVATE=1 to allow it$/)
  for (const r of results) {
    assert.equal(r.statusCode, null)
    assert.equal(r.status, 'pending')
  }
  assert.equal(rx.connections(), 0, 'no connection was ever opened')
})

test('WEBHOOK_ALLOW_PRIVATE=1 lets live mode deliver to a private address; test mode may always use loopback', async (t) => {
  const ta = await startTestApp(t, { webhookAllowPrivate: true })
  const rx = await startReceiver(t, undefined, { tls: true })
  await createEndpoint(ta, `https://localhost:${rx.port}/hooks`, {}, ta.merchant.liveKey)
  await liveEvent(ta, ta.merchant.id, 'sess_y')
  const [r] = await deliverDue(ta.deps, { tls: TRUST_TEST_CA })
  assert.equal(r.status, 'delivered', JSON.stringify(r))
  assert.equal(rx.requests.length, 1)
})

test('test mode delivers to loopback but not to link-local or private addresses', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  const metadata = await createEndpoint(ta, 'http://169.254.169.254/latest/meta-data')
  const lan = await createEndpoint(ta, 'http://10.1.2.3/hooks')
  const mapped = await createEndpoint(ta, 'http://[::ffff:a9fe:a9fe]/hooks')
  await paidSession(ta)
  const results = await deliverDue(ta.deps)
  assert.equal(rx.requests.length, 1)
  const err = (id: string) => results.find((r) => r.endpointId === id)!.error
  assert.equal(err(metadata.id), 'refused to connect to 169.254.169.254 (169.254.169.254, a link-local address): set WEBHOOK_ALLOW_PRIVATE=1 to allow it')
  assert.equal(err(lan.id), 'refused to connect to 10.1.2.3 (10.1.2.3, a private address): set WEBHOOK_ALLOW_PRIVATE=1 to allow it')
  assert.equal(err(mapped.id), 'refused to connect to ::ffff:a9fe:a9fe (::ffff:a9fe:a9fe, a link-local address): set WEBHOOK_ALLOW_PRIVATE=1 to allow it')
})
