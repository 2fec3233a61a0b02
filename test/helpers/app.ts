/**
 * The real app on a fresh database, listening on a loopback port, driven with fetch: every test
 * goes through HTTP exactly as a merchant's server would. Closed when the test ends.
 */
import { randomBytes } from 'node:crypto'
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import { createLogger } from '../../src/logging.js'
import { buildApp } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import { createDeps } from '../../src/deps.js'
import type { Deps } from '../../src/services/deps.js'
import { createMerchant } from '../../src/services/merchants.js'
import { openPool, type Database } from '../../src/store/db.js'
import { freshDatabase, openTestPool } from './db.js'
import { guardDocumentedErrors } from './documented-errors.js'

export const ADMIN_TOKEN = 'test-admin-token'

/** A clock tests move by hand, so expiry and retries are driven without sleeping. */
export function testClock(start = new Date()) {
  let now = start.getTime()
  const clock = () => new Date(now)
  clock.advance = (ms: number) => {
    now += ms
  }
  clock.set = (d: Date) => {
    now = d.getTime()
  }
  return clock
}

export type TestClock = ReturnType<typeof testClock>

export interface Api {
  status: number
  body: any
  /** The body as sent, byte for byte (replays must repeat it exactly). */
  text: string
  headers: Headers
}

export interface TestApp {
  app: FastifyInstance
  deps: Deps
  database: Database
  databaseUrl: string
  baseUrl: string
  clock: TestClock
  /** A merchant made through the admin API, with one key per mode. */
  merchant: { id: string; testKey: string; liveKey: string }
  request(method: string, path: string, opts?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Api>
  admin(method: string, path: string, body?: unknown): Promise<Api>
  newMerchant(name?: string): Promise<{ id: string; testKey: string; liveKey: string }>
}

const silent = { info() {}, warn() {}, error() {} }

export interface TestAppOptions {
  /** The pool's connection settings, from the test database's URL (a proxy in front of it: helpers/pg-proxy.ts). */
  connect?: (url: string) => pg.PoolConfig
  /** Every line the app logs (pino's JSON), requests' and the service's alike. */
  log?: (line: string) => void
  /** The pool's query bound (QUERY_TIMEOUT_MS unless given): a test of a slow database makes it short. */
  queryTimeoutMs?: number
}

export async function startTestApp(t: TestContext, overrides: Partial<Config> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await freshDatabase()
  const database = opts.connect ? openPool(opts.connect(db.url), 10, { queryTimeoutMs: opts.queryTimeoutMs }) : openTestPool(db.url, 10, opts.queryTimeoutMs)
  const clock = testClock()
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    adminToken: ADMIN_TOKEN,
    rateLimitPerSecond: 10_000,
    jobsEnabled: false,
    // The provider fakes listen on loopback over http: PROVIDER_ALLOW_PRIVATE=1.
    providerAllowPrivate: true,
    // The tests' webhook receivers listen on loopback: WEBHOOK_ALLOW_PRIVATE=1 (not left to the default).
    webhookAllowPrivate: true,
    ...overrides,
  }
  // The process's own logger (its redaction and error serializer), writing JSON lines to the test.
  const logger = opts.log ? createLogger('info', 'json', { write: opts.log } as unknown as NodeJS.WritableStream) : undefined
  const deps = createDeps(config, database.db, randomBytes(32), logger ?? silent, clock)
  const app = await buildApp(deps, logger ? { loggerInstance: logger } : {})
  guardDocumentedErrors(t, app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  // Pages and notifications must point at this very server.
  config.baseUrl = overrides.baseUrl ?? address
  t.after(async () => {
    await app.close()
    await database.close()
    await db.drop()
  })

  async function request(method: string, path: string, opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Api> {
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.key) headers.authorization = `Bearer ${opts.key}`
    let body: string | undefined
    if (opts.raw !== undefined) body = opts.raw
    else if (opts.body !== undefined) body = JSON.stringify(opts.body)
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
    const res = await fetch(address + path, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {}
    return { status: res.status, body: parsed, text, headers: res.headers }
  }

  const admin = (method: string, path: string, body?: unknown) => request(method, `/admin/v1${path}`, { key: ADMIN_TOKEN, body })

  async function newMerchant(name = 'Acme') {
    // Without ADMIN_TOKEN there is no admin API: the service makes the merchant directly.
    if (!config.adminToken) {
      const m = await createMerchant(deps, { name })
      return { id: m.id, testKey: m.keys.test, liveKey: m.keys.live }
    }
    const res = await admin('POST', '/merchants', { name })
    if (res.status !== 201) throw new Error(`merchant not created: ${res.status} ${JSON.stringify(res.body)}`)
    return { id: res.body.id, testKey: res.body.keys.test, liveKey: res.body.keys.live }
  }

  const merchant = await newMerchant()
  return { app, deps, database, databaseUrl: db.url, baseUrl: address, clock, merchant, request, admin, newMerchant }
}

/** Creates a test-mode session and pays it with the test helper; returns the paid session. */
export async function paidSession(ta: TestApp, body: Record<string, unknown> = { amount: 1000, currency: 'CNY' }, refundBehavior?: string) {
  const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body })
  if (created.status !== 200) throw new Error(`checkout failed: ${JSON.stringify(created.body)}`)
  const paid = await ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, {
    key: ta.merchant.testKey,
    body: refundBehavior ? { refundBehavior } : {},
  })
  if (paid.status !== 200) throw new Error(`pay failed: ${JSON.stringify(paid.body)}`)
  return paid.body
}

/** A second service instance on the test app's database: its own pool, clock and app, the same secrets key. */
export async function secondInstance(t: TestContext, ta: TestApp): Promise<Deps> {
  const pool = openTestPool(ta.databaseUrl, 10)
  const second: Deps = { ...ta.deps, db: pool.db, clock: testClock(ta.clock()) }
  const app2 = await buildApp(second)
  t.after(async () => {
    await app2.close()
    await pool.close()
  })
  return second
}
