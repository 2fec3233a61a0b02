/**
 * What a PostgreSQL failover looks like from Till, without the cluster (scripts/failover.sh runs
 * the real one): a primary demoted to read-only that the proxy still routes to, and the database
 * going away between a request's phases. The answer is a 503 `service_unavailable` with Retry-After
 * in the API's shape, leaking nothing; a retry with the same Idempotency-Key once the database is
 * back replays what committed or runs the request, never a 409 for a request no longer running.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import pg from 'pg'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { startTestApp, type Api, type TestApp } from '../helpers/app.js'
import { directAdminUrl, openTestPool } from '../helpers/db.js'
import { startPgProxy, type PgProxy } from '../helpers/pg-proxy.js'
import { createSession } from '../helpers/store-queries.js'
import { until } from '../helpers/wait.js'

const UNAVAILABLE = { error: 'service unavailable', code: 'service_unavailable' }

function assertUnavailable(res: Api, what: string) {
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`)
  assert.deepEqual(res.body, UNAVAILABLE, what)
  assert.equal(res.headers.get('retry-after'), '2', `${what}: Retry-After`)
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
}

/**
 * The test database turned read-only, as a demoted primary is: new connections get read-only
 * transactions, and the ones open before are ended (Patroni restarts a demoted PostgreSQL).
 */
async function setReadOnly(url: string, on: boolean) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  const admin = new pg.Client({ connectionString: directAdminUrl() })
  await admin.connect()
  try {
    await admin.query(`alter database ${pg.escapeIdentifier(name)} ${on ? 'set default_transaction_read_only = on' : 'reset default_transaction_read_only'}`)
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name])
  } finally {
    await admin.end()
  }
}

function openDirect(t: TestContext, ta: TestApp) {
  const direct = openTestPool(ta.databaseUrl, 2)
  t.after(() => direct.close())
  return direct.pool
}

/** An app whose pool reaches PostgreSQL through a proxy the test stops and starts; `direct` reads the store past it. */
async function startProxied(t: TestContext, log?: (line: string) => void) {
  const proxy = await startPgProxy(t, directAdminUrl())
  const ta = await startTestApp(t, {}, { log, connect: (url) => proxy.config(url) })
  return { ta, proxy, direct: openDirect(t, ta) }
}

/** Waits for a 5xx's release of its idempotency key (the row gone), which the 503 does not wait for past a second. */
async function keyReleased(direct: pg.Pool, key: string) {
  await until(`the release of the key ${key}`, 20_000, async () => (await direct.query('select 1 from idempotency_keys where key = $1', [key])).rowCount === 0)
}

/** The mock provider's notification for the pay helper: `before` and `after` run around its delivery. */
function aroundNotification(ta: TestApp, hooks: { before?: () => void; after?: () => void }) {
  const deliver = ta.deps.deliverNotification
  ta.deps.deliverNotification = async (...args) => {
    hooks.before?.()
    try {
      return await deliver(...args)
    } finally {
      hooks.after?.()
    }
  }
  return () => {
    ta.deps.deliverNotification = deliver
  }
}

const pay = (ta: TestApp, id: string, key: string) =>
  ta.request('POST', `/api/v1/test_helpers/sessions/${id}/pay`, { key: ta.merchant.testKey, body: {}, headers: { 'idempotency-key': key } })

test('a database turned read-only (a demoted primary): writes answer 503 service_unavailable with Retry-After, /readyz 503; writable again, all is served', async (t) => {
  const ta = await startTestApp(t)
  await setReadOnly(ta.databaseUrl, true)

  assertUnavailable(await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } }), 'a checkout')
  const ready = await ta.request('GET', '/readyz')
  assert.deepEqual([ready.status, ready.body], [503, { status: 'unavailable', error: 'database read-only' }])

  await setReadOnly(ta.databaseUrl, false)
  await until('/readyz ready again', 20_000, async () => (await ta.request('GET', '/readyz')).status === 200)
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } })).status, 200)
})

