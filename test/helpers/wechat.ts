/** The WeChat Pay fake for tests: started on loopback with the test's clock, closed when the test ends. */
import { generateKeyPairSync } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import type { AttemptInput } from '../../src/providers/types.js'
import { createWechatProvider } from '../../src/providers/wechat/index.js'
import { testClock } from './app.js'
import { wechatFakeControl } from '../../src/providers/wechat/fake/client.js'
import { startWechatFake, type WechatFakeOptions } from '../../src/providers/wechat/fake/index.js'
import type { KeyPair } from '../../src/providers/wechat/fake/store.js'
import type { NotificationResult, PaymentProvider, ProviderConfig } from '../../src/providers/types.js'

/** RSA pairs made once per test file and handed out in turn: generating each takes a quarter second. */
const pool: KeyPair[] = []
let next = 0
export function pooledKeyPair(): KeyPair {
  if (pool.length < 4) pool.push(generateKeyPairSync('rsa', { modulusLength: 2048 }))
  return pool[next++ % pool.length]
}

export async function startFake(t: TestContext, opts: WechatFakeOptions = {}) {
  const fake = await startWechatFake({ newKeyPair: pooledKeyPair, ...opts })
  t.after(() => fake.close())
  return { fake, ctl: wechatFakeControl(fake.url) }
}

export interface Received {
  body: Buffer
  headers: IncomingHttpHeaders
  result: NotificationResult
}

/**
 * A notify_url that does what /hooks/wechat/{configId} does: raw bytes to the adapter, its ack back.
 * Lets the contract tests watch the adapter's verdict on each delivery without a database.
 */
export async function notificationReceiver(t: TestContext, provider: PaymentProvider, cfg: () => ProviderConfig) {
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
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/wechat/pc_test`
  return { url, received }
}

/** An adapter, a fake sharing its clock, a merchant at the fake, and a notify_url feeding the adapter. */
export async function setup(t: TestContext, opts: { mode?: 'publicKey' | 'platformCert'; timeoutMs?: number } = {}) {
  const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
  const { fake, ctl } = await startFake(t, { clock, mode: opts.mode })
  const creds = fake.addMerchant()
  const provider = createWechatProvider({ now: clock, timeoutMs: opts.timeoutMs ?? 5000 })
  t.after(() => provider.client.close())
  const cfg: ProviderConfig = { id: 'pc_test', label: 'main', credentials: { ...creds }, settings: { apiBase: fake.url } }
  const rx = await notificationReceiver(t, provider, () => cfg)
  const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => ({
    attemptId: newId('att'),
    sessionId: newId('sess'),
    amount: 9900,
    currency: 'CNY',
    description: 'Order #42',
    channel: 'native',
    notifyUrl: rx.url,
    returnUrl: 'https://shop.example.com/c/sess_1/done',
    expiresAt: new Date(clock().getTime() + 3600_000),
    options: {},
    ...over,
  })
  /** A Native order placed and paid, its notification received. */
  async function paid(over: Partial<AttemptInput> = {}) {
    const a = attempt(over)
    await provider.createAttempt(cfg, a)
    await ctl.pay({ out_trade_no: a.attemptId })
    return a
  }
  return { clock, fake, ctl, creds, provider, cfg, rx, attempt, paid }
}
