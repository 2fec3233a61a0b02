/**
 * Webhook endpoint health (docs/integrate.md#endpoint-health): each endpoint's success rate over the
 * last 24 hours, last success, last failure and its reason, in the API, the console and the CLI; an
 * endpoint that failed every attempt for the configured period (and at least so many attempts) is
 * disabled by the delivery worker, in the statement that records the attempt, with an activity entry
 * and a notice in the console; enabling it again starts afresh.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, secondInstance, startTestApp, type TestApp } from '../helpers/app.js'
import { ConsoleBrowser, merchantWithLogin } from '../helpers/console.js'
import { createEndpoint, deliveryRows, startReceiver } from '../helpers/receiver.js'

const HOUR = 3600_000
const api = (ta: TestApp, method: string, path: string, body?: unknown, key = ta.merchant.testKey) =>
  ta.request(method, `/api/v1/webhook_endpoints${path}`, { key, body })

/** Attempts everything due, then moves the clock to the earliest next attempt; returns what was attempted. */
async function step(ta: TestApp) {
  const results = await deliverDue(ta.deps, { random: () => 0.5, perEndpoint: 64 })
  const next = results.map((r) => r.nextAttemptAt?.getTime()).filter((t): t is number => t !== undefined)
  if (next.length) ta.clock.set(new Date(Math.min(...next)))
  return results
}

test('health: the success rate of the last 24 hours, last success, last failure and its reason; an hour-old attempt leaves the window after 24 h', async (t) => {
  const ta = await startTestApp(t)
  // Five minutes into an hour, so the hours the attempts fall in do not depend on when the test runs.
  ta.clock.set(new Date(Math.ceil(Date.now() / HOUR) * HOUR + 5 * 60_000))
  let answer = 200
  const rx = await startReceiver(t, () => ({ status: answer, body: 'no' }))
  const ep = await createEndpoint(ta, rx.url)
  const fresh = (await api(ta, 'GET', `/${ep.id}`)).body
  assert.deepEqual(fresh.health, {
    recentAttempts: 0, recentSuccessRate: null, lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null,
    failingSince: null, failuresSinceSuccess: 0, disabledForFailingAt: null,
  })

  await paidSession(ta)
  await paidSession(ta)
  await paidSession(ta)
  const okAt = ta.clock().toISOString()
  assert.equal((await step(ta)).length, 3)
  ta.clock.advance(HOUR)
  answer = 503
  await paidSession(ta)
  const failAt = ta.clock().toISOString()
  assert.equal((await step(ta)).length, 1)

  const got = (await api(ta, 'GET', `/${ep.id}`)).body.health
  assert.deepEqual(got, {
    recentAttempts: 4, recentSuccessRate: 0.75, lastSuccessAt: okAt, lastFailureAt: failAt, lastFailureReason: 'HTTP 503',
    failingSince: failAt, failuresSinceSuccess: 1, disabledForFailingAt: null,
  })
  // The list carries the same health.
  assert.deepEqual((await api(ta, 'GET', '')).body.data[0].health, got)

  // The retry a minute later is refused: the reason says what happened, with no answer at all.
  answer = 200
  const server = new URL(rx.url)
  await ta.request('PATCH', `/api/v1/webhook_endpoints/${ep.id}`, { key: ta.merchant.testKey, body: { url: `http://127.0.0.1:9${server.pathname}` } })
  const [refused] = await step(ta)
  assert.equal(refused.statusCode, null)
  const after = (await api(ta, 'GET', `/${ep.id}`)).body.health
  assert.equal(after.recentAttempts, 5)
  assert.equal(after.recentSuccessRate, 0.6)
  assert.equal(after.failuresSinceSuccess, 2)
  assert.equal(after.failingSince, failAt)
  assert.equal(after.lastFailureReason, refused.error)
  assert.match(after.lastFailureReason, /ECONNREFUSED|refused/i)

  // A success ends the failing run; the earlier attempts stay counted until their hour leaves the window.
  await ta.request('PATCH', `/api/v1/webhook_endpoints/${ep.id}`, { key: ta.merchant.testKey, body: { url: rx.url } })
  ta.clock.advance(10 * 60_000)
  const [ok] = await step(ta)
  assert.equal(ok.status, 'delivered')
  const healed = (await api(ta, 'GET', `/${ep.id}`)).body.health
  assert.equal(healed.failingSince, null)
  assert.equal(healed.failuresSinceSuccess, 0)
  assert.equal(healed.lastFailureAt, after.lastFailureAt, 'the last failure stays visible')
  assert.equal(healed.recentAttempts, 6)
  assert.equal(healed.recentSuccessRate, 0.6667)
  ta.clock.advance(23 * HOUR)
  // The first hour's three successes have left the window; the hour after it has not yet.
  const later = (await api(ta, 'GET', `/${ep.id}`)).body.health
  assert.deepEqual([later.recentAttempts, later.recentSuccessRate], [3, 0.3333])
  ta.clock.advance(2 * HOUR)
  const gone = (await api(ta, 'GET', `/${ep.id}`)).body.health
  assert.deepEqual([gone.recentAttempts, gone.recentSuccessRate], [0, null])
})

