/**
 * A local Creem that speaks the real protocol (docs/providers.md#testing-offline-till-fake-creem), bound to loopback. Tests and
 * `till fake creem` start it, add an account, point a provider configuration's settings.apiBase at
 * `url`, and register Till's /hooks/creem/{configId} as the account's webhook URL (Creem's dashboard
 * step). The adapter needs nothing else changed.
 */
import { randomBytes } from 'node:crypto'
import formbody from '@fastify/formbody'
import { loopbackHost, serveFake } from '../../fake-kit/server.js'
import { registerApi } from './api.js'
import { registerControl, type AccountInput } from './control.js'
import { Notifier } from './notify.js'
import { registerPages } from './pages.js'
import { FakeStore } from './store.js'

export interface CreemFakeOptions {
  host?: string
  port?: number
  /** The fake's clock; tests share theirs so timestamps and retries follow the test. */
  clock?: () => Date
  /** Scales the webhook retry schedule (0.01 makes 30 s into 300 ms). */
  timeFactor?: number
  /** Run due jobs (retries, refund settlement) on a timer every this many ms; tests leave it off and tick. */
  autoRunMs?: number
}

/** Credentials in the shape Till's creem provider configuration takes. */
export interface AccountCredentials {
  apiKey: string
  webhookSecret: string
}

export interface CreemFake {
  url: string
  store: FakeStore
  notifier: Notifier
  /** Registers an account (generating what is not given) and returns the credentials to configure in Till. */
  addAccount(a?: AccountInput): AccountCredentials
  runDue(): Promise<number>
  close(): Promise<void>
}

const token = (n: number) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x')

export async function startCreemFake(opts: CreemFakeOptions = {}): Promise<CreemFake> {
  const host = loopbackHost(opts.host)
  const store = new FakeStore(opts.clock ?? (() => new Date()), opts.timeFactor ?? 1)
  const notifier = new Notifier(store)

  function addAccount(a: AccountInput = {}): AccountCredentials {
    const apiKey = a.apiKey ?? `creem_test_${token(18)}`
    const existing = store.accounts.get(apiKey)
    const account = existing ?? { apiKey, webhookSecret: a.webhookSecret ?? `whsec_${token(24)}`, webhookUrls: [] }
    if (a.webhookSecret) account.webhookSecret = a.webhookSecret
    if (a.webhookUrl && !account.webhookUrls.includes(a.webhookUrl)) account.webhookUrls.push(a.webhookUrl)
    store.accounts.set(apiKey, account)
    return { apiKey: account.apiKey, webhookSecret: account.webhookSecret }
  }

  const server = await serveFake({ host, port: opts.port, autoRunMs: opts.autoRunMs }, store.jobs, async (app, baseUrl) => {
    await app.register(async (api) => registerApi(api, store, notifier, baseUrl))
    await app.register(async (site) => {
      await site.register(formbody)
      registerControl(site, store, notifier, baseUrl, addAccount)
      registerPages(site, store, notifier, baseUrl)
    })
  })

  return { url: server.url, store, notifier, addAccount, runDue: () => store.jobs.runDue(), close: server.close }
}
