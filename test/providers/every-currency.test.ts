/**
 * Every spec currency payable in live mode (issue 17): one merchant with a mainland WeChat Pay
 * configuration (CNY), three cross-border ones (WeChat Pay Global settling in HKD, JPY and EUR) and
 * Creem (USD), all against the fakes. Each session is created, paid and refunded through the API.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { startAttempt } from '../../src/services/attempts.js'
import { startTestApp } from '../helpers/app.js'
import { startCreem } from '../helpers/creem.js'
import { getSession, refundRecord } from '../helpers/merchant-api.js'
import { getPage, pressButton } from '../helpers/pages.js'
import { crossBorderSettings, startFake } from '../helpers/wechat.js'

async function merchant(t: TestContext) {
  const ta = await startTestApp(t)
  const wx = await startFake(t, { clock: ta.clock })
  const cr = await startCreem(t, { clock: ta.clock })
  const addConfig = async (provider: string, label: string, credentials: object, settings: object) => {
    const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider, label, credentials, settings })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body as { id: string; settings: Record<string, unknown> }
  }
  const configs: Record<string, string> = {}
  configs.cny = (await addConfig('wechat', 'cny', wx.fake.addMerchant(), { apiBase: wx.fake.url })).id
  for (const currency of ['HKD', 'JPY', 'EUR']) {
    const creds = wx.fake.addMerchant({}, { service: 'cross_border', settlementCurrency: currency })
    configs[currency.toLowerCase()] = (await addConfig('wechat', currency.toLowerCase(), creds, { apiBase: wx.fake.url, ...crossBorderSettings(currency) })).id
  }
  const creemCreds = cr.fake.addAccount()
  configs.creem = (await addConfig('creem', 'main', creemCreds, { apiBase: cr.fake.url })).id
  await cr.ctl.registerWebhook(`${ta.baseUrl}/hooks/creem/${configs.creem}`, creemCreds.apiKey)
  const live = { key: ta.merchant.liveKey }
  const checkout = (body: Record<string, unknown>) => ta.request('POST', '/api/v1/checkout', { ...live, body: { description: 'Blue mug', ...body } })
  const read = async (id: string) => (await getSession(ta, id, ta.merchant.liveKey)).body
  const refund = (recordId: string, amount?: number) => refundRecord(ta, recordId, amount, ta.merchant.liveKey)
  return { ta, wx, cr, configs, checkout, read, refund, live }
}

const LISTED: Record<string, string> = { HKD: '$99.00\u00a0HKD', JPY: '¥1,500\u00a0JPY', EUR: '€12.34\u00a0EUR' }

test('CNY, HKD, JPY, EUR and USD sessions are created, paid and refunded in live mode through their configurations', async (t) => {
  const m = await merchant(t)
  const cases = [
    { currency: 'CNY', amount: 9900, hint: { wechat: 'cny' }, refund: 3000, charged: undefined },
    { currency: 'HKD', amount: 9900, hint: { wechat: 'hkd' }, refund: 2500, charged: { amount: 9108, currency: 'CNY', rate: '0.92' } },
    { currency: 'JPY', amount: 1500, hint: { wechat: 'jpy' }, refund: 500, charged: { amount: 7200, currency: 'CNY', rate: '0.048' } },
    { currency: 'EUR', amount: 1234, hint: { wechat: 'eur' }, refund: 234, charged: { amount: 9625, currency: 'CNY', rate: '7.8' } },
    { currency: 'USD', amount: 1234, hint: { creem: 'main' }, refund: undefined, charged: undefined },
  ] as const
  for (const c of cases) {
    const created = await m.checkout({ amount: c.amount, currency: c.currency, providerHints: c.hint })
    assert.equal(created.status, 200, `${c.currency}: ${JSON.stringify(created.body)}`)
    const id = created.body.id as string
    const [provider, label] = Object.entries(c.hint)[0]
    const configId = provider === 'creem' ? m.configs.creem : m.configs[label]
    const { attempt, action } = await startAttempt(m.ta.deps, id, { provider, providerConfigId: configId, channel: provider === 'wechat' ? 'native' : null })
    if (provider === 'wechat') {
      assert.equal(action.kind, 'qr')
      await m.wx.ctl.pay({ out_trade_no: attempt.id })
    } else {
      await m.cr.ctl.complete(attempt.providerRef!)
    }
    const paid = await m.read(id)
    assert.equal(paid.status, 'paid', c.currency)
    assert.deepEqual([paid.currency, paid.record.amount, paid.record.charged], [c.currency, c.amount, c.charged], c.currency)
    const recordId = paid.record.id as string
    if (c.charged) {
      // The receipt and the finished checkout page show the listed amount and, beside it, what the customer paid and the rate.
      const receipt = (await getPage(m.ta, `/r/${recordId}`, { 'accept-language': 'en' })).html
      const result = (await getPage(m.ta, `/c/${id}`, { 'accept-language': 'en' })).html
      const line = `¥${(c.charged.amount / 100).toFixed(2)}\u00a0CNY · 1 ${c.currency} = ${c.charged.rate} CNY`
      for (const html of [receipt, result]) {
        assert.ok(html.includes(line), `${c.currency}: ${line}`)
        assert.ok(html.includes(LISTED[c.currency]), `${c.currency}: ${LISTED[c.currency]}`)
      }
    }
    const res = await m.refund(recordId, c.refund)
    assert.equal(res.status, 200, `${c.currency}: ${JSON.stringify(res.body)}`)
    assert.deepEqual([res.body.currency, res.body.amount, res.body.charged, res.body.refund.status, res.body.refund.amount], [c.currency, c.amount, c.charged, 'pending', c.refund ?? c.amount])
    if (provider === 'wechat') await m.wx.ctl.tick()
    else await m.cr.ctl.tick()
    const after = await m.read(id)
    assert.equal(after.record.status, c.refund === undefined ? 'refunded' : 'partially_refunded', c.currency)
    if (provider === 'wechat') {
      const order = await m.wx.ctl.order(attempt.id)
      assert.deepEqual([order.amount.currency, order.refunds.map((r: any) => [r.amount.refund, r.amount.currency, r.status])], [c.currency, [[c.refund, c.currency, 'SUCCESS']]], c.currency)
    }
  }
  // The fake saw the mainland API for CNY and the global one for the others.
  const paths = new Set((await m.wx.ctl.requests()).map((r) => r.path.split('?')[0].replace(/\/(att|ref)_\w+/, '/…')))
  assert.deepEqual([...paths].sort(), ['/v3/global/refunds', '/v3/global/transactions/native', '/v3/pay/transactions/native', '/v3/refund/domestic/refunds'])
})

test('routing: a hinted cross-border configuration refuses a currency it cannot list; unhinted, a session goes to the default when it lists the currency, otherwise to the one enabled configuration that does', async (t) => {
  const m = await merchant(t)
  const res = await m.checkout({ amount: 1500, currency: 'JPY', providerHints: { wechat: 'hkd' } })
  assert.deepEqual([res.status, res.body], [400, { error: 'no provider available for JPY in live mode', code: 'provider_unavailable' }])
  const cny = await m.checkout({ amount: 1500, currency: 'CNY', providerHints: { wechat: 'jpy' } })
  assert.deepEqual([cny.status, cny.body], [400, { error: 'no provider available for CNY in live mode', code: 'provider_unavailable' }])
  // Unhinted: the default WeChat configuration (CNY, the first made) does not list JPY, so the one enabled configuration that does takes it, and the page offers it.
  const ok = await m.checkout({ amount: 1500, currency: 'JPY' })
  assert.equal(ok.status, 200, JSON.stringify(ok.body))
  const page = await getPage(m.ta, `/c/${ok.body.id}`, { 'accept-language': 'en' })
  assert.match(page.html, /name="provider" value="wechat"/)
  assert.match(page.html, /¥1,500/)
  const picked = await pressButton(m.ta, ok.body.id, 'choose', { provider: 'wechat' })
  assert.equal(picked.status, 200)
  const { rows: [attempt] } = await m.ta.database.pool.query('select provider_config_id from attempts where session_id = $1', [ok.body.id])
  assert.equal(attempt.provider_config_id, m.configs.jpy)
  // HKD alike; CNY stays with the default.
  for (const [currency, label] of [['HKD', 'hkd'], ['CNY', 'cny']] as const) {
    const s = await m.checkout({ amount: 1500, currency })
    assert.equal(s.status, 200, JSON.stringify(s.body))
    await pressButton(m.ta, s.body.id, 'choose', { provider: 'wechat' })
    const { rows: [a] } = await m.ta.database.pool.query('select provider_config_id from attempts where session_id = $1', [s.body.id])
    assert.equal(a.provider_config_id, m.configs[label], currency)
  }
  // A second enabled JPY configuration: which one is for the merchant to say, and the error names both.
  const creds = m.wx.fake.addMerchant({}, { service: 'cross_border', settlementCurrency: 'JPY' })
  const second = await m.ta.admin('POST', `/merchants/${m.ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'jpy-osaka', credentials: creds, settings: { apiBase: m.wx.fake.url, ...crossBorderSettings('JPY') } })
  assert.equal(second.status, 201, JSON.stringify(second.body))
  const two = await m.checkout({ amount: 1500, currency: 'JPY' })
  assert.deepEqual([two.status, two.body], [400, {
    error: 'no provider available for JPY in live mode: several configurations take it (wechat/jpy, wechat/jpy-osaka); name one in providerHints or make one the default',
    code: 'provider_unavailable',
  }])
  // Making one the default settles it.
  const patched = await m.ta.admin('PATCH', `/merchants/${m.ta.merchant.id}/provider_configs/${m.configs.jpy}`, { isDefault: true })
  assert.equal(patched.status, 200, JSON.stringify(patched.body))
  assert.equal((await m.checkout({ amount: 1500, currency: 'JPY' })).status, 200)
})

test('a configuration states its service: cross-border settings are validated on save, and the mainland stays the default', async (t) => {
  const m = await merchant(t)
  const creds = m.wx.fake.addMerchant()
  const post = (settings: object) => m.ta.admin('POST', `/merchants/${m.ta.merchant.id}/provider_configs`, { provider: 'wechat', label: `x${Math.random().toString(36).slice(2, 8)}`, credentials: creds, settings })
  assert.deepEqual((await post({ service: 'cross_border', settlementCurrency: 'HKD' })).body, { error: 'settings.merchantCategoryCode: must be the 4-digit merchant category code WeChat Pay assigned', code: 'invalid_field', param: 'settings.merchantCategoryCode' })
  assert.deepEqual((await post({ service: 'cross_border', settlementCurrency: 'GBP', merchantCategoryCode: '5999' })).body, { error: 'settings.settlementCurrency: must be one of HKD, JPY, USD, EUR', code: 'invalid_field', param: 'settings.settlementCurrency' })
  assert.deepEqual((await post({ service: 'overseas' })).body, { error: 'settings.service: must be one of mainland, cross_border', code: 'invalid_field', param: 'settings.service' })
  const made = await post({ service: 'cross_border', settlementCurrency: 'USD', merchantCategoryCode: '5999' })
  assert.equal(made.status, 201)
  assert.deepEqual(made.body.settings, { service: 'cross_border', settlementCurrency: 'USD', merchantCategoryCode: '5999' })
  // Its records were paid through that service in that currency: neither changes afterwards (the MCC may).
  const patch = (settings: object) => m.ta.admin('PATCH', `/merchants/${m.ta.merchant.id}/provider_configs/${made.body.id}`, { settings })
  assert.deepEqual((await patch({ service: 'mainland' })).body, { error: 'settings.service: cannot change once saved: make a new configuration for the other service', code: 'invalid_field', param: 'settings.service' })
  assert.deepEqual((await patch({ service: 'cross_border', settlementCurrency: 'EUR', merchantCategoryCode: '5999' })).body, { error: 'settings.settlementCurrency: cannot change once saved: make a new configuration for the other currency', code: 'invalid_field', param: 'settings.settlementCurrency' })
  const mcc = await patch({ service: 'cross_border', settlementCurrency: 'USD', merchantCategoryCode: '5411' })
  assert.equal(mcc.status, 200, JSON.stringify(mcc.body))
  assert.equal(mcc.body.settings.merchantCategoryCode, '5411')
})
