/**
 * SessionSignals on a real PostgreSQL: waiters wake when (and only when) the transaction that
 * finishes a session commits, through NOTIFY from any connection, again after the LISTEN
 * connection is lost, and at close. Each wait is judged by why it ended (`signalled`, `timeout`,
 * `closed`), never by how long it took: a wait that should be signalled has a long deadline, which
 * costs nothing when the signal comes.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { createSessionSignals, SessionSignals } from '../../src/services/session-signals.js'
import { DbClient } from '../../src/store/db.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { until } from '../helpers/wait.js'

const ID = 'sess_SIGNALSIGNALSIGNALSIGNA'
const silent = { info() {}, warn() {}, error() {} }
/** A deadline no signal on a loaded machine comes near: a `timeout` here means the signal was lost. */
const SIGNAL_DEADLINE_MS = 60_000

function signalsOn(ta: TestApp, t: import('node:test').TestContext) {
  const signals = createSessionSignals(ta.database.pool, silent)
  t.after(() => signals.close())
  return signals
}

const listenerPids = async (ta: TestApp): Promise<number[]> =>
  (await ta.database.pool.query("select pid from pg_stat_activity where application_name = 'till-session-signals' and datname = current_database()")).rows.map((r) => r.pid)

test('a waiter wakes once the announcing transaction commits, not before', async (t) => {
  const ta = await startTestApp(t)
  const signals = signalsOn(ta, t)
  const sub = await signals.subscribe(ID)
  await signals.transaction(ta.deps.db, async (tx) => {
    await signals.announce(tx, ID)
    assert.equal(await sub.wait(0), 'timeout', 'nothing is told before the commit')
  })
  assert.equal(await sub.wait(SIGNAL_DEADLINE_MS), 'signalled')
  sub.close()
  assert.equal(signals.subscribers(ID), 0)
})

test('without any LISTEN connection, this process\'s own commits still wake its waiters (the in-process path)', async (t) => {
  const ta = await startTestApp(t)
  const signals = new SessionSignals(() => new DbClient({ host: '/nonexistent-socket-dir', connectionTimeoutMillis: 200 }), silent)
  t.after(() => signals.close())
  const sub = await signals.subscribe(ID)
  await signals.transaction(ta.deps.db, (tx) => signals.announce(tx, ID))
  assert.equal(await sub.wait(0), 'signalled', 'woken right after the commit, with no round trip through PostgreSQL')
})

test('a rolled-back transaction wakes nobody', async (t) => {
  const ta = await startTestApp(t)
  const signals = signalsOn(ta, t)
  const sub = await signals.subscribe(ID)
  await assert.rejects(signals.transaction(ta.deps.db, async (tx) => {
    await signals.announce(tx, ID)
    throw new Error('rolled back')
  }), /rolled back/)
  assert.equal(await sub.wait(300), 'timeout')
})

test('NOTIFY committed by any other connection wakes the waiter (the cross-instance path)', async (t) => {
  const ta = await startTestApp(t)
  const signals = signalsOn(ta, t)
  const sub = await signals.subscribe(ID)
  const other = await signals.subscribe('sess_OTHEROTHEROTHEROTHEROTHE')
  await ta.database.pool.query('select pg_notify($1, $2)', ['till_session', ID])
  assert.equal(await sub.wait(SIGNAL_DEADLINE_MS), 'signalled')
  assert.equal(await other.wait(0), 'timeout', 'only the named session wakes')
})

test('after losing its connection the listener reconnects, wakes waiters to re-read, and hears NOTIFY again', async (t) => {
  const ta = await startTestApp(t)
  const signals = signalsOn(ta, t)
  const sub = await signals.subscribe(ID)
  const [pid] = await listenerPids(ta)
  assert.ok(pid, 'one LISTEN connection')

  const relistening = once(signals, 'listening')
  const waited = sub.wait(SIGNAL_DEADLINE_MS)
  await ta.database.pool.query('select pg_terminate_backend($1)', [pid])
  await relistening
  // A notification may have been missed while disconnected: waiters re-read.
  assert.equal(await waited, 'signalled')
  // PostgreSQL tells the client it is ending the connection before the old backend has left
  // pg_stat_activity: wait for that, then exactly one LISTEN connection, the new one, is left.
  await until('the terminated backend left pg_stat_activity', 30_000, async () => !(await listenerPids(ta)).includes(pid))
  const pids = await listenerPids(ta)
  assert.equal(pids.length, 1)
  assert.notEqual(pids[0], pid)

  await ta.database.pool.query('select pg_notify($1, $2)', ['till_session', ID])
  assert.equal(await sub.wait(SIGNAL_DEADLINE_MS), 'signalled')
})

test('close wakes every waiter with "closed", ends the connection, and later subscriptions do not reconnect', async (t) => {
  const ta = await startTestApp(t)
  const signals = signalsOn(ta, t)
  const sub = await signals.subscribe(ID)
  const waited = sub.wait(SIGNAL_DEADLINE_MS)
  await signals.close()
  assert.equal(await waited, 'closed')
  assert.deepEqual(await listenerPids(ta), [])
  const late = await signals.subscribe(ID)
  assert.equal(await late.wait(SIGNAL_DEADLINE_MS), 'closed')
  assert.deepEqual(await listenerPids(ta), [])
})

test('the app opens no LISTEN connection until a relay waits, and closes it with the app', async (t) => {
  const ta = await startTestApp(t)
  assert.deepEqual(await listenerPids(ta), [])
  await ta.deps.signals.subscribe(ID)
  assert.equal((await listenerPids(ta)).length, 1)
  await ta.app.close()
  assert.deepEqual(await listenerPids(ta), [])
})
