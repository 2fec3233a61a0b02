/**
 * Delivery leases between workers: a lease that lapses lets another worker take the delivery over
 * and fences off the first worker's late result; the per-endpoint in-flight cap counts the leases
 * of every instance; and the SSRF check dials the very address it checked, resolving once.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createOutbox, deliverDue, type AttemptResult } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { startSecondInstance } from '../helpers/instance.js'
import { createEndpoint, deliveryRows, startReceiver } from '../helpers/receiver.js'
import { until } from '../helpers/wait.js'

/** A promise and the function that settles it: a receiver's answer held until the test says. */
function gate<T = void>() {
  let open!: (v: T) => void
  const held = new Promise<T>((resolve) => (open = resolve))
  return { held, open }
}

test('a lapsed lease is taken over by a second worker; the first worker\'s late result is refused (fenced)', async (t) => {
  const ta = await startTestApp(t)
  const second = await startSecondInstance(t, ta)
  // The first request is held; the second (the takeover) is answered at once.
  const late = gate<{ status: number }>()
  const rx = await startReceiver(t, (_r, n) => (n === 0 ? late.held : { status: 200 }))
  const ep = await createEndpoint(ta, rx.url)
  const paid = await paidSession(ta)

  // Worker A leases the delivery for 60 s and posts; its receiver does not answer yet.
  const first = deliverDue(ta.deps, { leaseMs: 60_000 })
  await rx.received(1)
  const [leased] = await deliveryRows(ta, 'd.endpoint_id = $1', [ep.id])
  assert.ok(leased.lease_token, 'leased by the first worker')

  // While the lease holds, the second worker finds nothing to do.
  assert.deepEqual(await deliverDue(second.deps), [])
  // 61 s later (the shared clock) the lease has lapsed: the second worker takes the delivery over.
  ta.clock.advance(61_000)
  const [takeover] = await deliverDue(second.deps, { leaseMs: 60_000 })
  assert.equal(takeover.status, 'delivered')
  const [afterTakeover] = await deliveryRows(ta, 'd.endpoint_id = $1', [ep.id])
  assert.equal(afterTakeover.status, 'delivered')
  assert.equal(afterTakeover.attempts, 1)

  // The first worker's answer finally comes, a 500: recorded as an attempt, but it must not move the
  // delivery (without the fence it would be pending again with a retry scheduled).
  late.open({ status: 500 })
  const [lateResult] = await first
  assert.equal(lateResult.statusCode, 500)
  const [final] = await deliveryRows(ta, 'd.endpoint_id = $1', [ep.id])
  assert.equal(final.status, 'delivered')
  assert.equal(final.attempts, 1)
  assert.equal(final.next_attempt_at, null)
  assert.ok(final.delivered_at)
  const { rows: attempts } = await ta.database.pool.query('select status_code from webhook_attempts where delivery_id = $1 order by id', [final.id])
  assert.deepEqual(attempts.map((a) => a.status_code).sort(), [200, 500], 'both attempts happened and are logged')
  assert.equal(new Set(rx.requests.map((r) => r.json.data.sessionId)).size, 1)
  assert.equal(rx.requests[0].json.data.sessionId, paid.id)
})

test('the per-endpoint in-flight cap counts the leases of both instances', async (t) => {
  const ta = await startTestApp(t)
  const second = await startSecondInstance(t, ta)
  const release = gate()
  let open = 0
  const rx = await startReceiver(t, async () => {
    open++
    await release.held
    open--
    return { status: 200 }
  })
  await createEndpoint(ta, rx.url)
  for (let i = 0; i < 10; i++) await paidSession(ta, { amount: 100 + i, currency: 'CNY' })

  const results: AttemptResult[] = []
  const options = { perEndpoint: 3, onAttempt: (r: AttemptResult) => results.push(r) }
  const a = createOutbox(ta.deps, options)
  const b = createOutbox(second.deps, options)
  t.after(async () => {
    release.open()
    await Promise.all([a.stop(), b.stop()])
  })

  // A fills the endpoint's three slots; B, one claim later, sees A's leases and takes none.
  assert.equal(await a.pump(), 3)
  assert.equal(await b.pump(), 0)
  await rx.received(3)
  assert.equal(open, 3)
  const leased = await deliveryRows(ta, 'd.leased_until is not null')
  assert.equal(leased.length, 3)
  assert.equal(new Set(leased.map((d) => d.lease_token)).size, 1, "all three are A's")

  // Once the answers come, both instances deliver the rest, each delivery once.
  release.open()
  await until('all 10 delivered', 60_000, async () => (await deliveryRows(ta, "d.status = 'delivered'")).length === 10)
  assert.equal(rx.requests.length, 10)
  assert.equal(new Set(rx.requests.map((r) => r.headers['x-service-event-id'])).size, 10)
  assert.ok((await deliveryRows(ta)).every((d) => d.attempts === 1))
})

test('the SSRF check dials the address it checked: a resolver answering loopback, then a private address, is asked once per connection', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  // The first answer reaches the receiver; the second is nobody's (a guard that resolved once to check
  // and again to connect would dial 10.0.0.7 after checking 127.0.0.1, and deliver nothing).
  const answers = ['127.0.0.1', '10.0.0.7']
  const asked: string[] = []
  const lookup = async (host: string) => {
    asked.push(host)
    return [{ address: answers[Math.min(asked.length - 1, answers.length - 1)] }]
  }
  await createEndpoint(ta, `http://hooks.merchant.test:${rx.port}/hooks`)
  await paidSession(ta)
  const [r] = await deliverDue(ta.deps, { lookup })
  assert.equal(r.status, 'delivered', String(r.error))
  assert.equal(rx.requests.length, 1)
  assert.deepEqual(asked, ['hooks.merchant.test'], 'resolved once, for the check and the connection')

  // With private addresses refused, a new connection resolves again, gets the private address, and is refused before any connection.
  ta.deps.config.webhookAllowPrivate = false
  await paidSession(ta)
  const connections = rx.connections()
  const [refused] = await deliverDue(ta.deps, { lookup })
  assert.equal(refused.status, 'pending')
  assert.match(String(refused.error), /^refused to connect to hooks\.merchant\.test: not a public address/)
  assert.equal(rx.connections(), connections)
  assert.equal(asked.length, 2)
})
