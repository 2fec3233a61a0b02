/**
 * A provider's notification URL that does what Till's /hooks/{provider}/{configId} does: raw bytes
 * to the adapter, its ack back. Lets the contract tests watch the adapter's verdict on each
 * delivery from a fake without a database.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'
import type { NotificationResult, PaymentProvider, ProviderConfig } from '../../src/providers/types.js'

export interface Received {
  body: Buffer
  headers: IncomingHttpHeaders
  result: NotificationResult
}

/** `path` is what the URL ends with, e.g. /hooks/creem/pc_test. */
export async function providerHook(t: TestContext, provider: PaymentProvider, cfg: () => ProviderConfig, path: string) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      const result = await provider.parseNotification(cfg(), { body, headers: req.headers })
      received.push({ body, headers: req.headers, result })
      // As Fastify sends it: a string as it is (Alipay's `success`), anything else as JSON.
      const { body: ack, headers } = result.ack
      const text = ack === undefined ? undefined : typeof ack === 'string' ? ack : JSON.stringify(ack)
      res.writeHead(result.ack.status, { ...(ack === undefined ? {} : { 'content-type': typeof ack === 'string' ? 'text/plain; charset=utf-8' : 'application/json' }), ...headers })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, received }
}
