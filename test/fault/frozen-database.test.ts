/**
 * A database that stops answering without closing anything: PostgreSQL stopped with SIGSTOP (a
 * frozen primary), or a partition that drops packets. The proxy (helpers/pg-proxy.ts) holds every
 * byte. Requests end with a 503 within the pool's bounds, /readyz within its own, and the LISTEN
 * connections (the relay's and the jobs') notice within their heartbeat and listen again once the
 * database is back. While it is away, the jobs' warnings are a few lines, not one per tick.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import type { Job } from '../../src/jobs/runner.js'
import { startJobs } from '../../src/jobs/runner.js'
import { createSessionSignals } from '../../src/services/session-signals.js'
import { CONNECT_TIMEOUT_MS, HEARTBEAT_MS, openPool, QUERY_TIMEOUT_MS } from '../../src/store/db.js'
import { READY_TIMEOUT_MS } from '../../src/store/health.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { directAdminUrl } from '../helpers/db.js'
import { startPgProxy, type PgProxy } from '../helpers/pg-proxy.js'
import { createSession } from '../helpers/store-queries.js'
import { until, within } from '../helpers/wait.js'

/** A request's bound: a connection, then one query (the first that meets the frozen server ends it); with room for a loaded machine. */
const REQUEST_BOUND_MS = CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS + 3000
/** A LISTEN connection's: the next heartbeat, and its query's own timeout (3 s). */
const LISTEN_BOUND_MS = 2 * HEARTBEAT_MS + 3000 + 3000
const silent = { info() {}, warn() {}, error() {} }
const ID = 'sess_FROZENFROZENFROZENFROZEN'

/** A pool on the app's database through the proxy, closed when the test ends. */
function proxiedPool(t: import('node:test').TestContext, ta: TestApp, proxy: PgProxy) {
  const database = openPool(proxy.config(ta.databaseUrl), 2)
  t.after(() => database.close())
  return database
}

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await p
  return { value, ms: performance.now() - started }
}

test('requests to a frozen database end with a 503 within the bound, /readyz within its own; thawed, Till answers again', async (t) => {
  const proxy = await startPgProxy(t, directAdminUrl())
  const ta = await startTestApp(t, {}, { connect: (url) => proxy.config(url) })
  const key = ta.merchant.testKey
  const session = await createSession(ta)
  proxy.freeze()

  const [read, write, ready] = await within(REQUEST_BOUND_MS * 2, Promise.all([
    timed(ta.request('GET', `/api/v1/sessions/${session.id}`, { key })),
    timed(ta.request('POST', '/api/v1/checkout', { key, body: { amount: 1000, currency: 'CNY' } })),
    timed(ta.request('GET', '/readyz')),
  ]), 'the requests answering at all')
  for (const { value, ms } of [read, write]) {
    assert.deepEqual([value.status, value.body], [503, { error: 'service unavailable', code: 'service_unavailable' }])
    assert.equal(value.headers.get('retry-after'), '2')
    assert.ok(ms < REQUEST_BOUND_MS, `answered in ${Math.round(ms)} ms`)
  }
  assert.deepEqual([ready.value.status, ready.value.body], [503, { status: 'unavailable', error: 'database unreachable' }])
  assert.ok(ready.ms < READY_TIMEOUT_MS + 1500, `/readyz answered in ${Math.round(ready.ms)} ms`)

  proxy.thaw()
  await until('/readyz ready again', 30_000, async () => (await ta.request('GET', '/readyz')).status === 200)
  assert.equal((await ta.request('GET', `/api/v1/sessions/${session.id}`, { key })).status, 200)
})