test('an endpoint failing every attempt for 3 days and at least 10 attempts is disabled by the attempt that crosses both, with an activity entry and a console notice; enabling it starts afresh', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, () => ({ status: 500, body: 'broken' }))
  const m = await merchantWithLogin(ta)
  const key = m.testKey
  const ep = await createEndpoint(ta, rx.url, {}, key)
  const other = await createEndpoint(ta, rx.url + '/other', { events: ['refund.succeeded'] }, key)
  const created = await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, { key, body: {} })
  const start = ta.clock().getTime()

  // One delivery's schedule: attempts at 0, 1 m, 6 m, 36 m, 2 h 36 m, 7 h 36 m, 17 h 36 m, 27 h 36 m, 51 h 36 m, 75 h 36 m.
  const seen: { at: number; enabled: boolean }[] = []
  for (let i = 0; i < 10; i++) {
    const [r] = await step(ta)
    assert.equal(r.statusCode, 500)
    const now = (await api(ta, 'GET', `/${ep.id}`, undefined, key)).body
    seen.push({ at: Math.round((new Date(now.health.lastFailureAt).getTime() - start) / 60_000), enabled: now.enabled })
  }
  // The 9th attempt (51 h 36 m) has 9 failures but not 3 days; the 10th has both.
  assert.deepEqual(seen.map((s) => s.enabled), [true, true, true, true, true, true, true, true, true, false])
  assert.equal(seen[9].at, 75 * 60 + 36)
  const off = (await api(ta, 'GET', `/${ep.id}`, undefined, key)).body
  assert.equal(off.enabled, false)
  assert.equal(off.health.failuresSinceSuccess, 10)
  assert.equal(off.health.failingSince, new Date(start).toISOString())
  assert.equal(off.health.disabledForFailingAt, off.health.lastFailureAt)
  assert.equal(off.health.lastFailureReason, 'HTTP 500')
  // The other endpoint, which received nothing, is untouched.
  assert.equal((await api(ta, 'GET', `/${other.id}`, undefined, key)).body.enabled, true)

  // Disabled in the statement that recorded the 10th attempt: the attempt, the delivery's end and the
  // disabling are all there, and the activity log names Till as the actor.
  const { rows: attempts } = await ta.database.pool.query('select count(*)::int as n from webhook_attempts')
  assert.equal(attempts[0].n, 10)
  const [row] = await deliveryRows(ta, 'd.endpoint_id = $1', [ep.id])
  assert.equal(row.status, 'failed')
  const { rows: activity } = await ta.database.pool.query(`select * from console_activity where action = 'endpoint_disabled_failing'`)
  assert.equal(activity.length, 1)
  assert.equal(activity[0].actor, 'Till')
  assert.equal(activity[0].subject, ep.id)
  assert.equal(activity[0].mode, 'test')
  assert.equal(activity[0].merchant_id, m.id)
  assert.deepEqual(activity[0].detail, { url: rx.url, failingSince: new Date(start).toISOString(), failures: 10, reason: 'HTTP 500' })
  // Signed in now: three days on the test clock end any console session.
  const browser = new ConsoleBrowser(ta)
  assert.equal((await browser.signIn(m.email, m.password)).status, 303)
  assert.match((await browser.get('/console/test/activity')).html, /data-action="endpoint_disabled_failing"[^]*?Disabled by Till: every delivery failed/)

  // While disabled, new events are not queued for it.
  const later = await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${later.body.id}/pay`, { key, body: {} })
  assert.equal((await deliveryRows(ta, 'd.endpoint_id = $1', [ep.id])).length, 1)

  // The console says why, on the list and the endpoint's page, and what enabling will do.
  const list = (await browser.get('/console/test/webhooks')).html
  assert.match(list, /Disabled: failing/)
  const page = (await browser.get(`/console/test/webhooks/${ep.id}`)).html
  assert.match(page, /Till disabled this endpoint/)
  assert.match(page, /HTTP 500/)
  assert.match(page, /not sent again/)

  // Enabled again (the console's button): the failing run starts afresh, so one more failure does not disable it at once.
  const enabled = await browser.submit(`/console/test/webhooks/${ep.id}`, `/console/test/webhooks/${ep.id}/state`, { change: 'enable' })
  assert.equal(enabled.status, 303)
  assert.match((await browser.get(enabled.location!)).html, /Enabled again\. Deliveries that failed while it was failing are not sent again/)
  const on = (await api(ta, 'GET', `/${ep.id}`, undefined, key)).body
  assert.equal(on.enabled, true)
  assert.deepEqual([on.health.failingSince, on.health.failuresSinceSuccess, on.health.disabledForFailingAt], [null, 0, null])
  assert.equal(on.health.lastFailureReason, 'HTTP 500', 'the history stays')
  const again = await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${again.body.id}/pay`, { key, body: {} })
  await step(ta)
  assert.equal((await api(ta, 'GET', `/${ep.id}`, undefined, key)).body.enabled, true)
  // The delivery that failed for good stays failed until someone redelivers it.
  assert.equal((await deliveryRows(ta, 'd.endpoint_id = $1 and d.status = $2', [ep.id, 'failed'])).length, 1)
})

