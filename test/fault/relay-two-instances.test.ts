/**
 * Two Till instances on one PostgreSQL (issue #3, "done when"): the customer's relay waits on
 * instance A while the provider's confirmation commits on instance B. A must answer within
 * 200 ms of B's commit, woken by LISTEN/NOTIFY: nothing in process memory is shared.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { startAttempt } from '../../src/services/payments.js'
import type { SessionSignals } from '../../src/services/session-signals.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { startSecondInstance, type Instance } from '../helpers/instance.js'
import { createSession } from '../helpers/store-queries.js'

const SUCCESS_URL = 'https://shop.example/paid?order=9'

/** Times of every commit made through this instance's session transactions, taken right after COMMIT. */
function recordCommits(signals: SessionSignals): number[] {
  const commits: number[] = []
  const original = signals.transaction.bind(signals)
  signals.transaction = async (db, fn) => {
    const result = await original(db, fn)
    commits.push(performance.now())
    return result
  }
  return commits
}

/** The relay on A waits for a payment in flight; B confirms it; returns how long after B's commit A answered. */
async function relayAcrossInstances(a: TestApp, b: Instance, commits: number[]) {
  const s = await createSession(a, { amount: 1999, currency: 'EUR', successUrl: SUCCESS_URL })
  await startAttempt(a.deps, s.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })

  const waiting = once(a.deps.signals, 'waiting')
  const relay = fetch(`${a.baseUrl}/c/${s.id}/done`, { redirect: 'manual' }).then((res) => ({ res, at: performance.now() }))
  await waiting // A has read `processing` and is blocked on its signal

  const paidOnB = await fetch(`${b.baseUrl}/api/v1/test_helpers/sessions/${s.id}/pay`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.merchant.testKey}`, 'content-type': 'application/json' },
    body: '{}',
  })
  assert.equal(paidOnB.status, 200)
  const record = (await paidOnB.json()).record
  const committedAt = commits.at(-1)!

  const { res, at } = await relay
  assert.equal(res.status, 303)
  assert.equal(res.headers.get('location'), `${SUCCESS_URL}&session_id=${s.id}&record_id=${record.id}&paid_confirmed=1`)
  return at - committedAt
}

test('the relay on instance A answers within 200 ms of a payment committed on instance B', async (t) => {
  const a = await startTestApp(t)
  const b = await startSecondInstance(t, a)
  const commits = recordCommits(b.deps.signals)
  for (let i = 0; i < 5; i++) {
    const ms = await relayAcrossInstances(a, b, commits)
    assert.ok(ms < 200, `round ${i}: A answered ${ms.toFixed(1)} ms after B's commit`)
  }
  // Only A listens (B never waited on anything), and A's signals are its own: PostgreSQL woke it.
  assert.notEqual(a.deps.signals, b.deps.signals)
  const { rows } = await a.database.pool.query("select count(*)::int as n from pg_stat_activity where application_name = 'till-session-signals' and datname = current_database()")
  assert.equal(rows[0].n, 1)
})

test('after A loses its LISTEN connection it reconnects, and cross-instance wake-ups still arrive within 200 ms', async (t) => {
  const a = await startTestApp(t)
  const b = await startSecondInstance(t, a)
  const commits = recordCommits(b.deps.signals)
  assert.ok((await relayAcrossInstances(a, b, commits)) < 200)

  const relistening = once(a.deps.signals, 'listening')
  const { rows } = await a.database.pool.query(
    "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'till-session-signals' and datname = current_database()",
  )
  assert.equal(rows.length, 1, 'A had exactly one LISTEN connection')
  await relistening

  const ms = await relayAcrossInstances(a, b, commits)
  assert.ok(ms < 200, `A answered ${ms.toFixed(1)} ms after B's commit`)
})
