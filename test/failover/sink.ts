/** The merchant's webhook endpoint for the failover stage: keeps the id of every event delivered, answers 200. */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface WebhookSink {
  url: string
  received: Set<string>
  /** Every delivery in the order it came (an event delivered twice is here twice), with performance.now(). */
  deliveries: { id: string; at: number }[]
  close(): Promise<void>
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const received = new Set<string>()
  const deliveries: { id: string; at: number }[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      try {
        const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).id
        received.add(id)
        deliveries.push({ id, at: performance.now() })
      } catch {}
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    deliveries,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
