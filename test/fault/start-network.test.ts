/**
 * Starting Till on the network, as a child process on its own embedded PostgreSQL: a port another
 * program holds, BASE_URL in session urls, and an address others than this machine reach (/metrics,
 * webhooks to loopback).
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import { alive, api, dataDir, demoKey, postmasterPid, startTill, stopTill } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'
import { until } from '../helpers/wait.js'

test('a port in use: one line naming the port and PORT, before any Demo key; exit 1, postgres stopped; the next start prints the key', async (t) => {
  const dir = dataDir(t)
  // The HTTP port is taken: the cluster starts, then the port check fails.
  const blocker = net.createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => blocker.close(resolve)))
  const port = (blocker.address() as net.AddressInfo).port

  const till = await startTill(dir, {}, { port, wait: false })
  const exit = await till.closed
  assert.equal(exit.code, 1, till.stdout())
  assert.equal(till.stderr(), `port ${port} on 127.0.0.1 is in use by another program: stop it, or start Till on another port with PORT (e.g. PORT=${port + 1} npm start)\n`)
  assert.doesNotMatch(till.stdout(), /Created merchant|sk_test_/, 'no Demo merchant, no key printed')
  assert.ok(existsSync(path.join(dir, 'pg', 'PG_VERSION')), 'the cluster was initialised before listening failed')
  const after = postmasterPid(dir)
  assert.ok(after === null || !alive(after), `postmaster ${after} left running by a failed start`)
  assert.ok(!existsSync(path.join(dir, 'till.pid')), 'the DATA_DIR claim is released')

  // On a free port the first real start makes the Demo merchant and shows its key, once.
  const next = await startTill(dir)
  assert.match(await demoKey(next), /^sk_test_[0-9A-Za-z]{32}$/)
  assert.deepEqual(await stopTill(next), { code: 0, signal: null }, next.stderr() + next.stdout())
})

test('a Till others can reach (HOST=0.0.0.0) warns at start that /metrics is open, and by default refuses webhooks to loopback', async (t) => {
  const dir = dataDir(t)
  const receiver = await startReceiver(t)
  // WEBHOOK_ALLOW_PRIVATE unset, as an operator who never heard of it leaves it.
  const till = await startTill(dir, { HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE: '' })
  const key = await demoKey(till)
  assert.match(till.stdout(), /GET \/metrics is open to anyone who reaches HOST 0\.0\.0\.0: set METRICS_TOKEN to require a bearer token/)

  const endpoint = await api(till, 'POST', '/api/v1/webhook_endpoints', key, { url: receiver.url })
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body))
  const created = await api(till, 'POST', '/api/v1/checkout', key, { amount: 100, currency: 'CNY' })
  assert.equal((await api(till, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, key, {})).status, 200)
  const [event] = (await api(till, 'GET', '/api/v1/events', key)).body.data
  let attempts: { error: string | null }[] = []
  await until('the first delivery attempt', 30_000, async () => {
    attempts = (await api(till, 'GET', `/api/v1/events/${event.id}`, key)).body.deliveries[0].attempts
    return attempts.length > 0
  })
  assert.equal(attempts[0].error, 'refused to connect to 127.0.0.1: not a public address (loopback, private, link-local and reserved addresses need WEBHOOK_ALLOW_PRIVATE=1)')
  assert.equal(receiver.connections(), 0, 'the loopback receiver heard nothing')
  assert.deepEqual(await stopTill(till), { code: 0, signal: null }, till.stderr())
})

test('BASE_URL is honoured in session urls', async (t) => {
  const dir = dataDir(t)
  const till = await startTill(dir, { BASE_URL: 'https://pay.example.com' })
  const key = await demoKey(till)
  const created = await api(till, 'POST', '/api/v1/checkout', key, { amount: 500, currency: 'JPY' })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal(created.body.url, `https://pay.example.com/c/${created.body.id}`)
  const got = await api(till, 'GET', `/api/v1/sessions/${created.body.id}`, key)
  assert.equal(got.body.url, `https://pay.example.com/c/${created.body.id}`)
  assert.match(till.stdout(), /curl -s https:\/\/pay\.example\.com\/api\/v1\/checkout/)
  // Behind a proxy on this machine, /metrics is as open as the public address.
  assert.match(till.stdout(), /GET \/metrics is open to anyone who reaches https:\/\/pay\.example\.com: set METRICS_TOKEN/)
  assert.deepEqual(await stopTill(till), { code: 0, signal: null }, till.stderr())
})
