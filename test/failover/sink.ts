/** The merchant's webhook endpoint for the failover stage: keeps the id of every event delivered, answers 200. */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface WebhookSink {
  url: string
  received: Set<string>
  close(): Promise<void>
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const received = new Set<string>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      try {
        received.add(JSON.parse(Buffer.concat(chunks).toString('utf8')).id)
      } catch {}
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
