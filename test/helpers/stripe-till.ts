/** A live merchant whose stripe configuration points settings.apiBase at the fake, with Till's endpoint added at the fake and its secret configured. */
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { Config } from '../../src/config.js'
import { startAttempt } from '../../src/services/attempts.js'
import { startTestApp } from './app.js'
import { getSession, refundRecord } from './merchant-api.js'
import { eventsWhere } from './store-queries.js'
import { startStripe } from './stripe.js'

export async function stripeTill(t: TestContext, overrides: Partial<Config> = {}, o: { at?: Date } = {}) {
  const ta = await startTestApp(t, overrides)
  // `at`: the clock set before the configuration is made (the reconciliation job starts from its day).
  if (o.at) ta.clock.set(o.at)
  const { fake, ctl } = await startStripe(t, { clock: ta.clock })
  const { secretKey } = fake.addAccount()
  // The Dashboard's order: the configuration first (its id names the endpoint), then the endpoint, whose secret goes into the configuration.
  const made = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'stripe', label: 'cards', credentials: { secretKey, webhookSecret: 'whsec_placeholder' }, settings: { apiBase: fake.url } })
  assert.equal(made.status, 201, JSON.stringify(made.body))
  const configId = made.body.id as string
  const hookUrl = `${ta.baseUrl}/hooks/stripe/${configId}`
  const endpoint = await ctl.registerWebhook(hookUrl, { secretKey })
  const patched = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${configId}`, { credentials: { secretKey, webhookSecret: endpoint.secret } })
  assert.equal(patched.status, 200, JSON.stringify(patched.body))
  const live = { key: ta.merchant.liveKey }
  const session = async (extra: Record<string, unknown> = {}) => {
    const res = await ta.request('POST', '/api/v1/checkout', { ...live, body: { amount: 1234, currency: 'HKD', description: 'Blue mug', providerHints: { stripe: 'cards' }, ...extra } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.id as string
  }
  const start = (sessionId: string) => startAttempt(ta.deps, sessionId, { provider: 'stripe', providerConfigId: configId, channel: null })
  const read = async (id: string) => (await getSession(ta, id, ta.merchant.liveKey)).body
  const refund = (recordId: string, amount?: number) => refundRecord(ta, recordId, amount, ta.merchant.liveKey)
  const query = async (sql: string, args: unknown[]) => (await ta.database.pool.query(sql, args)).rows
  /** A session paid on Stripe's page, its checkout.session.completed delivered. */
  const paid = async (extra: Record<string, unknown> = {}) => {
    const id = await session(extra)
    const { attempt } = await start(id)
    const done = await ctl.complete(attempt.providerRef!)
    const s = await read(id)
    assert.equal(s.status, 'paid')
    return { id, attemptId: attempt.id, checkoutSessionId: attempt.providerRef!, paymentIntent: done.session.payment_intent.id as string, recordId: s.record.id as string }
  }
  const types = async (field: 'sessionId' | 'refundId' | 'recordId', id: string) => (await eventsWhere(ta, field, id)).map((e) => e.type)
  return { ta, fake, ctl, secretKey, configId, hookUrl, endpoint, session, start, read, refund, query, paid, types }
}
