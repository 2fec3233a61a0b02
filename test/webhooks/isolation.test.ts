/**
 * Who receives what: an endpoint gets only its own merchant's events of its own mode; live mode
 * delivers over https; neither mode reaches loopback, private or link-local addresses (checked
 * after DNS resolution) unless WEBHOOK_ALLOW_PRIVATE=1, which is the default only on a laptop.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../../src/config.js'
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

/** Till configured from this environment, as `loadConfig` reads it at start (the rest as every test app). */
const configuredBy = (env: NodeJS.ProcessEnv) => ({ webhookAllowPrivate: loadConfig(env).webhookAllowPrivate })

/** The first attempt of each delivery of the event, as the merchant reads it in the events API (and the console). */
async function attemptErrors(ta: TestApp, eventId: string, key = ta.merchant.testKey) {
  const res = await ta.request('GET', `/api/v1/events/${eventId}`, { key })
  assert.equal(res.status, 200)
  return Object.fromEntries((res.body.deliveries as { endpointId: string; attempts: { error: string | null; statusCode: number | null }[] }[])
    .map((d) => [d.endpointId, d.attempts[0].error]))
}

const REFUSED = (host: string) => `refused to connect to ${host}: not a public address (loopback, private, link-local and reserved addresses need WEBHOOK_ALLOW_PRIVATE=1)`

test('on a Till others can reach (HOST=0.0.0.0), a test-mode endpoint on loopback or a private network is refused: nothing arrives, the log names the rule, not the address', async (t) => {
  const ta = await startTestApp(t, configuredBy({ HOST: '0.0.0.0' }))
  const rx = await startReceiver(t)
  const byIp = await createEndpoint(ta, rx.url)
  const byName = await createEndpoint(ta, `http://localhost:${rx.port}/hooks`)
  const metadata = await createEndpoint(ta, 'http://169.254.169.254/latest/meta-data')
  const lan = await createEndpoint(ta, 'http://10.1.2.3/hooks')
  const mapped = await createEndpoint(ta, 'http://[::ffff:a9fe:a9fe]/hooks')
  const paid = await paidSession(ta)

  const results = await deliverDue(ta.deps)
  assert.equal(results.length, 5)
  for (const r of results) assert.deepEqual([r.statusCode, r.status], [null, 'pending'], 'a failed attempt, retried on the schedule')
  assert.equal(rx.connections(), 0, 'no connection was ever opened')
  const [event] = (await ta.request('GET', '/api/v1/events', { key: ta.merchant.testKey })).body.data
  assert.equal(event.data.sessionId, paid.id)
  assert.deepEqual(await attemptErrors(ta, event.id), {
    [byIp.id]: REFUSED('127.0.0.1'),
    // A name: what it resolved to is not told.
    [byName.id]: REFUSED('localhost'),
    [metadata.id]: REFUSED('169.254.169.254'),
    [lan.id]: REFUSED('10.1.2.3'),
    [mapped.id]: REFUSED('::ffff:a9fe:a9fe'),
  })
})

test('behind a proxy on a public BASE_URL, live mode refuses loopback after DNS too, and WEBHOOK_ALLOW_PRIVATE=0 refuses it even on a laptop', async (t) => {
  for (const env of [{ BASE_URL: 'https://pay.example.com' }, { WEBHOOK_ALLOW_PRIVATE: '0' }]) {
    const ta = await startTestApp(t, configuredBy(env))
    const rx = await startReceiver(t, undefined, { tls: true })
    await createEndpoint(ta, `https://localhost:${rx.port}/hooks`, {}, ta.merchant.liveKey)
    const evt = await liveEvent(ta, ta.merchant.id, 'sess_x')
    const [r] = await deliverDue(ta.deps, { tls: TRUST_TEST_CA })
    assert.deepEqual([r.error, r.status], [REFUSED('localhost'), 'pending'], JSON.stringify(env))
    assert.equal(rx.connections(), 0)
    assert.deepEqual(Object.values(await attemptErrors(ta, evt.id, ta.merchant.liveKey)), [REFUSED('localhost')])
  }
})

test('on a laptop (HOST and BASE_URL on loopback, the default) both modes deliver to loopback, and WEBHOOK_ALLOW_PRIVATE=1 does on a Till others reach', async (t) => {
  for (const env of [{}, { HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE: '1' }]) {
    const ta = await startTestApp(t, configuredBy(env))
    const rxTest = await startReceiver(t)
    const rxLive = await startReceiver(t, undefined, { tls: true })
    await createEndpoint(ta, `http://localhost:${rxTest.port}/hooks`)
    await createEndpoint(ta, `https://localhost:${rxLive.port}/hooks`, {}, ta.merchant.liveKey)
    await paidSession(ta)
    await liveEvent(ta, ta.merchant.id, 'sess_y')
    const results = await deliverDue(ta.deps, { tls: TRUST_TEST_CA })
    assert.deepEqual(results.map((r) => r.status), ['delivered', 'delivered'], JSON.stringify(results))
    assert.deepEqual([rxTest.requests.length, rxLive.requests.length], [1, 1], JSON.stringify(env))
  }
})

test('the delivery log does not tell internal names apart: one resolving to a private address and one that does not resolve are refused alike, the detail in the server log', async (t) => {
  const lines: string[] = []
  const ta = await startTestApp(t, configuredBy({ HOST: '0.0.0.0' }), { log: (line) => lines.push(line) })
  const lookup = async (host: string) => {
    if (host === 'billing.corp.internal') return [{ address: '10.20.0.8' }]
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
  }
  const internal = await createEndpoint(ta, 'http://billing.corp.internal/hooks')
  const missing = await createEndpoint(ta, 'http://nothing.corp.internal/hooks')
  await paidSession(ta)
  await deliverDue(ta.deps, { lookup })
  const [event] = (await ta.request('GET', '/api/v1/events', { key: ta.merchant.testKey })).body.data
  assert.deepEqual(await attemptErrors(ta, event.id), { [internal.id]: REFUSED('billing.corp.internal'), [missing.id]: REFUSED('nothing.corp.internal') })
  const logged = lines.map((l) => JSON.parse(l)).filter((l) => /^webhook refused to connect/.test(l.msg))
  assert.deepEqual(logged.map((l) => [l.host, l.addresses ?? l.error]), [['billing.corp.internal', ['10.20.0.8']], ['nothing.corp.internal', 'getaddrinfo ENOTFOUND nothing.corp.internal']])
})
