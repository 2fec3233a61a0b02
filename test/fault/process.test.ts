/**
 * The real service as a child process (`node --import tsx src/main.ts`) on its own embedded
 * PostgreSQL in a fresh DATA_DIR: first start, SIGKILL recovery, graceful SIGTERM, the Unix-socket-only
 * cluster (the port, BASE_URL and the network: start-network.test.ts; one Till per DATA_DIR: data-dir-lock.test.ts). No DATABASE_URL: exactly what a fresh clone does.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { test } from 'node:test'
import pg from 'pg'
import { alive, api, dataDir, demoKey, KEY_LINE, postmasterPid, startTill, stopTill, type Till } from '../helpers/process.js'

test('first start prints the Demo test key once; the key works; a second start prints nothing', async (t) => {
  const dir = dataDir(t)
  const first = await startTill(dir)
  const key = await demoKey(first)
  assert.match(key, /^sk_test_[0-9A-Za-z]{32}$/)

  for (const probe of ['/healthz', '/readyz']) {
    const res = await fetch(first.base + probe)
    assert.equal(res.status, 200, probe)
  }
  const created = await api(first, 'POST', '/api/v1/checkout', key, { amount: 9900, currency: 'CNY' })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.match(created.body.id, /^sess_[0-9A-Za-z]{24}$/)
  assert.equal(created.body.status, 'pending')
  assert.equal(created.body.url, `http://localhost:${first.port}/c/${created.body.id}`)

  const exit = await stopTill(first)
  assert.deepEqual(exit, { code: 0, signal: null }, first.stderr())
  assert.equal([...first.stdout().matchAll(KEY_LINE)].length, 1, first.stdout())

  const second = await startTill(dir)
  // The key still works: the same database, not a new one.
  const again = await api(second, 'GET', `/api/v1/sessions/${created.body.id}`, key)
  assert.equal(again.status, 200)
  assert.equal(again.body.id, created.body.id)
  const exit2 = await stopTill(second)
  assert.deepEqual(exit2, { code: 0, signal: null }, second.stderr())
  assert.doesNotMatch(second.stdout(), /sk_(test|live)_/)
  assert.doesNotMatch(second.stdout(), /Created merchant/)
  assert.doesNotMatch(first.stdout() + second.stdout(), /metrics is open/, 'on a laptop /metrics needs no token')
})

test('after SIGKILL the next start stops the orphaned postgres, starts its own, and paid data survives', async (t) => {
  const dir = dataDir(t)
  const first = await startTill(dir)
  const key = await demoKey(first)
  const created = await api(first, 'POST', '/api/v1/checkout', key, { amount: 1234, currency: 'USD', metadata: { order: 'k9' } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const paid = await api(first, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, key, {})
  assert.equal(paid.status, 200, JSON.stringify(paid.body))
  assert.equal(paid.body.status, 'paid')
  const recordId = paid.body.record.id
  assert.match(recordId, /^rec_[0-9A-Za-z]{24}$/)

  const exit = await stopTill(first, 'SIGKILL')
  assert.equal(exit.signal, 'SIGKILL')
  const orphan = postmasterPid(dir)
  assert.ok(orphan, 'postmaster.pid exists after SIGKILL')
  assert.ok(alive(orphan), `the postmaster ${orphan} is still running after Till was killed`)

  // docs/operate.md: the next start finds the cluster left running, stops it and starts its own.
  const second = await startTill(dir)
  const current = postmasterPid(dir)
  assert.ok(current && alive(current), 'a postmaster runs for the second start')
  assert.notEqual(current, orphan, 'the orphan is not reused')
  assert.ok(!alive(orphan), `the orphan ${orphan} still runs beside the new postmaster ${current}`)
  assert.match(second.stdout(), new RegExp(`stopping embedded PostgreSQL \\(pid ${orphan}\\) left running by an earlier Till`), second.stdout())

  const got = await api(second, 'GET', `/api/v1/sessions/${created.body.id}`, key)
  assert.equal(got.status, 200, JSON.stringify(got.body))
  assert.equal(got.body.status, 'paid')
  assert.equal(got.body.amount, 1234)
  assert.equal(got.body.record.id, recordId)
  assert.equal(got.body.record.status, 'paid')

  const exit2 = await stopTill(second)
  assert.deepEqual(exit2, { code: 0, signal: null }, second.stderr())
})

/**
 * A keep-alive checkout whose headers are sent with `Expect: 100-continue`: returns once the server
 * has taken the request in; `finish()` sends the body. The answer is parsed by Content-Length, and
 * `ended` settles when the server closes the connection.
 */