test('the key cannot be released after a 5xx (the database still away): a clean 503, nothing leaked, and the retry once it is back runs the request', async (t) => {
  const lines: string[] = []
  const { ta, proxy, direct } = await startProxied(t, (line) => void lines.push(line))
  const session = await createSession(ta)
  const key = 'order-7f3a-secret-key'
  // The database goes away after the key was claimed, while the helper's notification is delivered.
  const restore = aroundNotification(ta, { before: () => proxy.stop() })
  const failed = await pay(ta, session.id, key)
  restore()
  assertUnavailable(failed, 'the pay helper with the database gone')
  assert.doesNotMatch(failed.text, new RegExp(`${key}|${ta.merchant.id}|idempotency_keys`))
  const leaked = lines.filter((l) => l.includes(key) || l.includes('idempotency_keys'))
  assert.deepEqual(leaked, [], 'no log line quotes the query or its parameters')

  proxy.start()
  const retry = await pay(ta, session.id, key)
  assert.equal(retry.status, 200, `the retry runs the request: ${retry.text}`)
  assert.equal(retry.body.status, 'paid')
  const replay = await pay(ta, session.id, key)
  assert.equal(replay.headers.get('idempotent-replayed'), 'true')
  assert.equal(replay.text, retry.text)
  const { rows } = await direct.query('select count(*)::int as n from records where session_id = $1', [session.id])
  assert.equal(rows[0].n, 1)
})

test('a pay whose notification cannot be applied answers 503; left alone, reconciliation finds the mock payment and the session is paid', async (t) => {
  const { ta, proxy, direct } = await startProxied(t)
  const session = await createSession(ta)
  const restore = aroundNotification(ta, { before: () => proxy.stop(), after: () => proxy.start() })
  assertUnavailable(await ta.request('POST', `/api/v1/test_helpers/sessions/${session.id}/pay`, { key: ta.merchant.testKey, body: {} }), 'the pay helper')
  restore()
  const status = async () => (await direct.query('select status from sessions where id = $1', [session.id])).rows[0].status
  assert.equal(await status(), 'processing', 'the attempt was made, its notification lost')
  ta.clock.advance(61_000) // the attempt's first check is due
  await reconcileAttempts(ta.deps)
  assert.equal(await status(), 'paid')
})

test('a pay that committed but answered 5xx: the retry with the same key answers the paid session, not session_terminal', async (t) => {
  const { ta, proxy, direct } = await startProxied(t)
  const session = await createSession(ta)
  // The payment is applied, then the database goes away before the helper reads the session back.
  const restore = aroundNotification(ta, { after: () => proxy.stop() })
  assertUnavailable(await pay(ta, session.id, 'pay-once'), 'the pay helper')
  restore()
  proxy.start()
  await until('the app reaching the database again', 20_000, async () => (await ta.request('GET', '/readyz')).status === 200)

  const retry = await pay(ta, session.id, 'pay-once')
  assert.equal(retry.status, 200, retry.text)
  assert.equal(retry.body.id, session.id)
  assert.equal(retry.body.status, 'paid')
  const { rows } = await direct.query('select count(*)::int as n from attempts where session_id = $1', [session.id])
  assert.equal(rows[0].n, 1, 'one payment, not a second attempt')
  // Another key is another request: the session is finished.
  const other = await pay(ta, session.id, 'pay-twice')
  assert.deepEqual([other.status, other.body.code], [400, 'session_terminal'])
})

test('a refund whose reservation committed but whose COMMIT answer was lost: the 503 releases its key, the retry answers that refund', async (t) => {
  const { ta, proxy, direct } = await startProxied(t)
  const paid = (await pay(ta, (await createSession(ta)).id, 'pay-for-refund')).body
  const refund = () => ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 300 }, headers: { 'idempotency-key': 'refund-commit-lost' } })
  // The reservation (its key claimed in flight with it) is the refund's first COMMIT.
  proxy.cutAfter('commit\0')
  assertUnavailable(await refund(), 'the refund whose commit answer was lost')
  const { rows } = await direct.query('select id, status from refunds where record_id = $1', [paid.record.id])
  assert.equal(rows.length, 1, 'the reservation committed')
  // The release is sent with the 503 but waited for at most a second: on a loaded machine it may
  // land later, and a retry before it rightly answers idempotency_in_flight.
  await keyReleased(direct, 'refund-commit-lost')

  const retry = await refund()
  assert.equal(retry.status, 200, retry.text)
  assert.equal(retry.body.refund.id, rows[0].id)
  assert.equal((await direct.query('select count(*)::int as n from refunds where record_id = $1', [paid.record.id])).rows[0].n, 1)
})

test('a key whose claim committed but whose answer was lost: the 503 releases it, the retry runs the request', async (t) => {
  const { ta, proxy, direct } = await startProxied(t)
  const session = await createSession(ta)
  proxy.cutAfter('till_idempotency_claim')
  assertUnavailable(await pay(ta, session.id, 'claim-lost'), 'the pay whose key claim answer was lost')
  await keyReleased(direct, 'claim-lost')
  const retry = await pay(ta, session.id, 'claim-lost')
  assert.equal(retry.status, 200, retry.text)
  assert.equal(retry.body.status, 'paid')
})
