/** A live merchant whose creem configuration points settings.apiBase at the fake, with the fake's webhooks registered for it. */
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { Config } from '../../src/config.js'
import { startAttempt } from '../../src/services/attempts.js'
import { startTestApp } from './app.js'
import { startCreem } from './creem.js'
import { getSession, refundRecord } from './merchant-api.js'
import { eventsWhere } from './store-queries.js'

export async function creemTill(t: TestContext, overrides: Partial<Config> = {}, o: { at?: Date } = {}) {
  const ta = await startTestApp(t, overrides)
  // `at`: the clock set before the configuration is made (the reconciliation job starts from its day).
  if (o.at) ta.clock.set(o.at)
  const { fake, ctl } = await startCreem(t, { clock: ta.clock })
  const creds = fake.addAccount()
  const addConfig = async (label: string, credentials: object, extra: object = {}) => {
    const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label, credentials, settings: { apiBase: fake.url }, ...extra })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.id as string
  }
  const configId = await addConfig('main', creds)
  // Creem's dashboard step: Developers → Webhooks → {BASE_URL}/hooks/creem/{configId}.
  const hookUrl = (id: string) => `${ta.baseUrl}/hooks/creem/${id}`
  await ctl.registerWebhook(hookUrl(configId), creds.apiKey)
  const live = { key: ta.merchant.liveKey }
  const session = async (extra: Record<string, unknown> = {}) => {
    const res = await ta.request('POST', '/api/v1/checkout', { ...live, body: { amount: 1234, currency: 'EUR', description: 'Blue mug', providerHints: { creem: 'main' }, ...extra } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.id as string
  }
  const start = (sessionId: string, cfg = configId) => startAttempt(ta.deps, sessionId, { provider: 'creem', providerConfigId: cfg, channel: null })
  const read = async (id: string) => (await getSession(ta, id, ta.merchant.liveKey)).body
  const refund = (recordId: string, amount?: number) => refundRecord(ta, recordId, amount, ta.merchant.liveKey)
  const query = async (sql: string, args: unknown[]) => (await ta.database.pool.query(sql, args)).rows
  /** A session paid on Creem's page, its checkout.completed delivered. */
  const paid = async () => {
    const id = await session()
    const { attempt } = await start(id)
    await ctl.complete(attempt.providerRef!)
    const s = await read(id)
    assert.equal(s.status, 'paid')
    return { id, attemptId: attempt.id, checkoutId: attempt.providerRef!, recordId: s.record.id as string }
  }
  const types = async (field: 'sessionId' | 'refundId' | 'recordId', id: string) => (await eventsWhere(ta, field, id)).map((e) => e.type)
  return { ta, fake, ctl, creds, configId, addConfig, hookUrl, session, start, read, refund, query, paid, types }
}

export type CreemTill = Awaited<ReturnType<typeof creemTill>>
