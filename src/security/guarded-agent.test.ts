import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { buildConnector, request } from 'undici'
import { guardedAgent, type RefusalLog, type Resolve } from './guarded-agent.js'

const PUBLIC = '93.184.216.34'

/** A loopback server, and a dialler that records the address it is given and connects to the server instead. */
async function harness(t: { after(fn: () => unknown): void }, resolve: Resolve) {
  const server = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => new Promise((r) => server.close(r)))
  const dialled: string[] = []
  const connect = buildConnector({})
  const logged: Parameters<RefusalLog>[] = []
  const agent = guardedAgent({
    allowPrivate: () => false, flag: 'TEST_ALLOW_PRIVATE', timeoutMs: 5000, keepAliveTimeout: 10, lookup: resolve,
    log: (...args) => logged.push(args),
    dial: (opts, cb) => {
      dialled.push(opts.hostname)
      connect({ ...opts, hostname: '127.0.0.1' }, cb)
    },
  })
  t.after(() => agent.destroy())
  const get = (host: string) => request(`http://${host}:${(server.address() as AddressInfo).port}/`, { dispatcher: agent }).then(async (r) => r.body.text())
  return { dialled, logged, get }
}

test('a name resolving to a private and a public address is dialled at the public one it checked, never the first returned', async (t) => {
  const h = await harness(t, async () => [{ address: '10.0.0.7' }, { address: PUBLIC }])
  assert.equal(await h.get('mixed.example'), 'ok')
  assert.deepEqual(h.dialled, [PUBLIC])
})

test('a name resolving only to private addresses and one that does not resolve are refused in the same words; the detail is logged', async (t) => {
  const h = await harness(t, async (host) => {
    if (host === 'internal.corp.test') return [{ address: '10.0.0.5' }]
    if (host === 'empty.corp.test') return []
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
  })
  const refusal = (host: string) => `refused to connect to ${host}: not a public address (loopback, private, link-local and reserved addresses need TEST_ALLOW_PRIVATE=1)`
  for (const host of ['internal.corp.test', 'nowhere.corp.test', 'empty.corp.test']) {
    await assert.rejects(h.get(host), (e: Error) => e.message === refusal(host))
  }
  assert.deepEqual(h.dialled, [])
  assert.deepEqual(h.logged, [
    [{ host: 'internal.corp.test', addresses: ['10.0.0.5'] }, 'refused to connect: no public address'],
    [{ host: 'nowhere.corp.test', error: 'getaddrinfo ENOTFOUND nowhere.corp.test' }, 'refused to connect: the name did not resolve'],
    [{ host: 'empty.corp.test', addresses: [] }, 'refused to connect: no public address'],
  ])
})
