/**
 * `till webhooks listen` end to end: the real binary registers its temporary endpoint with a real
 * Till, the outbox (run here with deliverDue, as the worker would) delivers to it, and a local
 * receiver gets each event re-signed with the printed secret; SIGTERM or SIGINT removes the endpoint.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { envFor, startCli } from '../helpers/cli.js'
import { freePort, refusedPort } from '../helpers/process.js'
import { startReceiver, verifySignature } from '../helpers/receiver.js'

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ'
const READY = /Your webhook signing secret: (whsec_[0-9A-Za-z]{32})\n/

const endpoints = async (ta: TestApp) => (await ta.request('GET', '/api/v1/webhook_endpoints', { key: ta.merchant.testKey })).body.data as { id: string; url: string; events: string[] | null }[]

test('webhooks listen forwards each event re-signed with the printed secret, prints its status, answers Till with it, and removes its endpoint on SIGTERM', async (t) => {
  // Till as `npm start` configures it on a laptop: webhooks to loopback by default, nothing set.
  const ta = await startTestApp(t, { webhookAllowPrivate: loadConfig({}).webhookAllowPrivate })
  const receiver = await startReceiver(t)
  const cli = startCli(t, ['webhooks', 'listen', '--forward-to', receiver.url], envFor(ta))
  const secret = (await cli.waitFor(READY))[1]
  const [endpoint] = await endpoints(ta)
  assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/till-listen\/[0-9A-Za-z]{16}$/)
  assert.equal(endpoint.events, null)
  assert.equal(cli.stdout(), `Ready. Till at ${ta.baseUrl} sends this merchant's test-mode events to the temporary endpoint ${endpoint.id};
they are forwarded to ${receiver.url}.
Your webhook signing secret: ${secret}
Ctrl-C removes the endpoint and stops.
`)

  // A payment: delivered to the listener, forwarded, 200 back to Till.
  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY' })
  const [result] = await deliverDue(ta.deps)
  const [got] = await receiver.received(1)
  assert.equal(got.json.type, 'payment.succeeded')
  assert.equal(got.json.data.sessionId, paid.id)
  assert.equal(got.headers['x-service-event-id'], got.json.id)
  assert.equal(got.headers['x-service-event-type'], 'payment.succeeded')
  assert.equal(got.headers['content-type'], 'application/json')
  assert.ok(verifySignature(secret, got.body, got.headers['x-service-signature']), 'signed with the printed secret')
  assert.match(String(got.headers['x-service-signature']), /^[0-9a-f]{64}$/, 'one signature: the local secret\'s only')
  assert.equal(result.endpointId, endpoint.id)
  assert.equal(result.statusCode, 200)
  assert.equal(result.status, 'delivered')
  await cli.waitFor(new RegExp(`^${TIME}  payment\\.succeeded  ${got.json.id}  → 200\\n`, 'm'))

  // The receiver fails: the CLI prints its status and answers Till 502, so Till retries.
  receiver.respond(() => ({ status: 500, body: 'boom' }))
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 100 } })
  assert.equal(refund.status, 200, JSON.stringify(refund.body))
  const [failed] = await deliverDue(ta.deps)
  const [, second] = await receiver.received(2)
  assert.equal(second.json.type, 'refund.succeeded')
  assert.ok(verifySignature(secret, second.body, second.headers['x-service-signature']))
  assert.equal(failed.statusCode, 502)
  assert.equal(failed.status, 'pending', 'Till retries it later')
  assert.equal(failed.responseBody, `${receiver.url} answered 500\n`)
  await cli.waitFor(new RegExp(`^${TIME}  refund\\.succeeded {3}${second.json.id}  → 500\\n`, 'm'))

  // Someone else posting to the listener without Till's signature is turned away, not forwarded.
  const forged = await fetch(endpoint.url, { method: 'POST', headers: { 'x-service-signature': 'f'.repeat(64) }, body: '{"id":"evt_forged"}' })
  assert.equal(forged.status, 400)
  assert.equal(receiver.requests.length, 2)
  assert.doesNotMatch(cli.stdout(), /evt_forged/)

  cli.child.kill('SIGTERM')
  assert.deepEqual(await cli.closed, { code: 0, signal: null })
  assert.match(cli.stderr(), new RegExp(`SIGTERM: removing the temporary endpoint ${endpoint.id}\\n`))
  assert.match(cli.stderr(), /ignored a request without a valid Till signature\n/)
  assert.deepEqual(await endpoints(ta), [])
  assert.equal(cli.stdout().split('\n').filter((l) => /evt_/.test(l)).length, 2, 'one line per event')
})

test('webhooks listen removes endpoints left by a listener that is gone, applies --events and --secret, and reports a receiver that is down', async (t) => {
  const ta = await startTestApp(t)
  const create = (url: string) => ta.request('POST', '/api/v1/webhook_endpoints', { key: ta.merchant.testKey, body: { url } })
  // Ports that certainly refuse: a listener that is gone (stale), a receiver that is down.
  const stale = (await create(`http://127.0.0.1:${await refusedPort(t)}/till-listen/abcdefghijklmnop`)).body
  const other = (await create(`http://127.0.0.1:${await freePort()}/hooks`)).body
  const down = `http://127.0.0.1:${await refusedPort(t)}/hook`
  const fixed = 'whsec_0123456789abcdefghijABCDEFGHIJKL'

  const cli = startCli(t, ['webhooks', 'listen', '--forward-to', down, '--events', 'payment.failed', '--secret', fixed], envFor(ta))
  assert.equal((await cli.waitFor(READY))[1], fixed)
  assert.match(cli.stdout(), /test-mode events \(payment\.failed\) to the temporary endpoint/)
  assert.equal(cli.stderr(), `Removed ${stale.id} (${stale.url}), left behind by an earlier till webhooks listen that is gone.\n`)
  const now = await endpoints(ta)
  assert.deepEqual(now.map((e) => e.id).sort(), [other.id, now.find((e) => e.url.includes('/till-listen/'))!.id].sort(), 'the other endpoint stays')
  const mine = now.find((e) => e.id !== other.id)!
  assert.deepEqual(mine.events, ['payment.failed'])

  const session = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 500, currency: 'USD' } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${session.body.id}/fail`, { key: ta.merchant.testKey })
  const results = await deliverDue(ta.deps)
  const forwarded = results.find((r) => r.endpointId === mine.id)!
  assert.equal(forwarded.statusCode, 502)
  assert.equal(forwarded.responseBody, `${down} answered error: connection refused\n`)
  await cli.waitFor(new RegExp(`^${TIME}  payment\\.failed {5}${forwarded.eventId}  → error: connection refused\\n`, 'm'))

  cli.child.kill('SIGINT')
  assert.deepEqual(await cli.closed, { code: 0, signal: null })
  assert.deepEqual((await endpoints(ta)).map((e) => e.id), [other.id])
})

test('webhooks listen keeps one secret per Till and receiver URL on this machine, and a closed output pipe removes its endpoint', async (t) => {
  const ta = await startTestApp(t)
  const receiver = await startReceiver(t)
  const first = startCli(t, ['webhooks', 'listen', '--forward-to', receiver.url], envFor(ta))
  const secret = (await first.waitFor(READY))[1]
  first.child.kill('SIGTERM')
  await first.closed
  // The next listen for the same receiver signs with the same secret: the app needs no restart.
  const again = startCli(t, ['webhooks', 'listen', '--forward-to', receiver.url], envFor(ta))
  assert.equal((await again.waitFor(READY))[1], secret)
  // Another receiver URL gets its own.
  const elsewhere = startCli(t, ['webhooks', 'listen', '--forward-to', `${receiver.url}/other`], envFor(ta))
  assert.notEqual((await elsewhere.waitFor(READY))[1], secret)
  elsewhere.child.kill('SIGTERM')
  await elsewhere.closed

  // `till webhooks listen … | head -3`: the reader goes away; the next line printed finds the pipe broken.
  again.child.stdout!.destroy()
  await paidSession(ta)
  await deliverDue(ta.deps)
  assert.deepEqual(await again.closed, { code: 0, signal: null }, again.stderr())
  assert.match(again.stderr(), /EPIPE: removing the temporary endpoint/)
  assert.deepEqual(await endpoints(ta), [])
})

test('till runs the command in its own process: no second node process', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const ta = await startTestApp(t)
  const cli = startCli(t, ['webhooks', 'listen', '--forward-to', `http://127.0.0.1:${await freePort()}/hook`], envFor(ta))
  await cli.waitFor(READY)
  const pid = cli.child.pid!
  assert.equal(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim(), '', 'no child process')
  cli.child.kill('SIGTERM')
  await cli.closed
  assert.deepEqual(await endpoints(ta), [])
})
