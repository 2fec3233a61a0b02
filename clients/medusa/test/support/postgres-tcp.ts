/**
 * Medusa's test runner reaches PostgreSQL by host and TCP port (DB_HOST, DB_PORT); the project's
 * test PostgreSQL (scripts/test-db.ts) listens only on a Unix socket. This forwards a loopback port
 * to that socket, byte for byte.
 */
import net from 'node:net'

export interface Forward {
  port: number
  user: string
  password: string
  close(): Promise<void>
}

export async function forwardPostgres(adminUrl: string): Promise<Forward> {
  const url = new URL(adminUrl)
  const host = url.searchParams.get('host') ?? url.hostname
  const port = url.searchParams.get('port') ?? (url.port || '5432')
  const target: net.NetConnectOpts = host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port: Number(port) }
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(target)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => { client.destroy(); upstream.destroy() })
      s.on('close', () => { sockets.delete(s); client.destroy(); upstream.destroy() })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    }),
  }
}
