/**
 * A local Stripe that speaks the real protocol for what Till uses (docs/providers.md#testing-offline-till-fake-stripe),
 * bound to loopback. Tests and `till fake stripe` start it, add an account, point a provider
 * configuration's settings.apiBase at `url`, and add Till's /hooks/stripe/{configId} as the
 * account's webhook endpoint (the Dashboard's step), whose signing secret goes into the configuration.
 */
import { randomBytes } from 'node:crypto'
import formbody from '@fastify/formbody'
import { loopbackHost, serveFake } from '../../fake-kit/server.js'
import { registerApi } from './api.js'
import { registerControl, type AccountInput } from './control.js'
import { Notifier } from './notify.js'
import { registerPages } from './pages.js'
import { FakeStore } from './store.js'

export interface StripeFakeOptions {
  host?: string
  port?: number
  clock?: () => Date
  /** Scales the webhook retry schedule (0.001 makes 1 min into 60 ms). */
  timeFactor?: number
  /** Run due jobs (retries, refund settlement) on a timer every this many ms; tests leave it off and tick. */
  autoRunMs?: number
}

export interface StripeFake {
  url: string
  store: FakeStore
  notifier: Notifier
  /** Registers an account (a key made up when not given) and returns its secret key. */
  addAccount(a?: AccountInput): { secretKey: string }
  runDue(): Promise<number>
  close(): Promise<void>
}

export async function startStripeFake(opts: StripeFakeOptions = {}): Promise<StripeFake> {
  const host = loopbackHost(opts.host)
  const store = new FakeStore(opts.clock ?? (() => new Date()), opts.timeFactor ?? 1)
  const notifier = new Notifier(store)

  function addAccount(a: AccountInput = {}) {
    const secretKey = a.secretKey ?? `sk_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`
    if (!store.accounts.has(secretKey)) store.accounts.set(secretKey, { secretKey, endpoints: [] })
    return { secretKey }
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
