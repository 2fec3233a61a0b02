/**
 * Alipay through Till's adapter: the fake's app credentials as a Till configuration takes them, an
 * adapter with a notify_url of its own (contract tests), and a live merchant whose alipay
 * configuration points settings.apiBase at the fake (Till end to end).
 */
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { Config } from '../../src/config.js'
import { newId } from '../../src/domain/ids.js'
import type { AppCredentials } from '../../src/providers/alipay/fake/index.js'
import type { KeyMode } from '../../src/providers/alipay/fake/store.js'
import { createAlipayProvider } from '../../src/providers/alipay/index.js'
import type { AttemptInput, ProviderConfig } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/attempts.js'
import { alipayWithApps } from './alipay.js'
import { startTestApp, testClock } from './app.js'
import { getSession, refundRecord } from './merchant-api.js'
import { providerHook } from './provider-hook.js'
import { eventsWhere } from './store-queries.js'

/** What an operator enters for an app the fake made: Till's credential names (docs/providers.md#alipay-alipay). */
export function tillCredentials(app: AppCredentials): Record<string, string> {
  return app.appCertificate
    ? { appId: app.appId, privateKey: app.privateKey, appCert: app.appCertificate, alipayCert: app.alipayCertificate!, alipayRootCert: app.alipayRootCertificate! }
    : { appId: app.appId, privateKey: app.privateKey, alipayPublicKey: app.alipayPublicKey! }
}

/** The adapter against the fake, sharing its clock, with a notify_url that feeds the adapter. */
export async function alipayAdapter(t: TestContext, o: { mode?: KeyMode } = {}) {
  const clock = testClock(new Date('2026-05-20T04:00:00.000Z'))
  const { fake, ctl, apps } = await alipayWithApps(t, { clock })
  const app = apps[o.mode ?? 'publicKey']
  const provider = createAlipayProvider({ now: clock, timeoutMs: 5000 })
  t.after(() => provider.client.close())
  const cfg: ProviderConfig = { id: 'pc_test', label: 'main', credentials: tillCredentials(app), settings: { apiBase: fake.url } }
  const rx = await providerHook(t, provider, () => cfg, '/hooks/alipay/pc_test')
  const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => ({
    attemptId: newId('att'), sessionId: newId('sess'), amount: 8888, currency: 'CNY', description: 'Blue mug', channel: 'precreate',
    notifyUrl: rx.url, returnUrl: 'https://shop.example.com/c/sess_1/done', checkoutUrl: 'https://shop.example.com/c/sess_1', expiresAt: new Date(clock().getTime() + 3600_000), options: {}, ...over,
  })
  /** A QR order placed and paid, its notification received. */
  async function paid(over: Partial<AttemptInput> = {}) {
    const a = attempt(over)
    await provider.createAttempt(cfg, a)
    await ctl.pay({ out_trade_no: a.attemptId, app_id: app.appId })
    return a
  }
  return { clock, fake, ctl, apps, app, provider, cfg, rx, attempt, paid }
}

/** A live merchant with an alipay configuration at the fake (public-key mode unless told). */
export async function alipayTill(t: TestContext, o: { mode?: KeyMode; settings?: Record<string, unknown>; config?: Partial<Config>; at?: Date } = {}) {
  const ta = await startTestApp(t, o.config)
  // A configuration made at `at`: reconciliation's daily job looks from its day.
  if (o.at) ta.clock.set(o.at)
  const { fake, ctl, apps } = await alipayWithApps(t, { clock: ta.clock })
  const app = apps[o.mode ?? 'publicKey']
  const addConfig = async (label: string, credentials: object, settings: Record<string, unknown> = {}) => {
    const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'alipay', label, credentials, settings: { apiBase: fake.url, ...o.settings, ...settings } })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.id as string
  }
  const configId = await addConfig('main', tillCredentials(app))
  const session = async (extra: Record<string, unknown> = {}) => {
    const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: { amount: 8888, currency: 'CNY', description: 'Blue mug', providerHints: { alipay: 'main' }, ...extra } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.id as string
  }
  const start = (sessionId: string, channel = 'precreate', cfg = configId) => startAttempt(ta.deps, sessionId, { provider: 'alipay', providerConfigId: cfg, channel })
  const read = async (id: string) => (await getSession(ta, id, ta.merchant.liveKey)).body
  const refund = (recordId: string, amount?: number) => refundRecord(ta, recordId, amount, ta.merchant.liveKey)
  const attemptStatus = async (id: string) => (await ta.database.pool.query('select status from attempts where id = $1', [id])).rows[0].status as string
  const types = async (field: 'sessionId' | 'refundId' | 'recordId', id: string) => (await eventsWhere(ta, field, id)).map((e) => e.type)
  /** A session paid by QR, its notification delivered. */
  const paid = async (extra: Record<string, unknown> = {}) => {
    const id = await session(extra)
    const { attempt } = await start(id)
    await ctl.pay({ out_trade_no: attempt.id, app_id: app.appId })
    const s = await read(id)
    assert.equal(s.status, 'paid', JSON.stringify(s))
    return { id, attemptId: attempt.id, recordId: s.record.id as string }
  }
  return { ta, fake, ctl, apps, app, configId, addConfig, session, start, read, refund, attemptStatus, types, paid }
}

export type AlipayTill = Awaited<ReturnType<typeof alipayTill>>
