/** A loopback HTTP server that keeps every request it gets, raw body and headers, and answers 200. */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  headers: IncomingHttpHeaders
  body: Buffer
}

export async function startReceiver() {
  const received: Received[] = []
  const waiters: Array<() => void> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) })
      res.writeHead(200).end()
      for (const wake of waiters.splice(0)) wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    /** The first request that `match` accepts, waiting for it to arrive (up to timeoutMs). */
    async next(match: (r: Received) => boolean, timeoutMs = 30_000): Promise<Received> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = received.find(match)
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no matching request within ${timeoutMs} ms (${received.length} received)`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, deadline - Date.now())
        })
      }
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
