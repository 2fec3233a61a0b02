/**
 * GET /metrics: Prometheus text with request, webhook, pool, session, refund, provider-call and
 * reconciliation metrics, every Till one named till_… (the old names beside them), read after real traffic.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { RECON_NEXT_MORNING, reconTill, runReconciliation } from '../helpers/reconciliation.js'
import { createEndpoint, startReceiver } from '../helpers/receiver.js'
import { createSession } from '../helpers/store-queries.js'

/** Every sample of the exposition as `name{label="v",…}` → value, labels in the order they were written. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}

async function scrape(ta: TestApp, headers: Record<string, string> = {}) {
  const res = await fetch(`${ta.baseUrl}/metrics`, { headers })
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
  const text = await res.text()
  return { text, m: samples(text) }
}

const helper = (ta: TestApp, path: string) => ta.request('POST', `/api/v1/test_helpers/${path}`, { key: ta.merchant.testKey, body: {} })

test('requests are counted by route pattern, method and status, with latency buckets; unmatched paths are "unknown"', async (t) => {
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  const a = await createSession(ta)
  const b = await createSession(ta)
  assert.equal((await ta.request('GET', `/api/v1/sessions/${a.id}`, { key })).status, 200)
  assert.equal((await ta.request('GET', `/api/v1/sessions/${b.id}`, { key })).status, 200)
  assert.equal((await ta.request('GET', '/api/v1/sessions/sess_000000000000000000000000', { key })).status, 404)
  assert.equal((await ta.request('GET', `/no/such/${a.id}`)).status, 404)
  // A malformed escape is refused by the router itself, where no hook runs: counted all the same.
  assert.equal((await ta.request('GET', '/api/v1/sessions/%E0%A4%A', { key })).status, 404)
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 0, currency: 'CNY' } })).status, 400)

  const first = await scrape(ta)
  assert.equal(first.m.get('till_http_requests_total{route="/api/v1/checkout",method="POST",status="200"}'), 2)
  assert.equal(first.m.get('till_http_requests_total{route="/api/v1/checkout",method="POST",status="400"}'), 1)
  assert.equal(first.m.get('till_http_requests_total{route="/api/v1/sessions/:id",method="GET",status="200"}'), 2)
  assert.equal(first.m.get('till_http_requests_total{route="/api/v1/sessions/:id",method="GET",status="404"}'), 1)
  assert.equal(first.m.get('till_http_requests_total{route="unknown",method="GET",status="404"}'), 2)
  assert.equal(first.m.get('till_http_requests_total{route="/admin/v1/merchants",method="POST",status="201"}'), 1)
  // Ids never become labels.
  assert.ok(!first.text.includes('sess_'), 'no session id in the exposition')
  assert.ok(!first.text.includes('/no/such'), 'no raw path in the exposition')

  const bucket = (le: string) => first.m.get(`till_http_request_duration_seconds_bucket{le="${le}",route="/api/v1/sessions/:id",method="GET",status="200"}`)
  assert.equal(bucket('+Inf'), 2)
  assert.equal(first.m.get('till_http_request_duration_seconds_count{route="/api/v1/sessions/:id",method="GET",status="200"}'), 2)
  assert.ok(first.m.get('till_http_request_duration_seconds_sum{route="/api/v1/sessions/:id",method="GET",status="200"}')! > 0)
  const les = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']
  const counts = les.map((le) => bucket(le)!)
  assert.ok(counts.every((c, i) => c !== undefined && (i === 0 || c >= counts[i - 1])), `cumulative buckets: ${counts}`)

  await ta.request('GET', `/api/v1/sessions/${a.id}`, { key })
  const second = await scrape(ta)
  assert.equal(second.m.get('till_http_requests_total{route="/api/v1/sessions/:id",method="GET",status="200"}'), 3)
  // The first scrape is counted once it was answered.
  assert.equal(second.m.get('till_http_requests_total{route="/metrics",method="GET",status="200"}'), 1)
})

test('pool gauges and sessions by status match the database; the grouped count is refreshed at most every 30 s', async (t) => {
  const ta = await startTestApp(t)
  const paid = await createSession(ta)
  await helper(ta, `sessions/${paid.id}/pay`)
  const canceled = await createSession(ta)
  await helper(ta, `sessions/${canceled.id}/cancel`)
  await createSession(ta)
  await createSession(ta)

  const { m } = await scrape(ta)
  const { rows } = await ta.database.pool.query('select status, count(*)::int as n from sessions group by status')
  const inDb: Record<string, number> = Object.fromEntries(rows.map((r) => [r.status, r.n]))
  for (const status of ['pending', 'processing', 'paid', 'refunded', 'failed', 'canceled', 'expired']) {
    assert.equal(m.get(`till_sessions{status="${status}"}`), inDb[status] ?? 0, status)
  }
  assert.deepEqual(inDb, { pending: 2, paid: 1, canceled: 1 })
  const pool = ta.database.pool
  assert.ok(m.get('till_db_pool_connections{state="total"}')! >= 1)
  assert.ok(m.get('till_db_pool_connections{state="total"}')! <= 10)
  assert.ok(m.get('till_db_pool_connections{state="idle"}')! <= m.get('till_db_pool_connections{state="total"}')!)
  assert.equal(m.get('till_db_pool_connections{state="waiting"}'), 0)
  assert.ok(pool.totalCount >= 1)

  await createSession(ta)
  assert.equal((await scrape(ta)).m.get('till_sessions{status="pending"}'), 2, 'cached within 30 s')
  ta.clock.advance(30_000)
  assert.equal((await scrape(ta)).m.get('till_sessions{status="pending"}'), 3)
})

test('webhook outcomes are counted (delivered, retry, failed) and the outbox lag is the age of the oldest due delivery', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, (_r, n) => ({ status: n === 0 ? 200 : 503 }))
  await createEndpoint(ta, rx.url)
  const before = await scrape(ta)
  for (const outcome of ['delivered', 'retry', 'failed']) assert.equal(before.m.get(`till_webhook_deliveries_total{outcome="${outcome}"}`), 0)
  assert.equal(before.m.get('till_webhook_outbox_lag_seconds'), 0)

  const s = await createSession(ta)
  await helper(ta, `sessions/${s.id}/cancel`)
  ta.clock.advance(90_000)
  assert.equal((await scrape(ta)).m.get('till_webhook_outbox_lag_seconds'), 90)
  assert.equal((await deliverDue(ta.deps))[0].status, 'delivered')
  assert.equal((await scrape(ta)).m.get('till_webhook_outbox_lag_seconds'), 0)

  const e = await createSession(ta)
  await helper(ta, `sessions/${e.id}/expire`)
  assert.equal((await deliverDue(ta.deps, { random: () => 0.5 }))[0].status, 'pending')
  // The retry is not due yet: no lag. The last of the ten attempts fails for good.
  assert.equal((await scrape(ta)).m.get('till_webhook_outbox_lag_seconds'), 0)
  await ta.database.pool.query('update webhook_deliveries set attempts = 9 where status = $1', ['pending'])
  ta.clock.advance(2 * 60_000)
  assert.equal((await scrape(ta)).m.get('till_webhook_outbox_lag_seconds'), 60)
  assert.equal((await deliverDue(ta.deps))[0].status, 'failed')

  const after = await scrape(ta)
  assert.equal(after.m.get('till_webhook_deliveries_total{outcome="delivered"}'), 1)
  assert.equal(after.m.get('till_webhook_deliveries_total{outcome="retry"}'), 1)
  assert.equal(after.m.get('till_webhook_deliveries_total{outcome="failed"}'), 1)
  assert.equal(after.m.get('till_webhook_outbox_lag_seconds'), 0)
})

test('with METRICS_TOKEN set, /metrics answers only its bearer', async (t) => {
  const ta = await startTestApp(t, { metricsToken: 'scrape-secret' })
  const none = await ta.request('GET', '/metrics')
  assert.equal(none.status, 401)
  assert.deepEqual(none.body, { error: 'invalid metrics token', code: 'invalid_api_key' })
  assert.equal((await ta.request('GET', '/metrics', { key: 'wrong' })).status, 401)
  assert.equal((await ta.request('GET', '/metrics', { key: ta.merchant.testKey })).status, 401)
  const ok = await scrape(ta, { authorization: 'Bearer scrape-secret' })
  assert.ok(ok.m.has('till_http_requests_total{route="/metrics",method="GET",status="401"}'))
})

/** Every family's name and type, from the # TYPE lines. */
const families = (text: string) => new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]))

