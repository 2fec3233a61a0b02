/**
 * `till sessions list|show`, `till refunds create`, `till webhooks endpoints list|create|delete`,
 * `till trigger <event-type>` and `--forward-to` without a scheme: the real binary against a real
 * Till, as the key's merchant and mode.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { EVENT_TYPES, SESSION_EVENT_TYPES } from '../../src/domain/events.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { envFor, startCli, till } from '../helpers/cli.js'
import { startReceiver } from '../helpers/receiver.js'

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ'

test('sessions list and show; refunds create', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY', description: 'Order 7', metadata: { order: 'A-7' }, customerEmail: 'buyer@example.com' })
  ta.clock.advance(1000)
  const open = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1500, currency: 'JPY' } })

  const table = await till(['sessions', 'list'], { env })
  assert.equal(table.code, 0, table.stderr)
  const lines = table.stdout.trimEnd().split('\n')
  assert.match(lines[0], /^CREATED +ID +STATUS +AMOUNT +RECORD$/)
  assert.match(lines[1], new RegExp(`^${TIME}  ${open.body.id}  pending +¥1,500 JPY +-$`))
  assert.match(lines[2], new RegExp(`^${TIME}  ${paid.id}  paid +¥99\\.00 CNY +${paid.record.id}$`))
  assert.equal(lines.length, 3)

  const json = await till(['sessions', 'list', '--status', 'paid', '--json'], { env })
  assert.deepEqual(JSON.parse(json.stdout).data.map((s: { id: string }) => s.id), [paid.id])
  const byMeta = await till(['sessions', 'list', '--metadata', 'order=A-7', '--json'], { env })
  assert.deepEqual(JSON.parse(byMeta.stdout).data.map((s: { id: string }) => s.id), [paid.id])
  const since = await till(['sessions', 'list', '--created-gte', new Date(ta.clock().getTime() - 500).toISOString(), '--json'], { env })
  assert.deepEqual(JSON.parse(since.stdout).data.map((s: { id: string }) => s.id), [open.body.id])
  const one = await till(['sessions', 'list', '--limit', '1'], { env })
  assert.match(one.stdout, new RegExp(`\\n\\nMore: till sessions list --starting-after ${open.body.id}\\n$`))
  const next = await till(['sessions', 'list', '--limit', '1', '--starting-after', open.body.id, '--json'], { env })
  assert.deepEqual(JSON.parse(next.stdout).data.map((s: { id: string }) => s.id), [paid.id])

  const refund = await till(['refunds', 'create', paid.record.id, '--amount', '1000', '--reason', 'damaged'], { env })
  assert.equal(refund.code, 0, refund.stderr)
  assert.match(refund.stdout, new RegExp(`^ref_\\w{24}  succeeded  ¥10\\.00 CNY\\n${paid.record.id}  partially_refunded, refunded ¥10\\.00 CNY of ¥99\\.00 CNY\\n$`))

  const listed = (await till(['sessions', 'list', '--status', 'paid'], { env })).stdout.trimEnd().split('\n')
  assert.match(listed[1], new RegExp(`^${TIME}  ${paid.id}  paid \\(partially_refunded\\) +¥99\\.00 CNY +${paid.record.id}$`))

  const show = await till(['sessions', 'show', paid.id], { env })
  assert.equal(show.code, 0, show.stderr)
  assert.match(show.stdout, new RegExp(`^${paid.id}  paid  ¥99\\.00 CNY  test mode\\n`))
  assert.match(show.stdout, /\ndescription: Order 7\nmetadata: \{"order":"A-7"\}\nreceipt email: buyer@example\.com\n/)
  assert.match(show.stdout, /\nrefunded ¥10\.00 CNY of ¥99\.00 CNY\n/)
  assert.match(show.stdout, new RegExp(`\\n  ${TIME}  ref_\\w{24}  succeeded  ¥10\\.00 CNY  damaged\\n$`))
  const shown = JSON.parse((await till(['sessions', 'show', paid.id, '--json'], { env })).stdout)
  assert.equal(shown.session.id, paid.id)
  assert.equal(shown.record.refunds.length, 1)

  // Refused by Till: its words and status, exit 1; refused on the command line: exit 2.
  const over = await till(['refunds', 'create', paid.record.id, '--amount', '9000'], { env })
  assert.equal(over.code, 1)
  assert.equal(over.stderr, 'error: amount exceeds refundable (HTTP 400)\n')
  const other = await till(['sessions', 'show', paid.id], { env: envFor(ta, { TILL_API_KEY: ta.merchant.liveKey }) })
  assert.equal(other.code, 1)
  assert.equal(other.stderr, 'error: Not found (HTTP 404)\n')
  for (const args of [['sessions', 'list', '--status', 'open'], ['sessions', 'list', '--created-gte', 'yesterday'], ['sessions', 'list', '--metadata', 'novalue'],
    ['sessions', 'show', paid.record.id], ['refunds', 'create', paid.id], ['refunds', 'create', paid.record.id, '--amount', '1.5']]) {
    const res = await till(args, { env })
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`)
  }
})

test('webhooks endpoints list, create and delete', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  assert.equal((await till(['webhooks', 'endpoints', 'list'], { env })).stdout, 'No webhook endpoints.\n')
  const created = await till(['webhooks', 'endpoints', 'create', 'https://shop.example.com/till', '--events', 'payment.succeeded,refund.succeeded'], { env })
  assert.equal(created.code, 0, created.stderr)
  const m = /^Created (we_\w{24}) \(test mode\): https:\/\/shop\.example\.com\/till, events: payment\.succeeded, refund\.succeeded\nSigning secret \(shown once, store it\): (whsec_\w{32})\n$/.exec(created.stdout)
  assert.ok(m, created.stdout)
  const list = await till(['webhooks', 'endpoints', 'list'], { env })
  assert.match(list.stdout, new RegExp(`^ID +URL +EVENTS +ENABLED +DELIVERED \\(24 H\\) +LAST FAILURE +CREATED\\n${m[1]}  https://shop.example.com/till  payment.succeeded,refund.succeeded  yes +- +- +${TIME}\\n$`))
  assert.doesNotMatch(list.stdout, /whsec_/)
  const json = JSON.parse((await till(['webhooks', 'endpoints', 'list', '--json'], { env })).stdout)
  assert.deepEqual(json.data.map((e: { id: string }) => e.id), [m[1]])
  const live = await till(['webhooks', 'endpoints', 'create', 'http://shop.example.com/till'], { env: envFor(ta, { TILL_API_KEY: ta.merchant.liveKey }) })
  assert.equal(live.code, 1)
  assert.equal(live.stderr, 'error: url: must use https in live mode (HTTP 400)\n')
  // Health: the share delivered in 24 h, and the last failure with its reason.
  const rx = await startReceiver(t, (_r, n) => (n < 2 ? { status: 200 } : { status: 503 }))
  const health = await ta.request('POST', '/api/v1/webhook_endpoints', { key: ta.merchant.testKey, body: { url: rx.url } })
  for (let i = 0; i < 3; i++) {
    await paidSession(ta)
    await deliverDue(ta.deps)
  }
  const failAt = ta.clock().toISOString().replace(/\.\d+Z$/, 'Z')
  const withHealth = (await till(['webhooks', 'endpoints', 'list'], { env })).stdout.split('\n')
  assert.match(withHealth.find((l) => l.startsWith(health.body.id))!, new RegExp(`  all +yes +66\\.7% of 3 +${failAt} HTTP 503 +${TIME}$`))
  await ta.request('DELETE', `/api/v1/webhook_endpoints/${health.body.id}`, { key: ta.merchant.testKey })
  const deleted = await till(['webhooks', 'endpoints', 'delete', m[1]], { env })
  assert.equal(deleted.code, 0, deleted.stderr)
  assert.equal(deleted.stdout, `Deleted ${m[1]}.\n`)
  assert.equal((await till(['webhooks', 'endpoints', 'list'], { env })).stdout, 'No webhook endpoints.\n')
  for (const args of [['webhooks', 'endpoints', 'create'], ['webhooks', 'endpoints', 'delete', 'sess_x'], ['webhooks', 'endpoints', 'purge'],
    ['webhooks', 'endpoints', 'create', 'https://x.example', '--events', 'payment.done']]) {
    assert.equal((await till(args, { env })).code, 2, args.join(' '))
  }
  const help = await till(['webhooks', '--help'], { env })
  assert.match(help.stdout, /\n  endpoints +list, create or delete webhook endpoints/)
})

test('trigger makes a test-mode session emit each event type, and refuses a live key', async (t) => {
  const ta = await startTestApp(t)
  const env = envFor(ta)
  const expected: Record<string, string[]> = {
    'payment.succeeded': ['payment.succeeded'],
    'payment.failed': ['payment.failed'],
    'session.canceled': ['session.canceled'],
    'session.expired': ['session.expired'],
    'refund.succeeded': ['payment.succeeded', 'refund.succeeded'],
    'refund.pending': ['payment.succeeded', 'refund.pending'],
    'refund.failed': ['payment.succeeded', 'refund.failed'],
    'payment.disputed': ['payment.disputed', 'payment.succeeded'],
    'payment.dispute_closed': ['payment.dispute_closed', 'payment.disputed', 'payment.succeeded'],
  }
  // Every event type about a session; reconciliation.mismatches_found comes only from a live day's reconciliation.
  assert.deepEqual(Object.keys(expected).sort(), [...SESSION_EVENT_TYPES].sort())
  assert.deepEqual(EVENT_TYPES.filter((e) => !(SESSION_EVENT_TYPES as string[]).includes(e)), ['reconciliation.mismatches_found'])
  assert.equal((await till(['trigger', 'reconciliation.mismatches_found'], { env })).code, 2)
  for (const [type, types] of Object.entries(expected)) {
    const res = await till(['trigger', type, '--json'], { env })
    assert.equal(res.code, 0, `${type}: ${res.stderr}`)
    const out = JSON.parse(res.stdout)
    // Made in one millisecond here (the test clock stands still): their order is the ids'.
    assert.deepEqual(out.events.map((e: { type: string }) => e.type).sort(), types, type)
    // The events are there in Till, about this session.
    for (const e of out.events) {
      const got = await ta.request('GET', `/api/v1/events/${e.id}`, { key: ta.merchant.testKey })
      assert.equal(got.body.type, e.type)
      assert.equal(got.body.data.sessionId, out.session.id)
      assert.deepEqual(got.body.data.metadata, { till_trigger: type })
    }
  }
  const text = await till(['trigger', 'payment.succeeded'], { env })
  assert.match(text.stdout, /^Triggered payment\.succeeded: session sess_\w{24} is paid\.\n  evt_\w{24}  payment\.succeeded\n$/)

  // --override and --add, as stripe trigger takes them: the session an integration (the Medusa plugin) would look up.
  const shaped = await till(['trigger', 'refund.succeeded', '--override', 'amount=2500', '--override', 'currency=USD', '--add', 'metadata.order_id=42', '--json'], { env })
  assert.equal(shaped.code, 0, shaped.stderr)
  const s = JSON.parse(shaped.stdout).session
  assert.deepEqual([s.amount, s.currency, s.metadata], [2500, 'USD', { till_trigger: 'refund.succeeded', order_id: '42' }])
  assert.equal(JSON.parse(shaped.stdout).refund.amount, 2500)
  for (const bad of [['--override', 'amount=ten'], ['--override', 'colour=red'], ['--add', 'amount=5'], ['--override', 'currency=XYZ']]) {
    assert.equal((await till(['trigger', 'payment.succeeded', ...bad], { env })).code, 2, bad.join(' '))
  }

  const sessionsBefore = (await ta.database.pool.query('select count(*)::int as n from sessions')).rows[0].n
  const live = await till(['trigger', 'payment.succeeded'], { env: envFor(ta, { TILL_API_KEY: ta.merchant.liveKey }) })
  assert.equal(live.code, 2)
  assert.match(live.stderr, /needs a test key/)
  assert.equal((await ta.database.pool.query('select count(*)::int as n from sessions')).rows[0].n, sessionsBefore, 'nothing made in live mode')
  assert.equal((await till(['trigger', 'payment.done'], { env })).code, 2)
})

test('webhooks listen --forward-to without a scheme forwards over http', async (t) => {
  const ta = await startTestApp(t)
  const receiver = await startReceiver(t)
  const bare = receiver.url.replace(/^http:\/\//, '')
  const cli = startCli(t, ['webhooks', 'listen', '--forward-to', bare], envFor(ta))
  await cli.waitFor(new RegExp(`they are forwarded to ${receiver.url.replace(/[.]/g, '\\.')}`))
  await paidSession(ta)
  await deliverDue(ta.deps)
  const [got] = await receiver.received(1)
  assert.equal(got.json.type, 'payment.succeeded')
})