async function startSlowCheckout(till: Till, key: string, body: string) {
  const socket = net.connect(till.port, '127.0.0.1')
  socket.setEncoding('utf8')
  let received = ''
  let onData = () => {}
  socket.on('data', (d: string) => {
    received += d
    onData()
  })
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const failed = new Promise<never>((_, reject) => socket.once('error', reject))
  failed.catch(() => {})
  const until = (done: () => boolean) =>
    Promise.race([
      failed,
      ended.then(() => {
        if (!done()) throw new Error(`connection closed early; received:\n${received}`)
      }),
      new Promise<void>((resolve) => {
        onData = () => done() && resolve()
        onData()
      }),
    ])
  socket.write(
    'POST /api/v1/checkout HTTP/1.1\r\n' +
    `Host: 127.0.0.1:${till.port}\r\n` +
    `Authorization: Bearer ${key}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Expect: 100-continue\r\n\r\n',
  )
  // Node answers 100 Continue once it has parsed the headers and handed the request to Fastify.
  await until(() => received.includes('\r\n\r\n'))
  assert.match(received, /^HTTP\/1\.1 100 /, received)
  received = ''

  async function finish() {
    socket.write(body)
    let head = ''
    await until(() => {
      const at = received.indexOf('\r\n\r\n')
      if (at < 0) return false
      head = received.slice(0, at)
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1])
      return Buffer.byteLength(received.slice(at + 4)) >= length
    })
    return { head, body: received.slice(head.length + 4) }
  }
  return { finish, ended, destroy: () => socket.destroy() }
}

/** True once a new TCP connection to the port is refused: the listener is closed. */
async function waitUntilRefused(port: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1')
      s.once('connect', () => {
        s.destroy()
        resolve(false)
      })
      s.once('error', () => resolve(true))
    })
    if (refused) return
    if (Date.now() > deadline) throw new Error('the listener did not close after SIGTERM')
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('SIGTERM lets in-flight requests finish, exits 0 and stops the embedded postgres', async (t) => {
  const dir = dataDir(t)
  const till = await startTill(dir)
  const key = await demoKey(till)
  const postmaster = postmasterPid(dir)
  assert.ok(postmaster && alive(postmaster))

  // A request the server has started but whose body is not sent yet: in flight across the signal.
  const slowBody = JSON.stringify({ amount: 777, currency: 'EUR' })
  const slow = await startSlowCheckout(till, key, slowBody)

  // A burst of requests, sent just before the signal.
  const burst = Array.from({ length: 30 }, (_, i) =>
    fetch(`${till.base}/api/v1/checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 100 + i, currency: 'CNY' }),
    }).then(
      async (res) => ({ status: res.status, body: await res.text() }),
      (e: Error) => ({ status: 0, body: String((e as { cause?: unknown }).cause ?? e) }),
    ))
  till.child.kill('SIGTERM')
  const signalledAt = Date.now()
  t.after(() => slow.destroy())

  // Only once the listener is gone does the slow request send its body.
  await waitUntilRefused(till.port)
  const { head, body } = await slow.finish()
  assert.match(head, /^HTTP\/1\.1 200 /, head)
  assert.match(head, /\r\nrequest-id: req_/i, head)
  // A keep-alive connection must not hold the stopping process open until its idle timeout.
  assert.match(head, /\r\nconnection: close\r?$/im, head)
  const session = JSON.parse(body)
  assert.match(session.id, /^sess_/)
  assert.equal(session.amount, 777)
  assert.equal(session.currency, 'EUR')

  const results = await Promise.all(burst)
  const tally = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {})
  t.diagnostic(`burst during SIGTERM: ${JSON.stringify(tally)} (0 = connection refused or reset)`)
  for (const r of results) {
    // An answer is a 200; no answer is a refused or reset connection (status 0). Never a 5xx.
    assert.ok(r.status === 200 || r.status === 0, `unexpected answer during shutdown: ${r.status} ${r.body}`)
    if (r.status === 200) assert.match(JSON.parse(r.body).id, /^sess_/)
  }

  await slow.ended
  const exit = await till.closed
  assert.deepEqual(exit, { code: 0, signal: null }, till.stderr())
  const stopMs = Date.now() - signalledAt
  assert.ok(stopMs < 20_000, `took ${stopMs} ms from SIGTERM to exit`)
  const after = postmasterPid(dir)
  assert.ok(after === null || !alive(after), `postmaster ${after} still running after Till exited`)
  assert.ok(!alive(postmaster), `the postmaster ${postmaster} still runs`)
})

/** The TCP ports a process listens on, from /proc (Linux). */
function tcpListenPorts(pid: number): number[] {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1])
    } catch {}
  }
  const ports: number[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      // local_address is cols[1] (addr:PORT in hex), st is cols[3] (0A = LISTEN), inode is cols[9]
      if (cols.length > 9 && cols[3] === '0A' && inodes.has(cols[9])) ports.push(parseInt(cols[1].split(':')[1], 16))
    }
  }
  return ports
}

test('the embedded cluster is reachable only through its Unix socket in DATA_DIR', async (t) => {
  const dir = dataDir(t)
  const till = await startTill(dir)
  const runDir = path.join(dir, 'run')
  const sockets = readdirSync(runDir).filter((f) => /^\.s\.PGSQL\.\d+$/.test(f))
  assert.equal(sockets.length, 1, `sockets in ${runDir}: ${readdirSync(runDir)}`)
  const socketPort = Number(sockets[0].split('.').pop())

  const client = new pg.Client({
    host: runDir,
    port: socketPort,
    user: 'till',
    database: 'till',
    password: readFileSync(path.join(dir, 'pg-password'), 'utf8').trim(),
  })
  await client.connect()
  try {
    assert.equal((await client.query('show listen_addresses')).rows[0].listen_addresses, '')
    assert.equal((await client.query('show unix_socket_directories')).rows[0].unix_socket_directories, runDir)
    // Till's own tables live in this database.
    const merchants = await client.query(`select name from merchants`)
    assert.deepEqual(merchants.rows.map((r) => r.name), ['Demo'])
  } finally {
    await client.end()
  }

  // A wrong password is refused: the socket is not open to anyone who can reach it.
  const intruder = new pg.Client({ host: runDir, port: socketPort, user: 'till', database: 'till', password: 'wrong' })
  await assert.rejects(intruder.connect(), /password authentication failed/)

  const postmaster = postmasterPid(dir)
  assert.ok(postmaster && alive(postmaster))
  if (existsSync(`/proc/${postmaster}/fd`)) assert.deepEqual(tcpListenPorts(postmaster), [], 'the postmaster listens on TCP')

  assert.deepEqual(await stopTill(till), { code: 0, signal: null }, till.stderr())
})
