/**
 * A TCP proxy in front of the test PostgreSQL (which listens on a Unix socket only), for faults a
 * real network shows: `freeze()` stops forwarding while every connection stays open (a server
 * stopped with SIGSTOP, or a partition that drops packets without a reset), `thaw()` forwards again
 * what was held, `stop()` resets every connection and refuses new ones (a server that died) until
 * `start()`. It records each connection, so a test can see when Till itself gave up on one.
 */
import net from 'node:net'
import path from 'node:path'
import type { TestContext } from 'node:test'
import type pg from 'pg'
import { poolConfig } from './db.js'

export interface ProxiedConnection {
  openedAt: number
  /** When the client (Till) side closed: null while open. */
  closedAt: number | null
}

interface TcpProxy {
  port: number
  connections: ProxiedConnection[]
  /** Connections reset at once while stopped. */
  refused(): number
  /** Connections whose client side is still open. */
  open(): number
  freeze(): void
  thaw(): void
  stop(): void
  start(): void
  /**
   * The next time Till sends `marker` (a COMMIT, a prepared statement's name), the server gets it and
   * Till's connection is reset before the answer comes back: a commit whose outcome Till cannot know.
   */
  cutAfter(marker: string): void
  close(): Promise<void>
}

export interface PgProxy extends TcpProxy {
  /** The pool settings for a database URL of the test cluster, through this proxy. */
  config(url: string): pg.PoolConfig
}

/** Where PostgreSQL listens for a URL of the test cluster: its Unix socket, or host and port. */
function upstreamOf(url: string): net.NetConnectOpts {
  const c = poolConfig(url)
  return String(c.host).startsWith('/') ? { path: path.join(String(c.host), `.s.PGSQL.${c.port}`) } : { host: c.host, port: c.port ?? 5432 }
}

export async function startPgProxy(t: TestContext, url: string): Promise<PgProxy> {
  const proxy = await startTcpProxy(upstreamOf(url))
  t.after(() => proxy.close())
  return { ...proxy, config: (dbUrl) => ({ ...poolConfig(dbUrl), host: '127.0.0.1', port: proxy.port }) }
}

/** The proxy itself, on a free loopback port. */
async function startTcpProxy(upstream: net.NetConnectOpts): Promise<TcpProxy> {
  let frozen = false
  let stopped = false
  let refused = 0
  let cutMarker: Buffer | null = null
  const held: Array<() => void> = []
  const sockets = new Set<net.Socket>()
  const connections: ProxiedConnection[] = []
  const relay = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk) => {
      const send = () => to.destroyed || to.write(chunk)
      if (frozen) held.push(send)
      else send()
    })
  }
  const server = net.createServer((client) => {
    if (stopped) {
      refused++
      return client.resetAndDestroy()
    }
    const record: ProxiedConnection = { openedAt: Date.now(), closedAt: null }
    connections.push(record)
    const server = net.connect(upstream)
    for (const s of [client, server]) {
      sockets.add(s)
      s.on('error', () => {})
    }
    client.on('data', (chunk) => {
      if (!cutMarker || !chunk.includes(cutMarker)) return
      cutMarker = null
      // The server's answer is dropped with the reset (the relay below still forwards this chunk).
      setImmediate(() => client.resetAndDestroy())
    })
    relay(client, server)
    relay(server, client)
    client.on('close', () => {
      record.closedAt = Date.now()
      sockets.delete(client)
      // Ended, not destroyed: what Till sent last (a COMMIT) still reaches the server.
      server.end()
    })
    server.on('close', () => {
      sockets.delete(server)
      // A server gone while frozen stays unseen by the client, as with a real partition. Ended, not
      // destroyed: what it sent last (a standby's final WAL at a switchover) still arrives.
      if (!frozen) client.end()
    })
  })
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject))
  return {
    port: (server.address() as net.AddressInfo).port,
    connections,
    refused: () => refused,
    open: () => connections.filter((c) => c.closedAt === null).length,
    freeze() {
      frozen = true
    },
    thaw() {
      frozen = false
      for (const send of held.splice(0)) send()
    },
    stop() {
      stopped = true
      held.length = 0
      // Till's side is reset, as by a server that died (the upstream may be a Unix socket: no reset there).
      for (const s of sockets) s.remoteAddress ? s.resetAndDestroy() : s.destroy()
    },
    start() {
      stopped = false
    },
    cutAfter(marker) {
      cutMarker = Buffer.from(marker)
    },
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
