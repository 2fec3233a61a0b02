/**
 * The query bound does not cut legitimate long work (issue 36 §3.8, docs/operate.md): a request's
 * query is given up after the pool's bound, a statement's day gets LONG_WORK_TIMEOUTS times it for
 * each query of its transaction, and a day cut even so waits and runs again rather than failing.
 * The database is made slow on purpose: a trigger that sleeps on every insert of statement lines,
 * the pool's bound made short (300 ms) so the test stays quick.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LONG_WORK_TIMEOUTS } from '../../src/store/db.js'
import { lineOf, reconAt as at, RECON_NEXT_MORNING as NEXT_MORNING, reconTill, runReconciliation as run } from '../helpers/reconciliation.js'

const BOUND_MS = 300

async function slowLines(r: Awaited<ReturnType<typeof reconTill>>, seconds: number) {
  await r.q(`create or replace function slow_lines() returns trigger language plpgsql as $$ begin perform pg_sleep(${seconds}); return null; end $$`, [])
  await r.q('drop trigger if exists slow_lines on statement_lines', [])
  await r.q('create trigger slow_lines before insert on statement_lines for each statement execute function slow_lines()', [])
}

test('a statement\'s batch slower than a request may wait is not cut: the day is reconciled; a request\'s query still is', async (t) => {
  const r = await reconTill(t, { app: { queryTimeoutMs: BOUND_MS } })
  const p = await r.payment({ paidAt: at('10:00') })
  r.stub.set('2026-05-20', { lines: [lineOf(p)] })
  // Each insert of lines takes twice a request's bound, well within long work's.
  await slowLines(r, (2 * BOUND_MS) / 1000)
  assert.ok(2 * BOUND_MS < LONG_WORK_TIMEOUTS * BOUND_MS)
  r.ta.clock.set(NEXT_MORNING)
  const [day] = (await run(r)).body.data
  assert.deepEqual([day.state, day.reason, day.counts.matched], ['reconciled', null, 1])
  // Back in the pool, a connection has a request's bound again.
  await assert.rejects(r.ta.database.pool.query(`select pg_sleep(${(3 * BOUND_MS) / 1000})`), /Connection terminated/)
})

test('a day cut by the database (slower than even long work\'s bound) waits and runs again soon, and is reconciled once the database answers', async (t) => {
  const r = await reconTill(t, { app: { queryTimeoutMs: BOUND_MS } })
  const p = await r.payment({ paidAt: at('10:00') })
  r.stub.set('2026-05-20', { lines: [lineOf(p)] })
  await slowLines(r, (LONG_WORK_TIMEOUTS * BOUND_MS * 1.5) / 1000)
  r.ta.clock.set(NEXT_MORNING)
  const [cut] = (await run(r)).body.data
  assert.deepEqual([cut.state, cut.reason, cut.nextTryAt], ['fetched', 'the database did not answer in time; will try again', new Date(NEXT_MORNING.getTime() + 60_000).toISOString()])
  // The cut query's server process sleeps on (it has not noticed its client gone): ended, and the database is quick again.
  await r.q("select pg_terminate_backend(pid) from pg_stat_activity where wait_event = 'PgSleep' and datname = current_database() and pid <> pg_backend_pid()", [])
  await slowLines(r, 0)
  const [again] = (await run(r)).body.data
  assert.deepEqual([again.state, again.reason, again.counts.matched], ['reconciled', null, 1])
})
