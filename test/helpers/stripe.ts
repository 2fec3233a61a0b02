/** The Stripe fake for tests: started on loopback with the test's clock, closed when the test ends; and an adapter wired to it. */
import type { TestContext } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { stripeFakeControl } from '../../src/providers/stripe/fake/client.js'
import { startStripeFake, type StripeFakeOptions } from '../../src/providers/stripe/fake/index.js'
import { createStripeProvider } from '../../src/providers/stripe/index.js'
import type { AttemptInput, PaymentFact, ProviderConfig } from '../../src/providers/types.js'
import { testClock } from './app.js'
import { providerHook } from './provider-hook.js'

export async function startStripe(t: TestContext, opts: StripeFakeOptions = {}) {
  const fake = await startStripeFake(opts)
  t.after(() => fake.close())
  return { fake, ctl: stripeFakeControl(fake.url) }
}

/** An adapter, a fake sharing its clock, an account at the fake whose endpoint feeds the adapter. */
export async function setup(t: TestContext, opts: { timeoutMs?: number; statementPageSize?: number } = {}) {
  const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
  const { fake, ctl } = await startStripe(t, { clock })
  const { secretKey } = fake.addAccount()
  const provider = createStripeProvider({ timeoutMs: opts.timeoutMs ?? 5000, now: clock, statementPageSize: opts.statementPageSize })
  t.after(() => provider.client.close())
  const cfg: ProviderConfig = { id: 'pc_test', label: 'main', credentials: { secretKey, webhookSecret: '' }, settings: { apiBase: fake.url } }
  const rx = await providerHook(t, provider, () => cfg, '/hooks/stripe/pc_test')
  const endpoint = await ctl.registerWebhook(rx.url, { secretKey })
  cfg.credentials.webhookSecret = endpoint.secret
  const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => {
    const sessionId = newId('sess')
    return {
      attemptId: newId('att'), sessionId, amount: 1234, currency: 'HKD', description: 'Order #42', channel: null,
      notifyUrl: 'https://till.example/hooks/stripe/pc_test', returnUrl: `https://till.example/c/${sessionId}/done`, checkoutUrl: `https://till.example/c/${sessionId}`,
      expiresAt: new Date(clock().getTime() + 3600_000), options: {}, ...over,
    }
  }
  /** A Checkout Session made and paid through the fake, its event received. */
  async function paid(over: Partial<AttemptInput> = {}, card?: string) {
    const a = attempt(over)
    const made = await provider.createAttempt(cfg, a)
    const done = await ctl.complete(made.providerRef!, card)
    const fact = rx.received.at(-1)!.result.facts[0] as PaymentFact
    return { a, made, fact, redirect: done.redirect, ref: { attemptId: a.attemptId, providerRef: fact.providerRef!, data: { ...made.data, ...fact.data } } }
  }
  return { clock, fake, ctl, secretKey, endpoint, provider, cfg, rx, attempt, paid }
}

/** When day D's (YYYY-MM-DD, UTC) balance can be read: an hour after the day ends. */
export const stripeStatementReadyAt = (day: string) => new Date(Date.parse(`${day}T01:00:00Z`) + 24 * 3600_000)
