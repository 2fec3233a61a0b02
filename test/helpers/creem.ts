/** The Creem fake for tests: started on loopback with the test's clock, closed when the test ends. */
import type { TestContext } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { createCreemProvider } from '../../src/providers/creem/index.js'
import { creemFakeControl } from '../../src/providers/creem/fake/client.js'
import { startCreemFake, type CreemFakeOptions } from '../../src/providers/creem/fake/index.js'
import { memoryProductStore } from '../../src/providers/creem/products.js'
import type { AttemptInput, ProviderConfig } from '../../src/providers/types.js'
import { testClock } from './app.js'
import { providerHook } from './provider-hook.js'

export async function startCreem(t: TestContext, opts: CreemFakeOptions = {}) {
  const fake = await startCreemFake(opts)
  t.after(() => fake.close())
  return { fake, ctl: creemFakeControl(fake.url) }
}

/** An adapter, a fake sharing its clock, an account at the fake whose webhooks feed the adapter. */
export async function setup(t: TestContext, opts: { statementPageSize?: number } = {}) {
  const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
  const { fake, ctl } = await startCreem(t, { clock })
  const creds = fake.addAccount()
  const products = memoryProductStore()
  const provider = createCreemProvider({ products, timeoutMs: 5000, now: clock, statementPageSize: opts.statementPageSize })
  t.after(() => provider.client.close())
  const cfg: ProviderConfig = { id: 'pc_test', label: 'main', credentials: { ...creds }, settings: { apiBase: fake.url } }
  const rx = await providerHook(t, provider, () => cfg, '/hooks/creem/pc_test')
  fake.addAccount({ apiKey: creds.apiKey, webhookUrl: rx.url })
  const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => {
    const sessionId = newId('sess')
    return {
      attemptId: newId('att'), sessionId, amount: 1234, currency: 'EUR', description: 'Order #42', channel: null,
      notifyUrl: 'https://till.example/hooks/creem/pc_test', returnUrl: `https://till.example/c/${sessionId}/done`, checkoutUrl: `https://till.example/c/${sessionId}`,
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

/** When day D's (YYYY-MM-DD, UTC) Creem statement can be read: an hour after the day ends. */
export const creemStatementReadyAt = (day: string) => new Date(Date.parse(`${day}T01:00:00Z`) + 24 * 3600_000)