test('the period and the attempt count are configurable; a success in between starts the count again; 0 never disables', async (t) => {
  const ta = await startTestApp(t, { webhookDisableAfterMs: HOUR, webhookDisableMinFailures: 3 })
  let status = 500
  const rx = await startReceiver(t, () => ({ status }))
  const ep = await createEndpoint(ta, rx.url)
  await paidSession(ta)
  await step(ta) // 0: fail
  await step(ta) // 1 m: fail
  status = 200
  ta.clock.advance(2 * HOUR)
  await paidSession(ta)
  await step(ta) // a success: the run ends
  status = 500
  await paidSession(ta)
  for (let i = 0; i < 2; i++) await step(ta) // fails at +0 and +1 m: 2 failures, 1 minute
  assert.equal((await api(ta, 'GET', `/${ep.id}`)).body.enabled, true)
  ta.clock.advance(HOUR)
  await step(ta) // the third failure, more than an hour after the run began
  const off = (await api(ta, 'GET', `/${ep.id}`)).body
  assert.equal(off.enabled, false)
  assert.equal(off.health.failuresSinceSuccess, 3)

  const never = await startTestApp(t, { webhookDisableAfterMs: 0, webhookDisableMinFailures: 1 })
  const rx2 = await startReceiver(t, () => ({ status: 500 }))
  const ep2 = await createEndpoint(never, rx2.url)
  await paidSession(never)
  for (let i = 0; i < 10; i++) await step(never)
  const still = (await api(never, 'GET', `/${ep2.id}`)).body
  assert.equal(still.enabled, true)
  assert.equal(still.health.failuresSinceSuccess, 10)
})

test('two instances recording failures for one endpoint at the same time lose no count', async (t) => {
  const ta = await startTestApp(t)
  const second = await secondInstance(t, ta)
  // Answers are held until 24 requests are in: both instances then record their failures together.
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const rx = await startReceiver(t, async (_r, n) => {
    if (n + 1 >= 24) release()
    await gate
    return { status: 503 }
  })
  const ep = await createEndpoint(ta, rx.url)
  const events = 24
  for (let i = 0; i < events; i++) await paidSession(ta, { amount: 100 + i, currency: 'CNY' })
  const [a, b] = await Promise.all([deliverDue(ta.deps, { limit: 12, perEndpoint: 64 }), deliverDue(second, { limit: 12, perEndpoint: 64 })])
  assert.equal(a.length + b.length, events)
  assert.ok(a.length > 0 && b.length > 0, `both instances attempted (${a.length}, ${b.length})`)
  const health = (await api(ta, 'GET', `/${ep.id}`)).body.health
  assert.equal(health.failuresSinceSuccess, events)
  assert.equal(health.recentAttempts, events)
  assert.equal(health.recentSuccessRate, 0)
})
