/**
 * Rate limit per API key (docs/integrate.md#errors-idempotency-and-rate-limits), counted in PostgreSQL so it holds across instances.
 * Windows are one second on the app's clock, which the tests move by hand.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { JOBS } from '../../src/jobs/runner.js'
import { openPool } from '../../src/store/db.js'
import { startTestApp, type Api } from '../helpers/app.js'
import { startSecondInstance } from '../helpers/instance.js'

const UNKNOWN = '/api/v1/sessions/sess_000000000000000000000000'

function assertLimited(a: Api) {
  assert.equal(a.status, 429)
  assert.deepEqual(a.body, { error: 'rate limit exceeded', code: 'rate_limited' })
  assert.equal(a.headers.get('retry-after'), '1')
  assert.ok(a.headers.get('request-id'))
}

test('a key sending more than its rate gets 429 with Retry-After, and other keys are unaffected', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 5 })
  const other = await ta.newMerchant('Other')
  const answers = await Promise.all(Array.from({ length: 12 }, () => ta.request('GET', UNKNOWN, { key: ta.merchant.testKey })))
  assert.equal(answers.filter((a) => a.status === 404).length, 5)
  const limited = answers.filter((a) => a.status === 429)
  assert.equal(limited.length, 7)
  for (const a of limited) assertLimited(a)
  assert.equal((await ta.request('GET', UNKNOWN, { key: other.testKey })).status, 404)
  // The same merchant's live key is a key of its own.
  assert.equal((await ta.request('GET', UNKNOWN, { key: ta.merchant.liveKey })).status, 404)
})

test('two instances on one database share each key\'s limit; a new window lets the key through again', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 5 })
  const second = await startSecondInstance(t, ta)
  const other = await ta.newMerchant('Other')
  const key = ta.merchant.testKey
  const viaSecond = async (k: string) => {
    const res = await fetch(second.baseUrl + UNKNOWN, { headers: { authorization: `Bearer ${k}` } })
    return { status: res.status, body: await res.json(), headers: res.headers } as Api
  }
  const burst = () => Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? viaSecond(key) : ta.request('GET', UNKNOWN, { key }))))

  const answers = await burst()
  assert.equal(answers.filter((a) => a.status === 404).length, 5)
  const limited = answers.filter((a) => a.status === 429)
  assert.equal(limited.length, 7)
  for (const a of limited) assertLimited(a)
  // Another key is counted apart, on either instance.
  assert.equal((await viaSecond(other.testKey)).status, 404)
  assert.equal((await ta.request('GET', UNKNOWN, { key: other.testKey })).status, 404)

  ta.clock.advance(1000)
  const next = await burst()
  assert.equal(next.filter((a) => a.status === 404).length, 5)
  assert.equal(next.filter((a) => a.status === 429).length, 7)

  // One row per key and window, named by the key's id, never by the secret. A limit of 5 claims
  // one token at a time: the counter holds the 5 granted and the claims that found it full (one or
  // two, one per instance), not every request.
  const keyId = async (merchantId: string) =>
    (await ta.admin('GET', `/merchants/${merchantId}/api_keys`)).body.data.find((k: { mode: string }) => k.mode === 'test').id
  const { rows } = await ta.database.pool.query('select key, count from rate_limit_counters order by window_start, key = $1 desc', [await keyId(other.id)])
  assert.deepEqual(rows.map((r) => r.key), [await keyId(other.id), await keyId(ta.merchant.id), await keyId(ta.merchant.id)])
  assert.equal(rows[0].count, 2, 'the other key: one claim on each instance')
  for (const r of rows.slice(1)) assert.ok(r.count >= 6 && r.count <= 7, `counter ${r.count}`)
})

test('a key revoked on one instance stops at once there, and on the other by the next second', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 1000 })
  const second = await startSecondInstance(t, ta)
  const created = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'test' })
  const key = created.body.key as string
  const viaSecond = async () => (await fetch(second.baseUrl + UNKNOWN, { headers: { authorization: `Bearer ${key}` } })).status
  assert.equal((await ta.request('GET', UNKNOWN, { key })).status, 404)
  assert.equal(await viaSecond(), 404)
  assert.equal((await ta.admin('DELETE', `/merchants/${ta.merchant.id}/api_keys/${created.body.id}`)).status, 200)
  assert.equal((await ta.request('GET', UNKNOWN, { key })).status, 401)
  // The second instance holds tokens from its last claim (50 at this limit) for the rest of the second.
  assert.equal(await viaSecond(), 404)
  ta.clock.advance(1000)
  assert.equal(await viaSecond(), 401)
})

test('a busy key costs one claim per window and instance, not a statement per request', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 1000 })
  for (let i = 0; i < 40; i++) assert.equal((await ta.request('GET', UNKNOWN, { key: ta.merchant.testKey })).status, 404)
  const { rows } = await ta.database.pool.query('select count from rate_limit_counters')
  assert.deepEqual(rows, [{ count: 50 }])
})

test('windows are whole seconds of the clock: the 1,000th millisecond starts a new one', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 3 })
  const key = ta.merchant.testKey
  ta.clock.set(new Date(Math.floor(ta.clock().getTime() / 1000) * 1000 + 999))
  const statuses = async (n: number) => (await Promise.all(Array.from({ length: n }, () => ta.request('GET', UNKNOWN, { key })))).map((a) => a.status).sort()
  assert.deepEqual(await statuses(4), [404, 404, 404, 429])
  ta.clock.advance(1)
  assert.deepEqual(await statuses(4), [404, 404, 404, 429])
})

test('the header\'s spelling does not make a key a new one', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 5 })
  const key = ta.merchant.testKey
  const spellings = [`Bearer ${key}`, `bearer ${key}`, `Bearer   ${key}`, `BEARER ${key} `, `Bearer ${key}`, `bearer\t${key}`]
  const answers = await Promise.all(spellings.map((h) => ta.request('GET', UNKNOWN, { headers: { authorization: h } })))
  assert.deepEqual(answers.map((a) => a.status).sort(), [404, 404, 404, 404, 404, 429])
})

test('requests without a valid key are refused before they are counted', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 1 })
  for (let i = 0; i < 3; i++) assert.equal((await ta.request('GET', UNKNOWN, { key: 'sk_test_' + 'x'.repeat(32) })).status, 401)
  const { rows } = await ta.database.pool.query('select count(*)::int as n from rate_limit_counters')
  assert.equal(rows[0].n, 0)
  assert.equal((await ta.request('GET', UNKNOWN, { key: ta.merchant.testKey })).status, 404)
})

test('the purge job drops windows older than a minute', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 5 })
  await ta.request('GET', UNKNOWN, { key: ta.merchant.testKey })
  ta.clock.advance(30_000)
  await ta.request('GET', UNKNOWN, { key: ta.merchant.testKey })
  const purge = JOBS.find((j) => j.name === 'rate-limit-purge')!.start(ta.deps)
  const count = async () => (await ta.database.pool.query('select count(*)::int as n from rate_limit_counters')).rows[0].n
  await purge.run()
  assert.equal(await count(), 2)
  ta.clock.advance(31_000)
  await purge.run()
  assert.equal(await count(), 1)
})

test('with the database unreachable, a request is 503 {"error":"service unavailable"}, never a 500', async (t) => {
  const ta = await startTestApp(t)
  // The key lookup and its count are one statement: with no database there is neither, and no limiter of its own to fail.
  const down = openPool('postgresql://till@127.0.0.1:1/till', 1)
  const deps = { ...ta.deps, db: down.db }
  const app = await buildApp(deps)
  t.after(async () => {
    await app.close()
    await down.close()
  })
  const res = await app.inject({ method: 'GET', url: UNKNOWN, headers: { authorization: `Bearer ${ta.merchant.testKey}` } })
  assert.equal(res.statusCode, 503)
  assert.deepEqual(res.json(), { error: 'service unavailable', code: 'service_unavailable' })
})
