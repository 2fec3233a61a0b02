/**
 * Slow endpoints and many workers: a hanging receiver times out without holding up the others, two
 * instances on one database never attempt the same delivery twice, and the background worker is
 * woken by the commit itself.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { createOutbox, deliverDue, type AttemptResult } from '../../src/jobs/outbox.js'
import { JOBS, startJobs } from '../../src/jobs/runner.js'
import type { Deps } from '../../src/services/deps.js'
import { paidSession, startTestApp, testClock } from '../helpers/app.js'
import { openTestPool } from '../helpers/db.js'
import { createEndpoint, deliveryRows, startReceiver } from '../helpers/receiver.js'

test('a receiver that hangs times out after 10 s without holding up another endpoint', async (t) => {
  const ta = await startTestApp(t)
  const hang = await startReceiver(t, () => 'hang')
  const fast = await startReceiver(t)
  const slowEp = await createEndpoint(ta, hang.url)
  const fastEp = await createEndpoint(ta, fast.url)
  await paidSession(ta)

  let fastDone!: (r: AttemptResult) => void
  const fastRecorded = new Promise<AttemptResult>((resolve) => (fastDone = resolve))
  const started = performance.now()
  const run = deliverDue(ta.deps, { onAttempt: (r) => r.endpointId === fastEp.id && fastDone(r) })
  let finished = false
  void run.then(() => (finished = true))

  const fastResult = await fastRecorded
  const fastMs = performance.now() - started
  assert.equal(fastResult.status, 'delivered')
  assert.ok(fastMs < 5000, `the fast endpoint took ${fastMs} ms`)
  await hang.received(1)
  assert.equal(finished, false, 'the hanging delivery is still in flight')
  const [slowRow] = await deliveryRows(ta, 'd.endpoint_id = $1', [slowEp.id])
  assert.equal(slowRow.status, 'pending')
  assert.ok(slowRow.leased_until, 'leased while in flight')
  assert.equal((await deliveryRows(ta, 'd.endpoint_id = $1', [fastEp.id]))[0].status, 'delivered')

  const results = await run
  const elapsed = performance.now() - started
  const slow = results.find((r) => r.endpointId === slowEp.id)!
  assert.equal(slow.error, 'timed out after 10000 ms')
  assert.equal(slow.statusCode, null)
  assert.equal(slow.status, 'pending')
  assert.ok(slow.latencyMs >= 9900 && slow.latencyMs < 12_000, String(slow.latencyMs))
  assert.ok(elapsed >= 9900 && elapsed < 15_000, String(elapsed))
})

test('a backlog for a hanging endpoint takes at most 8 worker slots; the other endpoint gets all its events meanwhile', async (t) => {
  const ta = await startTestApp(t)
  const hang = await startReceiver(t, () => 'hang')
  const fast = await startReceiver(t)
  const hanging = await createEndpoint(ta, hang.url)
  await createEndpoint(ta, fast.url)
  // A millisecond apart: deliveries are taken oldest first, so the two endpoints' deliveries alternate.
  for (let i = 0; i < 12; i++) {
    await paidSession(ta, { amount: 100 + i, currency: 'CNY' })
    ta.clock.advance(1)
  }

  // 10 slots, 12 events each: without the per-endpoint cap the hanging endpoint would fill all 10.
  const outbox = createOutbox(ta.deps, { maxInFlight: 10, timeoutMs: 3000 })
  const started = performance.now()
  await outbox.pump()
  await fast.received(12)
  const ms = performance.now() - started
  assert.ok(ms < 2500, `the fast endpoint got its 12 events in ${ms} ms, before any hanging one timed out`)
  await hang.received(8)
  const rows = await deliveryRows(ta, 'd.endpoint_id = $1', [hanging.id])
  assert.equal(rows.filter((d) => d.leased_until).length, 8, 'eight hanging deliveries hold a lease; the other four wait unclaimed')
  assert.equal(hang.requests.length, 8)
  assert.equal(fast.requests.length, 12)
  await outbox.stop()
})

test('one endpoint has at most 8 deliveries in flight; the next pass takes the rest', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  for (let i = 0; i < 10; i++) await paidSession(ta, { amount: 100 + i, currency: 'CNY' })
  assert.equal((await deliverDue(ta.deps)).length, 8)
  assert.equal((await deliverDue(ta.deps)).length, 2)
  assert.deepEqual(await deliverDue(ta.deps), [])
  assert.equal(new Set(rx.requests.map((r) => r.json.id)).size, 10)
})

test('two service instances on one PostgreSQL never attempt the same delivery twice', async (t) => {
  const ta = await startTestApp(t)
  // The second instance: its own pool, clock and app, the same database and secrets key.
  const pool = openTestPool(ta.databaseUrl, 10)
  const second: Deps = { ...ta.deps, db: pool.db, clock: testClock(ta.clock()) }
  const app2 = await buildApp(second)
  t.after(async () => {
    await app2.close()
    await pool.close()
  })

  // Answers are held until 20 requests are in flight: each instance takes at most 10 per pass, so
  // both are provably delivering at the same time.
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const rx = await startReceiver(t, async (_r, n) => {
    if (n + 1 >= 20) release()
    await gate
    return { status: 200 }
  })
  for (let i = 0; i < 4; i++) await createEndpoint(ta, `${rx.url}/${i}`)
  const events = 30
  for (let i = 0; i < events; i++) await paidSession(ta, { amount: 100 + i, currency: 'CNY' })

  const drain = async (deps: Deps) => {
    let n = 0
    for (;;) {
      const done = await deliverDue(deps, { limit: 10 })
      if (done.length === 0) return n
      n += done.length
    }
  }
  const [first, other] = await Promise.all([drain(ta.deps), drain(second)])
  assert.equal(first + other, events * 4)
  assert.ok(first >= 10 && other >= 10, `both instances delivered (${first}, ${other})`)
  const seen = new Map<string, number>()
  for (const r of rx.requests) {
    const key = `${r.headers['x-service-event-id']} ${r.url}`
    seen.set(key, (seen.get(key) ?? 0) + 1)
  }
  assert.equal(rx.requests.length, events * 4)
  assert.equal(seen.size, events * 4)
  assert.deepEqual([...new Set(seen.values())], [1], 'every (event, endpoint) exactly once')
  const { rows } = await ta.database.pool.query('select count(*)::int as n from webhook_attempts')
  assert.equal(rows[0].n, events * 4)
  assert.ok((await deliveryRows(ta)).every((d) => d.status === 'delivered' && d.attempts === 1))
})

test('the background worker is woken by the commit (NOTIFY), not by its timer', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  const webhooks = JOBS.find((j) => j.name === 'webhooks')!
  // A timer that would not fire within the test: only the wake-up can deliver.
  const jobs = startJobs(ta.deps, [{ ...webhooks, everyMs: 3_600_000 }])
  // The listener connects asynchronously; an event before it listens would wait for the timer.
  await waitForListener(ta)
  const before = performance.now()
  const paid = await paidSession(ta)
  const [r] = await rx.received(1)
  assert.equal(r.json.data.sessionId, paid.id)
  assert.ok(r.at - before < 2000, `${r.at - before} ms`)
  await jobs.stop()
})

/** Resolves once a backend LISTENs on the webhook channel. */
async function waitForListener(ta: Awaited<ReturnType<typeof startTestApp>>) {
  for (;;) {
    const { rows } = await ta.database.pool.query("select count(*)::int as n from pg_stat_activity where query ilike 'listen%till_webhooks%'")
    if (rows[0].n > 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
