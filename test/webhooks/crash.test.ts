/**
 * No event is lost across a crash: the real service, killed with SIGKILL after the commit and before
 * any delivery, delivers the event once it is started again.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, dataDir, demoKey, startTill, stopTill } from '../helpers/process.js'
import { startReceiver, verifySignature, type Received } from '../helpers/receiver.js'
import { until, within } from '../helpers/wait.js'

test('killed with SIGKILL after the commit and before the delivery, the service still delivers after restart', async (t) => {
  const dir = dataDir(t)
  const rx = await startReceiver(t)
  // Deliveries off in the first life: the event is committed and the process dies before any attempt.
  const first = await startTill(dir, { TILL_JOBS: '0' })
  const key = await demoKey(first)
  const ep = await api(first, 'POST', '/api/v1/webhook_endpoints', key, { url: rx.url })
  assert.equal(ep.status, 201, JSON.stringify(ep.body))
  const created = await api(first, 'POST', '/api/v1/checkout', key, { amount: 4321, currency: 'EUR', metadata: { order: 'crash-1' } })
  const paid = await api(first, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, key, {})
  assert.equal(paid.body.status, 'paid')
  const listed = await api(first, 'GET', '/api/v1/events', key)
  assert.equal(listed.body.data.length, 1)
  const eventId = listed.body.data[0].id

  const exit = await stopTill(first, 'SIGKILL')
  assert.equal(exit.signal, 'SIGKILL')
  assert.equal(rx.requests.length, 0)

  const second = await startTill(dir)
  const [r]: Received[] = await within(30_000, rx.received(1), 'the delivery after restart')
  assert.equal(r.headers['x-service-event-id'], eventId)
  assert.equal(r.json.type, 'payment.succeeded')
  assert.equal(r.json.data.sessionId, created.body.id)
  assert.equal(r.json.data.amount, 4321)
  assert.deepEqual(r.json.data.metadata, { order: 'crash-1' })
  assert.ok(verifySignature(ep.body.secret, r.body, r.headers['x-service-signature']))

  // The answer is recorded just after the receiver got the request: look until it is (bounded).
  let detail = await api(second, 'GET', `/api/v1/events/${eventId}`, key)
  await until('the delivery recorded', 30_000, async () => {
    detail = await api(second, 'GET', `/api/v1/events/${eventId}`, key)
    return detail.body.deliveries[0].status !== 'pending'
  })
  assert.equal(detail.body.deliveries[0].status, 'delivered')
  assert.equal(detail.body.deliveries[0].attempts.length, 1)
  assert.deepEqual(await stopTill(second), { code: 0, signal: null }, second.stderr())
  assert.equal(rx.requests.length, 1)
})