test('every Till metric is named till_…; the old names are served beside them, same samples, for one release', async (t) => {
  const ta = await startTestApp(t)
  await createSession(ta)
  const { text, m } = await scrape(ta)
  const names = [...families(text).keys()]
  const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version
  assert.equal(m.get(`till_build_info{version="${version}",node="${process.versions.node}"}`), 1)
  // Node's and the process's own metrics keep their standard names; everything else is Till's.
  const own = names.filter((n) => !/^(process_|nodejs_)/.test(n))
  const legacy = new Set(['http_requests_total', 'http_request_duration_seconds', 'webhook_deliveries_total', 'provider_discrepancies_total',
    'webhook_outbox_lag_seconds', 'session_waits', 'db_pool_connections', 'sessions', 'reconciliation_open_mismatches'])
  assert.deepEqual(own.filter((n) => !n.startsWith('till_')).sort(), [...legacy].sort())
  for (const name of ['till_build_info', 'till_provider_call_duration_seconds', 'till_refunds', 'till_database_up', 'till_webhook_endpoints',
    'till_webhook_outbox_oldest_due_timestamp_seconds', 'till_reconciliation_days_waiting', ...[...legacy].map((n) => `till_${n}`)]) {
    assert.ok(names.includes(name), name)
  }
  for (const old of legacy) {
    assert.match(text, new RegExp(`^# HELP ${old} Deprecated: renamed till_${old}, this name goes in the next release$`, 'm'))
    assert.equal(families(text).get(old), families(text).get(`till_${old}`), old)
    const copied = [...m].filter(([k]) => k.startsWith(`till_${old}`) && /^[{_ ]|^$/.test(k.slice(`till_${old}`.length, `till_${old}`.length + 1)))
    assert.ok(copied.length > 0, old)
    for (const [k, v] of copied) assert.equal(m.get(k.slice('till_'.length)), v, k)
  }
  assert.equal(m.get('till_database_up'), 1)
})

test('provider calls are timed by provider, operation and outcome; refunds are counted by state', async (t) => {
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  const refund = async (behavior: string) => {
    const paid = await paidSession(ta, undefined, behavior)
    return ta.request('POST', '/api/v1/refunds', { key, body: { recordId: paid.record.id, amount: 100 } })
  }
  assert.equal((await refund('succeed')).status, 200)
  assert.equal((await refund('pending')).status, 200)
  assert.equal((await refund('fail')).status, 200)
  const { m } = await scrape(ta)
  assert.equal(m.get('till_provider_call_duration_seconds_count{provider="mock",operation="createAttempt",outcome="ok"}'), 3)
  assert.equal(m.get('till_provider_call_duration_seconds_count{provider="mock",operation="refund",outcome="ok"}'), 3)
  assert.equal(m.get('till_provider_call_duration_seconds_bucket{le="+Inf",provider="mock",operation="refund",outcome="ok"}'), 3)
  assert.deepEqual(['pending', 'succeeded', 'failed'].map((state) => m.get(`till_refunds{state="${state}"}`)), [1, 1, 1])
})

test('webhook endpoints failing and disabled, and when the oldest due delivery became due, are read from the database', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, () => ({ status: 503 }))
  await createEndpoint(ta, rx.url)
  const off = await createEndpoint(ta, rx.url)
  assert.equal((await ta.request('PATCH', `/api/v1/webhook_endpoints/${off.id}`, { key: ta.merchant.testKey, body: { enabled: false } })).status, 200)
  const before = (await scrape(ta)).m
  assert.deepEqual([before.get('till_webhook_endpoints{state="failing"}'), before.get('till_webhook_endpoints{state="disabled"}')], [0, 1])
  assert.equal(before.get('till_webhook_outbox_oldest_due_timestamp_seconds'), 0)

  const s = await createSession(ta)
  await helper(ta, `sessions/${s.id}/cancel`)
  const { rows: [d] } = await ta.database.pool.query('select extract(epoch from next_attempt_at)::float8 as due from webhook_deliveries')
  ta.clock.advance(60_000)
  assert.equal((await scrape(ta)).m.get('till_webhook_outbox_oldest_due_timestamp_seconds'), d.due)
  assert.equal((await deliverDue(ta.deps, { random: () => 0.5 }))[0].status, 'pending')
  const after = (await scrape(ta)).m
  assert.equal(after.get('till_webhook_endpoints{state="failing"}'), 1)
  assert.equal(after.get('till_webhook_outbox_oldest_due_timestamp_seconds'), 0, 'the retry is not due yet')
})

test('statement days not reconciled yet are counted by provider and mode', async (t) => {
  const r = await reconTill(t)
  assert.equal((await scrape(r.ta)).m.get('till_reconciliation_days_waiting{provider="wechat",mode="live"}'), 0)
  // The day is over, its statement not published yet: the run leaves the day waiting.
  r.ta.clock.set(RECON_NEXT_MORNING)
  assert.equal((await runReconciliation(r)).status, 200)
  assert.equal((await scrape(r.ta)).m.get('till_reconciliation_days_waiting{provider="wechat",mode="live"}'), 1)
})
