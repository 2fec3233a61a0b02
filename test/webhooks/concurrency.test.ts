/**
 * Slow endpoints and many workers: a hanging receiver times out without holding up the others, two
 * instances on one database never attempt the same delivery twice, and the background worker is
 * woken by the commit itself.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'drizzle-orm'
import { createOutbox, deliverDue } from '../../src/jobs/outbox.js'
import { JOBS, startJobs } from '../../src/jobs/runner.js'
import type { Deps } from '../../src/services/deps.js'
import { recordAttempts, type Claimed, type Recorded } from '../../src/store/repos/deliveries.js'
import { appendEvent } from '../../src/store/repos/events.js'
import { paidSession, secondInstance, startTestApp } from '../helpers/app.js'
import { openTestPool } from '../helpers/db.js'
import { createEndpoint, deliveryRows, startReceiver } from '../helpers/receiver.js'
import { until, within } from '../helpers/wait.js'

test('a receiver that hangs: the attempt ends at the delivery timeout and is retried later; another endpoint is delivered in the same run', async (t) => {
  const ta = await startTestApp(t)
  const hang = await startReceiver(t, () => 'hang')
  const fast = await startReceiver(t)
  const slowEp = await createEndpoint(ta, hang.url)
  const fastEp = await createEndpoint(ta, fast.url)
  await paidSession(ta)

  // 10 s in production (DELIVERY_TIMEOUT_MS), injected shorter here. What ended the wait is asserted,
  // not how long it took; that the hanging endpoint holds up no other is the next test's (no deadline there).
  // The fast delivery and the request reaching the hanging receiver run under the same deadline: it is
  // long enough that a busy machine does not cut them.
  const timeoutMs = 2000
  const results = await deliverDue(ta.deps, { timeoutMs })
  const slow = results.find((r) => r.endpointId === slowEp.id)!
  const quick = results.find((r) => r.endpointId === fastEp.id)!
  assert.equal(quick.status, 'delivered')
  assert.equal(hang.requests.length, 1, 'the request reached the hanging receiver')
  assert.equal(slow.error, `timed out after ${timeoutMs} ms`, 'ended by the deadline, not by an answer')
  assert.equal(slow.statusCode, null)
  assert.equal(slow.status, 'pending')
  assert.ok(slow.nextAttemptAt, 'retried on the schedule')
  assert.ok(slow.latencyMs >= timeoutMs - 1, String(slow.latencyMs))
  const [slowRow] = await deliveryRows(ta, 'd.endpoint_id = $1', [slowEp.id])
  assert.equal(slowRow.status, 'pending')
  assert.equal(slowRow.leased_until, null, 'the lease is released with the recorded attempt')
})

test('a backlog for a hanging endpoint takes at most 8 worker slots; the other endpoint gets all its events meanwhile', async (t) => {
  const ta = await startTestApp(t)
  // The hanging receiver answers only when the test ends, so no slot is freed by a timeout meanwhile.
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const hang = await startReceiver(t, async () => {
    await held
    return { status: 200 }
  })
  const fast = await startReceiver(t)
  const hanging = await createEndpoint(ta, hang.url)
  await createEndpoint(ta, fast.url)
  // A millisecond apart: deliveries are taken oldest first, so the two endpoints' deliveries alternate.
  for (let i = 0; i < 12; i++) {
    await paidSession(ta, { amount: 100 + i, currency: 'CNY' })
    ta.clock.advance(1)
  }

  // 10 slots, 12 events each: without the per-endpoint cap the hanging endpoint would fill all 10.
  const recorded: string[] = []
  // No deadline within the test: only fast deliveries can free a slot.
  const outbox = createOutbox(ta.deps, { maxInFlight: 10, timeoutMs: 600_000, onAttempt: (r) => recorded.push(r.endpointId) })
  await outbox.pump()
  await fast.received(12)
  await hang.received(8)
  assert.ok(!recorded.includes(hanging.id), 'all 12 fast deliveries went through while every hanging one was still held')
  const rows = await deliveryRows(ta, 'd.endpoint_id = $1', [hanging.id])
  assert.equal(rows.filter((d) => d.leased_until).length, 8, 'eight hanging deliveries hold a lease; the other four wait unclaimed')
  assert.equal(hang.requests.length, 8)
  assert.equal(fast.requests.length, 12)
  release()
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
  const second = await secondInstance(t, ta)

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

test('instances recording attempts for the same endpoints at once never deadlock: every statement commits, every attempt is counted', async (t) => {
  // Each statement updates its endpoints' health and hourly counts; before their locks were taken in
  // one order, PostgreSQL aborted some of them as deadlocked and their batches were never recorded.
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  for (let i = 0; i < 6; i++) await createEndpoint(ta, `${rx.url}/${i}`)
  await paidSession(ta)
  const deliveries = await deliveryRows(ta)
  const instances = Array.from({ length: 4 }, () => openTestPool(ta.databaseUrl, 1))
  t.after(() => Promise.all(instances.map((p) => p.close())))
  const failures: string[] = []
  let recorded = 0
  await Promise.all(instances.map(async (instance) => {
    for (let i = 0; i < 60; i++) {
      const now = ta.clock()
      // A different subset and size each time; half delivered, half failed. The tokens are no
      // lease's: the attempts are logged and counted, the deliveries stay as they are.
      const items: Recorded[] = deliveries.filter(() => Math.random() < 0.6).map((d, j) => ({
        claimed: { id: Number(d.id), leaseToken: 'not-a-lease', endpointId: d.endpoint_id } as Claimed,
        attempt: { attemptedAt: new Date(now.getTime() - j), statusCode: j % 2 ? 200 : 500, latencyMs: 1, responseBody: null, error: null },
        status: j % 2 ? 'delivered' : 'pending',
        nextAttemptAt: now,
      }))
      try {
        await recordAttempts(instance.db, items, now)
        recorded += items.length
      } catch (e) {
        failures.push(String(e))
      }
    }
  }))
  assert.deepEqual(failures, [])
  const { rows: [logged] } = await ta.database.pool.query('select count(*)::int as n from webhook_attempts')
  assert.equal(logged.n, recorded)
  const { rows: [hours] } = await ta.database.pool.query('select sum(delivered + failed)::int as n from webhook_endpoint_hours')
  assert.equal(hours.n, recorded)
})

test('recording attempts for an endpoint does not wait for a transaction that is appending an event to it', async (t) => {
  // The event's deliveries reference their endpoint (a foreign key: a KEY SHARE lock on its row until
  // that transaction commits); the recording statement's lock on the endpoint must not conflict with it.
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url)
  await paidSession(ta)
  const [d] = await deliveryRows(ta)
  const open = openTestPool(ta.databaseUrl, 1)
  const recorder = openTestPool(ta.databaseUrl, 1)
  t.after(async () => {
    await open.close()
    await recorder.close()
  })
  const now = ta.clock()
  let appended!: () => void
  const appending = new Promise<void>((resolve) => (appended = resolve))
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const holder = open.db.transaction(async (tx) => {
    await appendEvent(tx, { merchantId: ta.merchant.id, mode: 'test' }, 'session.expired', { sessionId: 'sess_OPEN' }, now)
    appended()
    await finished
  })
  await appending
  try {
    // Bounded by lock_timeout, not by the test's clock: a conflicting lock fails the statement at once.
    await recorder.db.transaction(async (tx) => {
      await tx.execute(sql`set local lock_timeout = '5s'`)
      await recordAttempts(tx, [{
        claimed: { id: Number(d.id), leaseToken: 'not-a-lease', endpointId: d.endpoint_id } as Claimed,
        attempt: { attemptedAt: now, statusCode: 200, latencyMs: 1, responseBody: null, error: null },
        status: 'delivered',
        nextAttemptAt: null,
      }], now)
    })
  } finally {
    finish()
    await holder
  }
  const { rows: [logged] } = await ta.database.pool.query('select count(*)::int as n from webhook_attempts')
  assert.equal(logged.n, 1)
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
  const paid = await paidSession(ta)
  // Bounded only against hanging: the timer cannot fire within the test, so an arrival is the wake-up's.
  const [r] = await within(60_000, rx.received(1), 'the delivery after the commit')
  assert.equal(r.json.data.sessionId, paid.id)
  await jobs.stop()
})

/** Resolves once a backend LISTENs on the webhook channel. */
async function waitForListener(ta: Awaited<ReturnType<typeof startTestApp>>) {
  await until('the LISTEN connection', 60_000, async () => {
    const { rows } = await ta.database.pool.query("select count(*)::int as n from pg_stat_activity where query ilike 'listen%till_webhooks%'")
    return rows[0].n > 0
  }, 20)
}