test('a query unanswered for the pool\'s query timeout ends its connection, however it was sent, and not before; thawed, the pool answers on a new one', async (t) => {
  const LIMIT_MS = 500
  const proxy = await startPgProxy(t, directAdminUrl())
  const { pool } = openPool(proxy.config(directAdminUrl()), 2, { queryTimeoutMs: LIMIT_MS })
  t.after(() => pool.end())
  // Both connections made before the freeze: one checked out, one idle for the pool's own query.
  const client = await pool.connect()
  const idle = await pool.connect()
  idle.release()
  proxy.freeze()
  const failed = (p: Promise<unknown>) => timed(p.then(() => assert.fail('answered by a frozen server'), (e: Error) => e.message))
  // A checked-out connection's query (a transaction's), and the pool's own (pg-pool sends it with a callback).
  const [checkedOut, pooled] = await within(10_000, Promise.all([failed(client.query('select 1')), failed(pool.query('select 2'))]), 'the queries failing')
  client.release()
  for (const { value, ms } of [checkedOut, pooled]) {
    assert.match(value, /Connection terminated|Query read timeout/)
    assert.ok(ms >= LIMIT_MS - 20 && ms < LIMIT_MS * 3 + 1000, `given up after ${Math.round(ms)} ms`)
  }
  await until('both frozen connections closed by Till', 3000, () => proxy.connections.every((c) => c.closedAt !== null))
  assert.equal(proxy.connections.length, 2)
  proxy.thaw()
  assert.deepEqual((await pool.query('select 3 as n')).rows, [{ n: 3 }])
})

test('the relay\'s LISTEN connection to a frozen database is given up within its heartbeat, and listens again once it is back', async (t) => {
  const proxy = await startPgProxy(t, directAdminUrl())
  const ta = await startTestApp(t)
  const signals = createSessionSignals(proxiedPool(t, ta, proxy).pool, silent)
  t.after(() => signals.close())
  const sub = await signals.subscribe(ID)
  assert.equal(proxy.open(), 1, 'listening through the proxy')
  const [listening] = proxy.connections

  proxy.freeze()
  await until('the frozen LISTEN connection given up', LISTEN_BOUND_MS, () => listening.closedAt !== null)
  const relistening = once(signals, 'listening')
  proxy.thaw()
  await within(30_000, relistening, 'LISTEN again')
  await ta.database.pool.query('select pg_notify($1, $2)', ['till_session', ID])
  assert.equal(await sub.wait(60_000), 'signalled')
})

test('the jobs\' LISTEN connection to a frozen database is given up within its heartbeat, and wakes jobs again once it is back', async (t) => {
  const proxy = await startPgProxy(t, directAdminUrl())
  const ta = await startTestApp(t)
  let runs = 0
  const probe: Job = { name: 'probe', everyMs: 3_600_000, wakeOn: 'till_probe', start: () => ({ run: async () => void runs++ }) }
  const jobs = startJobs({ ...ta.deps, db: proxiedPool(t, ta, proxy).db }, [probe])
  t.after(() => jobs.stop())
  await until('the jobs listening through the proxy', 30_000, async () => (await ta.database.pool.query(
    "select 1 from pg_stat_activity where application_name = 'till-jobs' and datname = current_database() and state = 'idle' and query like 'listen%'")).rowCount === 1)
  assert.equal(proxy.connections.length, 1)
  const [listening] = proxy.connections

  proxy.freeze()
  await until('the frozen LISTEN connection given up', LISTEN_BOUND_MS, () => listening.closedAt !== null)
  proxy.thaw()
  await until('a NOTIFY waking the job again', 30_000, async () => {
    await ta.database.pool.query('select pg_notify($1, $2)', ['till_probe', ''])
    return runs > 0
  }, 250)
})

test('while the database is away, failing jobs and listener reconnects log a few warnings, not one per attempt', async (t) => {
  const proxy = await startPgProxy(t, directAdminUrl())
  const ta = await startTestApp(t)
  const warnings: unknown[] = []
  const log = { info() {}, error() {}, warn: (obj: unknown) => void warnings.push(obj) }
  const db = proxiedPool(t, ta, proxy).db
  let failures = 0
  const tick: Job = { name: 'tick', everyMs: 20, wakeOn: 'till_tick', start: (d) => ({ run: () => d.db.execute('select 1').catch((e) => ((failures++), Promise.reject(e))) }) }
  proxy.stop()
  const jobs = startJobs({ ...ta.deps, db, log }, [tick])
  t.after(() => jobs.stop())
  await until('20 failed runs and 3 refused reconnects of the listener', 60_000, () => failures >= 20 && proxy.refused() >= 23)
  assert.ok(warnings.length <= 2, `${warnings.length} warnings`)
})
