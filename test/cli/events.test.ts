/**
 * `till events list|show|resend` against a real Till, as the key's merchant and mode: the table, the
 * JSON, paging, and a resend that reaches a receiver (delivered here by the outbox, run by hand).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'
import { startReceiver } from '../helpers/receiver.js'

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ'

test('events list: newest first as a table or JSON, filtered by type, paged', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const first = await paidSession(ta, { amount: 9900, currency: 'CNY' })
  ta.clock.advance(1000)
  const canceled = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1500, currency: 'JPY' } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${canceled.body.id}/cancel`, { key: ta.merchant.testKey })

  const json = await till(['events', 'list', '--json'], { env })
  assert.equal(json.code, 0, json.stderr)
  const page = JSON.parse(json.stdout)
  assert.equal(page.hasMore, false)
  assert.deepEqual(page.data.map((e: { type: string }) => e.type), ['session.canceled', 'payment.succeeded'])
  const [cancel, paid] = page.data

  const table = await till(['events', 'list'], { env })
  assert.equal(table.code, 0, table.stderr)
  const lines = table.stdout.trimEnd().split('\n')
  assert.equal(lines[0], 'CREATED               ID                            TYPE               SUBJECT')
  assert.match(lines[1], new RegExp(`^${TIME}  ${cancel.id}  session.canceled   ${canceled.body.id}  ¥1,500 JPY$`))
  assert.match(lines[2], new RegExp(`^${TIME}  ${paid.id}  payment.succeeded  ${first.id}  ¥99\\.00 CNY$`))
  assert.equal(lines.length, 3)

  const filtered = await till(['events', 'list', '--type', 'payment.succeeded', '--json'], { env })
  assert.deepEqual(JSON.parse(filtered.stdout).data.map((e: { id: string }) => e.id), [paid.id])

  const one = await till(['events', 'list', '--limit', '1'], { env })
  assert.equal(one.code, 0, one.stderr)
  assert.match(one.stdout, new RegExp(`\\n\\nMore: till events list --starting-after ${cancel.id}\\n$`))
  const next = await till(['events', 'list', '--limit', '1', '--starting-after', cancel.id], { env })
  assert.match(next.stdout, new RegExp(`^CREATED .*\\n${TIME}  ${paid.id}  payment\\.succeeded`))
  assert.doesNotMatch(next.stdout, /More:/)

  // The live key sees the live mode, which has no events.
  const live = await till(['events', 'list'], { env: envFor(ta, { TILL_API_KEY: ta.merchant.liveKey }) })
  assert.equal(live.code, 0, live.stderr)
  assert.equal(live.stdout, 'No live-mode events.\n')
  const none = await till(['events', 'list', '--type', 'refund.failed'], { env })
  assert.equal(none.stdout, 'No test-mode events of type refund.failed.\n')
})

test('events resend: refused while no endpoint takes the event; then scheduled, delivered and shown with its attempts', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  await paidSession(ta)
  const [event] = (await ta.request('GET', '/api/v1/events', { key: ta.merchant.testKey })).body.data

  const refused = await till(['events', 'resend', event.id], { env })
  assert.equal(refused.code, 1)
  assert.equal(refused.stderr, 'error: no enabled webhook endpoint takes this event (HTTP 400)\n')

  const receiver = await startReceiver(t)
  const ep = await ta.request('POST', '/api/v1/webhook_endpoints', { key: ta.merchant.testKey, body: { url: receiver.url } })
  const resent = await till(['events', 'resend', event.id], { env })
  assert.equal(resent.code, 0, resent.stderr)
  assert.equal(resent.stdout, `Resending ${event.id} to 1 endpoint:\n  ${ep.body.id}  ${receiver.url}\n`)
  await deliverDue(ta.deps)
  const [got] = await receiver.received(1)
  assert.equal(got.json.id, event.id)

  const only = await till(['events', 'resend', event.id, '--endpoint', ep.body.id, '--json'], { env })
  assert.equal(only.code, 0, only.stderr)
  const answer = JSON.parse(only.stdout)
  assert.equal(answer.id, event.id)
  assert.deepEqual(answer.scheduled.map((s: { endpointId: string }) => s.endpointId), [ep.body.id])
  receiver.respond(() => ({ status: 503, body: 'down' }))
  await deliverDue(ta.deps)

  const shown = await till(['events', 'show', event.id], { env })
  assert.equal(shown.code, 0, shown.stderr)
  assert.match(shown.stdout, new RegExp(`^${event.id}  payment\\.succeeded  test mode  created ${TIME}\\n\\{\\n  "sessionId": "sess_`))
  assert.match(shown.stdout, new RegExp(`\\n\\n${ep.body.id}  ${receiver.url}  pending, next attempt ${TIME}\\n`))
  assert.match(shown.stdout, /\n {2}ATTEMPTED {13}STATUS {2}LATENCY +ERROR\n/)
  // The failed attempt says what the endpoint answered.
  assert.match(shown.stdout, new RegExp(`\\n  ${TIME}  200 {5}\\d+ ms *\\n  ${TIME}  503 {5}\\d+ ms +answered 503: down\\n?$`))

  const json = await till(['events', 'show', event.id, '--json'], { env })
  const detail = JSON.parse(json.stdout)
  assert.deepEqual(detail.deliveries[0].attempts.map((a: { statusCode: number }) => a.statusCode), [200, 503])

  const unknown = await till(['events', 'show', 'evt_000000000000000000000000'], { env })
  assert.equal(unknown.code, 1)
  assert.equal(unknown.stderr, 'error: Not found (HTTP 404)\n')
})
