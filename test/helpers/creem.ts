/** The Creem fake for tests: started on loopback with the test's clock, closed when the test ends. */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { createCreemProvider } from '../../src/providers/creem/index.js'
import { creemFakeControl } from '../../src/providers/creem/fake/client.js'
import { startCreemFake, type CreemFakeOptions } from '../../src/providers/creem/fake/index.js'
import { memoryProductStore } from '../../src/providers/creem/products.js'
import type { AttemptInput, NotificationResult, PaymentProvider, ProviderConfig } from '../../src/providers/types.js'
import { testClock } from './app.js'

export async function startCreem(t: TestContext, opts: CreemFakeOptions = {}) {
  const fake = await startCreemFake(opts)
  t.after(() => fake.close())
  return { fake, ctl: creemFakeControl(fake.url) }
}

export interface Received {
  body: Buffer
  headers: IncomingHttpHeaders
  result: NotificationResult
}

/** A webhook URL that does what /hooks/creem/{configId} does: raw bytes to the adapter, its ack back. */
export async function webhookReceiver(t: TestContext, provider: PaymentProvider, cfg: () => ProviderConfig) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      const result = await provider.parseNotification(cfg(), { body, headers: req.headers })
      received.push({ body, headers: req.headers, result })
      res.writeHead(result.ack.status, result.ack.body === undefined ? {} : { 'content-type': 'application/json' })
      res.end(result.ack.body === undefined ? undefined : JSON.stringify(result.ack.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/creem/pc_test`, received }
}

/** An adapter, a fake sharing its clock, an account at the fake whose webhooks feed the adapter. */
export async function setup(t: TestContext, opts: { timeoutMs?: number } = {}) {
  const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
  const { fake, ctl } = await startCreem(t, { clock })
  const creds = fake.addAccount()
  const products = memoryProductStore()
  const provider = createCreemProvider({ products, timeoutMs: opts.timeoutMs ?? 5000 })
  t.after(() => provider.client.close())
  const cfg: ProviderConfig = { id: 'pc_test', label: 'main', credentials: { ...creds }, settings: { apiBase: fake.url } }
  const rx = await webhookReceiver(t, provider, () => cfg)
  fake.addAccount({ apiKey: creds.apiKey, webhookUrl: rx.url })
  const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => {
    const sessionId = newId('sess')
    return {
      attemptId: newId('att'), sessionId, amount: 1234, currency: 'EUR', description: 'Order #42', channel: null,
      notifyUrl: 'https://till.example/hooks/creem/pc_test', returnUrl: `https://till.example/c/${sessionId}/done`,
      expiresAt: new Date(clock().getTime() + 3600_000), options: {}, ...over,
    }
  }
  /** A checkout made and paid through the fake, its webhook received. */
  async function paid(over: Partial<AttemptInput> = {}) {
    const a = attempt(over)
    const made = await provider.createAttempt(cfg, a)
    const done = await ctl.complete(made.providerRef!)
    const fact = rx.received.at(-1)!.result.facts[0] as { data: Record<string, unknown>; providerRef: string }
    return { a, made, redirect: done.redirect!, ref: { attemptId: a.attemptId, providerRef: fact.providerRef, data: { ...made.data, ...fact.data } } }
  }
  return { clock, fake, ctl, creds, provider, products, cfg, rx, attempt, paid }
}
