/**
 * Two Till processes on one PostgreSQL (issue #3, "done when"): the customer's relay waits on
 * process A while the provider's confirmation commits on process B. A must be woken by
 * LISTEN/NOTIFY (the processes share nothing but the database): its answer says the wait ended
 * `signalled` with the payment confirmed, never `timeout`. Then A's LISTEN connection is killed;
 * A reconnects and is woken by B again. How fast the wake-up is belongs to the benchmarks.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { createDeps } from '../../src/deps.js'
import { startAttempt } from '../../src/services/attempts.js'
import { freshDatabase, openTestPool, tillDatabaseEnv } from '../helpers/db.js'
import { relayWait } from '../helpers/pages.js'
import { api, dataDir, startTill, stopTill, type Till } from '../helpers/process.js'
import { until } from '../helpers/wait.js'

const SECRETS_KEY = 'cd'.repeat(32)
const SUCCESS_URL = 'https://shop.example/paid?order=9'
const silent = { info() {}, warn() {}, error() {} }

/** A and B as separate processes on one fresh database; the test's own pool and Deps only set sessions up. */
async function twoProcesses(t: TestContext) {
  const db = await freshDatabase()
  t.after(() => db.drop())
  // No background jobs: nothing but the relay and the payment touches the sessions.
  const env = { ...tillDatabaseEnv(db), SECRETS_KEY, TILL_JOBS: '0' }
  // Started together, as a deployment does; a merchant of our own (either may have made Demo).
  const [a, b] = await Promise.all([startTill(dataDir(t), env), startTill(dataDir(t), env)])
  const merchant = await fetch(`${a.base}/admin/v1/merchants`, {
    method: 'POST', headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, body: '{"name":"Relay"}',
  })
  assert.equal(merchant.status, 201)
  const key: string = ((await merchant.json()) as { keys: { test: string } }).keys.test
  t.after(async () => {
    await Promise.all([stopTill(a), stopTill(b)])
  })
  const database = openTestPool(db.url, 2)
  t.after(() => database.close())
  const deps = createDeps(loadConfig({}), database.db, Buffer.from(SECRETS_KEY, 'hex'), silent)
  t.after(() => deps.signals.close())
  return { a, b, key, database, deps }
}

/** A gauge of one process, from its /metrics. */
async function gauge(till: Till, name: string): Promise<number> {
  const text = await (await fetch(`${till.base}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  if (!line) throw new Error(`no ${name} in /metrics`)
  return Number(line.slice(name.length + 1))
}

/** The relay on A waits for a payment in flight; B confirms it; A's answer says why its wait ended. */
async function relayAcrossProcesses(p: Awaited<ReturnType<typeof twoProcesses>>) {
  const created = await api(p.a, 'POST', '/api/v1/checkout', p.key, { amount: 1999, currency: 'EUR', successUrl: SUCCESS_URL })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const id: string = created.body.id
  await startAttempt(p.deps, id, { provider: 'mock', providerConfigId: null, channel: 'mock' })

  const relay = fetch(`${p.a.base}/c/${id}/done`, { redirect: 'manual' })
  // A has read `processing` and is blocked on its signal (or its deadline).
  await until('the relay on A waits', 30_000, async () => (await gauge(p.a, 'till_session_waits')) === 1)

  const paidOnB = await api(p.b, 'POST', `/api/v1/test_helpers/sessions/${id}/pay`, p.key, {})
  assert.equal(paidOnB.status, 200, JSON.stringify(paidOnB.body))
  const res = await relay
  assert.equal(res.status, 303)
  assert.equal(relayWait(res.headers), 'signalled', 'A was woken by B\'s commit, not by its deadline')
  assert.equal(res.headers.get('location'), `${SUCCESS_URL}&session_id=${id}&record_id=${paidOnB.body.record.id}&paid_confirmed=1`)
  assert.equal(await gauge(p.a, 'till_session_waits'), 0)
}

const listeners = async (database: { pool: pg.Pool }) =>
  (await database.pool.query("select pid from pg_stat_activity where application_name = 'till-session-signals' and datname = current_database()")).rows.map((r) => r.pid as number)

test('the relay on process A is woken by a payment committed on process B, again after A loses its LISTEN connection', async (t) => {
  const p = await twoProcesses(t)
  for (let i = 0; i < 3; i++) await relayAcrossProcesses(p)
  // Only A listens (B never waited on anything): PostgreSQL woke it.
  const [pid, ...more] = await listeners(p.database)
  assert.ok(pid, 'A has its LISTEN connection')
  assert.deepEqual(more, [], 'only A listens')

  // A reconnects, and B's commits still wake it.
  await p.database.pool.query('select pg_terminate_backend($1)', [pid])
  await until('A listens again', 30_000, async () => {
    const now = await listeners(p.database)
    return now.length === 1 && now[0] !== pid
  })
  await relayAcrossProcesses(p)
})
