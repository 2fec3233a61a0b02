/**
 * Live mode and providerHints (docs/integrate.md#providerhints-choosing-a-provider-configuration-live-mode, docs/architecture.md#the-state-machines, docs/providers.md): which provider configuration a live
 * session binds to, the exact hint errors, and "no provider available" when nothing is usable.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { errorBody } from '../helpers/errors.js'

const WECHAT = wechatCredentials()
const CREEM = creemCredentials()

async function addConfig(ta: TestApp, body: Record<string, unknown>, merchantId = ta.merchant.id) {
  const credentials = body.provider === 'wechat' ? WECHAT : CREEM
  const res = await ta.admin('POST', `/merchants/${merchantId}/provider_configs`, { credentials, ...body })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as { id: string; provider: string; label: string; enabled: boolean; isDefault: boolean }
}

const countSessions = async (ta: TestApp): Promise<number> =>
  (await ta.database.pool.query('select count(*)::int as n from sessions')).rows[0].n

const boundConfig = async (ta: TestApp, sessionId: string): Promise<string | null> =>
  (await ta.database.pool.query('select provider_config_id from sessions where id = $1', [sessionId])).rows[0].provider_config_id

const live = (ta: TestApp, body: Record<string, unknown>) => ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body })

async function liveRefused(ta: TestApp, body: Record<string, unknown>, error: string) {
  const before = await countSessions(ta)
  const res = await live(ta, body)
  assert.equal(res.status, 400, JSON.stringify(res.body))
  assert.deepEqual(res.body, errorBody(error))
  assert.equal(await countSessions(ta), before, 'a refused request must not create a session')
}

test('a hint naming a provider that does not exist is refused', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { paypal: 'main' } }, 'unknown provider in hints: paypal')
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { WeChat: 'main' } }, 'unknown provider in hints: WeChat')
  // The mock provider is for test mode only.
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { mock: 'main' } }, 'unknown provider in hints: mock')
})

test('a hint naming a label that was never configured is refused as invalid_label', async (t) => {
  const ta = await startTestApp(t)
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'nope' } }, 'provider wechat/nope not available: invalid_label')
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'nope' } }, 'provider wechat/nope not available: invalid_label')
  // Labels belong to a provider: a creem label is not a wechat label.
  await addConfig(ta, { provider: 'creem', label: 'eu' })
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'eu' } }, 'provider wechat/eu not available: invalid_label')
})

test('another merchant\'s configuration label is not available to this merchant', async (t) => {
  const ta = await startTestApp(t)
  const other = await ta.newMerchant('Other')
  await addConfig(ta, { provider: 'wechat', label: 'shared' }, other.id)
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'shared' } }, 'provider wechat/shared not available: invalid_label')
})

test('a hint naming a disabled configuration is refused as config_disabled', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'off', enabled: false })
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'off' } }, 'provider wechat/off not available: config_disabled')
})

test('disabling a configuration through the admin API makes its hint config_disabled, and enabling it again restores it', async (t) => {
  const ta = await startTestApp(t)
  const config = await addConfig(ta, { provider: 'wechat', label: 'off' })
  const first = await live(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'off' } })
  assert.equal(first.status, 200, JSON.stringify(first.body))

  const off = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${config.id}`, { enabled: false })
  assert.equal(off.status, 200)
  assert.equal(off.body.enabled, false)
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'off' } }, 'provider wechat/off not available: config_disabled')

  const on = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${config.id}`, { enabled: true })
  assert.equal(on.status, 200)
  const again = await live(ta, { amount: 100, currency: 'CNY', providerHints: { wechat: 'off' } })
  assert.equal(again.status, 200, JSON.stringify(again.body))
})

test('only the first hint is used', async (t) => {
  const ta = await startTestApp(t)
  const creem = await addConfig(ta, { provider: 'creem', label: 'eu' })
  await addConfig(ta, { provider: 'wechat', label: 'main' })

  const res = await live(ta, { amount: 1999, currency: 'EUR', providerHints: { creem: 'eu', wechat: 'nope' } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.equal(res.body.mode, 'live')
  assert.deepEqual(Object.keys(res.body).sort(), ['amount', 'createdAt', 'currency', 'description', 'expiresAt', 'customerEmail', 'id', 'locale', 'metadata', 'mode', 'status', 'url'].sort())
  const read = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.liveKey })
  assert.equal(read.status, 200)
  assert.equal(read.body.chosenProvider, 'creem')
  assert.equal(await boundConfig(ta, res.body.id), creem.id)

  // The same hints in the other order: the bad first hint decides.
  await liveRefused(ta, { amount: 1999, currency: 'EUR', providerHints: { wechat: 'nope', creem: 'eu' } }, 'provider wechat/nope not available: invalid_label')
})

test('a hinted live session is bound to that configuration and reads back with its provider', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  const cn = await addConfig(ta, { provider: 'wechat', label: 'cn-2', isDefault: false })

  const res = await live(ta, { amount: 9900, currency: 'CNY', providerHints: { wechat: 'cn-2' } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.equal(res.body.status, 'pending')
  assert.equal(res.body.mode, 'live')
  assert.equal(res.body.url, `${ta.baseUrl}/c/${res.body.id}`)

  const read = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.liveKey })
  assert.equal(read.status, 200)
  assert.equal(read.body.chosenProvider, 'wechat')
  assert.equal(read.body.mode, 'live')
  assert.equal(await boundConfig(ta, res.body.id), cn.id, 'bound to the hinted configuration, not the default')

  // Live sessions are invisible to the test key.
  const asTest = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.testKey })
  assert.equal(asTest.status, 404)
  assert.deepEqual(asTest.body, { error: 'Not found', code: 'not_found' })
})

test('an unhinted live session has chosenProvider null until the customer picks', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  const res = await live(ta, { amount: 9900, currency: 'CNY' })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  const read = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.liveKey })
  assert.equal(read.status, 200)
  assert.equal(read.body.chosenProvider, null)
  assert.equal(Object.hasOwn(read.body, 'chosenProvider'), true)
  assert.equal(await boundConfig(ta, res.body.id), null)
})

test('live mode with no provider for the currency is refused', async (t) => {
  const ta = await startTestApp(t)
  // The error names what would take the session.
  await liveRefused(ta, { amount: 1500, currency: 'JPY' }, 'no provider available for JPY in live mode: add an enabled configuration of stripe or wechat that lists JPY')
  await liveRefused(ta, { amount: 100, currency: 'CNY' }, 'no provider available for CNY in live mode: add an enabled configuration of alipay or stripe or wechat that lists CNY')
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  await addConfig(ta, { provider: 'creem', label: 'eu' })
  // wechat (mainland) takes CNY, creem EUR and USD: nobody takes JPY or HKD.
  await liveRefused(ta, { amount: 1500, currency: 'JPY' }, 'no provider available for JPY in live mode: add an enabled configuration of stripe or wechat that lists JPY')
  await liveRefused(ta, { amount: 1500, currency: 'HKD' }, 'no provider available for HKD in live mode: add an enabled configuration of stripe or wechat that lists HKD')
  for (const currency of ['CNY', 'EUR', 'USD']) {
    const res = await live(ta, { amount: 100, currency })
    assert.equal(res.status, 200, `${currency}: ${JSON.stringify(res.body)}`)
  }
  // A hinted provider that does not take the currency is not usable either.
  await liveRefused(ta, { amount: 100, currency: 'CNY', providerHints: { creem: 'eu' } }, 'no provider available for CNY in live mode')
})

test('a disabled default configuration is not usable', async (t) => {
  const ta = await startTestApp(t)
  const main = await addConfig(ta, { provider: 'wechat', label: 'main', isDefault: true, enabled: false })
  assert.equal(main.isDefault, true)
  assert.equal(main.enabled, false)
  await liveRefused(ta, { amount: 100, currency: 'CNY' }, 'no provider available for CNY in live mode: enable wechat/main')
  // A disabled default turns the provider off for unhinted sessions: another enabled configuration is not used without a hint.
  await addConfig(ta, { provider: 'wechat', label: 'spare', isDefault: false })
  await liveRefused(ta, { amount: 100, currency: 'CNY' }, 'no provider available for CNY in live mode: enable wechat/main')

  const on = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${main.id}`, { enabled: true })
  assert.equal(on.status, 200)
  const res = await live(ta, { amount: 100, currency: 'CNY' })
  assert.equal(res.status, 200, JSON.stringify(res.body))

  const off = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${main.id}`, { enabled: false })
  assert.equal(off.status, 200)
  await liveRefused(ta, { amount: 100, currency: 'CNY' }, 'no provider available for CNY in live mode: enable wechat/main')
})

test('successUrl and cancelUrl must use https in live mode, localhost included', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'creem', label: 'eu' })
  for (const url of ['http://localhost:3000/thanks', 'http://127.0.0.1/thanks', 'http://shop.example.com/thanks']) {
    await liveRefused(ta, { amount: 100, currency: 'EUR', successUrl: url }, 'successUrl: must use https in live mode')
    await liveRefused(ta, { amount: 100, currency: 'EUR', cancelUrl: url }, 'cancelUrl: must use https in live mode')
  }
  const ok = await live(ta, { amount: 100, currency: 'EUR', successUrl: 'https://shop.example.com/thanks', cancelUrl: 'https://shop.example.com/cart' })
  assert.equal(ok.status, 200, JSON.stringify(ok.body))
})

test('test helpers do not exist for a live key', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'creem', label: 'eu' })
  const res = await live(ta, { amount: 100, currency: 'EUR', providerHints: { creem: 'eu' } })
  assert.equal(res.status, 200)
  const pay = await ta.request('POST', `/api/v1/test_helpers/sessions/${res.body.id}/pay`, { key: ta.merchant.liveKey, body: {} })
  assert.equal(pay.status, 404)
  assert.deepEqual(pay.body, { error: 'test helpers need a test key (sk_test_…)', code: 'test_mode_only' })
  const read = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.liveKey })
  assert.equal(read.body.status, 'pending')
})
