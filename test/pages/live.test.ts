/**
 * /c/<session_id> in live mode (issue #3 §1, docs/providers.md): the providers a session offers, what a
 * pick does, and a clear "not available yet" while a provider's adapter does not exist. WeChat Pay's
 * own channels against its fake are in wechat.test.ts.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LiveProviderId } from '../../src/providers/index.js'
import { createMockProvider } from '../../src/providers/mock/index.js'
import { createRegistry } from '../../src/providers/registry.js'
import { ProviderError, type Action, type PaymentProvider } from '../../src/providers/types.js'
import { applyFacts } from '../../src/services/payment-facts.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'
import { crossBorderSettings } from '../helpers/wechat.js'
import { formCount, getPage, postForm, pressButton, tokenOf } from '../helpers/pages.js'
import { sessionRow } from '../helpers/store-queries.js'

async function addConfig(ta: TestApp, body: Record<string, unknown>) {
  const credentials = body.provider === 'wechat' ? wechatCredentials() : creemCredentials()
  const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { credentials, ...body })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as { id: string }
}

async function liveSession(ta: TestApp, body: Record<string, unknown>) {
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body as { id: string }
}

const attemptCount = async (ta: TestApp, id: string) =>
  (await ta.database.pool.query('select count(*)::int as n from attempts where session_id = $1', [id])).rows[0].n as number

/** Stands in for an adapter that is not built yet: its createAttempt answers with `action`. */
function fakeAdapter(id: LiveProviderId, action: Action): PaymentProvider {
  const mock = createMockProvider(() => new Date())
  return { ...mock, id, createAttempt: async () => ({ providerRef: `${id}_order_1`, action }) }
}

test('a live session offers the enabled default provider for its currency, with name and mark, and no test controls', async (t) => {
  const ta = await startTestApp(t)
  const cfg = await addConfig(ta, { provider: 'wechat', label: 'main' })
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY', description: 'Tea' })
  const page = await getPage(ta, `/c/${s.id}`)
  assert.equal(page.status, 200)
  assert.ok(!page.html.includes('TEST MODE'))
  assert.ok(page.html.includes('<h2>Choose how to pay</h2>'))
  assert.ok(page.html.includes('name="provider" value="wechat"'))
  assert.ok(page.html.includes('<span class="mark mark-wechat" aria-hidden="true">W</span><span>Pay with WeChat Pay</span>'))
  assert.ok(page.html.includes('<span class="amount-value">¥99.00\u00a0CNY</span>'))
  assert.equal(formCount(page.html), 2, 'the pick and Cancel and return')
  assert.ok(!page.html.includes('/pay"') && !page.html.includes('/fail"'))
  assert.ok(!page.html.includes(cfg.id), 'no internal configuration id on the page')
})

test('picking a provider whose adapter does not exist yet says so clearly and leaves the session untouched', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  ta.deps.providers = createRegistry([createMockProvider(() => new Date())]) // no live adapter at all
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY' })
  const res = await pressButton(ta, s.id, 'choose', { provider: 'wechat' })
  assert.equal(res.status, 303)
  assert.equal(res.location, `/c/${s.id}?unavailable=wechat`)
  const page = await getPage(ta, res.location!)
  assert.equal(page.status, 200)
  assert.ok(page.html.includes('<p class="notice warning" role="alert">WeChat Pay is not available yet. Please choose another way to pay, or try again later.</p>'))
  assert.ok(page.html.includes('name="provider" value="wechat"'), 'the choice is still offered')
  const row = await sessionRow(ta, s.id)
  assert.equal(row.status, 'pending')
  assert.equal(row.chosen_provider, null)
  assert.equal(await attemptCount(ta, s.id), 0)
})

test('inside WeChat without the official account\'s appSecret, the page says WeChat Pay cannot be used there, and starts nothing', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  ta.deps.providers = createRegistry([fakeAdapter('wechat', { kind: 'qr', content: 'weixin://x' })])
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY' })
  const ua = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 MicroMessenger/8.0.40'
  const token = tokenOf((await getPage(ta, `/c/${s.id}`)).html)
  const res = await postForm(ta, `/c/${s.id}/choose`, { token, provider: 'wechat' }, { 'user-agent': ua })
  assert.equal(res.location, `/c/${s.id}?unavailable=wechat-in-app`)
  const page = await getPage(ta, res.location!, { 'user-agent': ua })
  assert.ok(page.html.includes('<p class="notice warning" role="alert">WeChat Pay cannot be used inside WeChat for this checkout. Open this page in your phone&#39;s browser, or on a computer to scan a QR code.</p>'))
  assert.equal(await attemptCount(ta, s.id), 0)
  assert.equal((await sessionRow(ta, s.id)).status, 'pending')
})

test('a provider that cannot be reached leaves a clear message and lets the customer try again', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'creem', label: 'main' })
  const down = fakeAdapter('creem', { kind: 'none' })
  down.createAttempt = async () => {
    throw new ProviderError('unknown', 'network', 'Creem unreachable')
  }
  ta.deps.providers = createRegistry([down])
  const s = await liveSession(ta, { amount: 500, currency: 'USD' })
  const res = await pressButton(ta, s.id, 'choose', { provider: 'creem' })
  assert.equal(res.status, 303)
  assert.equal(res.location, `/c/${s.id}?failed=creem`)
  const page = await getPage(ta, res.location!)
  assert.ok(page.html.includes('Creem could not start the payment just now. Please try again, or choose another way to pay.'))
  assert.ok(page.html.includes('name="provider" value="creem"'))
  // One message: no "waiting for Creem" beside the failure.
  assert.equal((page.html.match(/class="notice/g) ?? []).length, 1, page.html)
  // The attempt may have reached Creem: it stays processing for reconciliation to ask about.
  assert.equal((await sessionRow(ta, s.id)).status, 'processing')
})

test('after the provider reports a definitive failure the session stays failed: no new attempt, only the way back (docs/integrate.md: trying again)', async (t) => {
  const ta = await startTestApp(t)
  const cfg = await addConfig(ta, { provider: 'creem', label: 'main' })
  ta.deps.providers = createRegistry([fakeAdapter('creem', { kind: 'none' })])
  const s = await liveSession(ta, { amount: 500, currency: 'USD', cancelUrl: 'https://shop.example/cart' })
  const token = tokenOf((await getPage(ta, `/c/${s.id}`)).html)
  assert.equal((await postForm(ta, `/c/${s.id}/choose`, { token, provider: 'creem' })).status, 303)
  const { rows: [attempt] } = await ta.database.pool.query('select id from attempts where session_id = $1', [s.id])
  await applyFacts(ta.deps, 'creem', cfg.id, [{ kind: 'payment', attemptId: attempt.id, status: 'failed' }])
  assert.equal((await sessionRow(ta, s.id)).status, 'failed')
  // An old tab still holding the choice: nothing starts.
  const again = await postForm(ta, `/c/${s.id}/choose`, { token, provider: 'creem' })
  assert.equal(again.location, `/c/${s.id}`)
  assert.equal(await attemptCount(ta, s.id), 1)
  const page = await getPage(ta, `/c/${s.id}`)
  assert.equal(formCount(page.html), 0)
  assert.ok(page.html.includes(`href="https://shop.example/cart?session_id=${s.id}">Return to Acme</a>`))
})

test('the mock controls cannot touch a live session', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY' })
  const token = tokenOf((await getPage(ta, `/c/${s.id}`)).html)
  for (const action of ['pay', 'fail']) {
    const res = await postForm(ta, `/c/${s.id}/${action}`, { token })
    assert.equal(res.status, 404, action)
  }
  assert.equal((await sessionRow(ta, s.id)).status, 'pending')
  assert.equal(await attemptCount(ta, s.id), 0)
})

test('a hinted session offers only its bound provider; another pick is refused', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'creem', label: 'main' })
  const eu = await addConfig(ta, { provider: 'creem', label: 'eu', isDefault: false })
  const s = await liveSession(ta, { amount: 1999, currency: 'EUR', providerHints: { creem: 'eu' } })
  const page = await getPage(ta, `/c/${s.id}`)
  assert.equal((page.html.match(/name="provider"/g) ?? []).length, 1)
  assert.ok(page.html.includes('Pay with Creem'))
  assert.ok(page.html.includes('<span class="amount-value">€19.99\u00a0EUR</span>'))
  const res = await pressButton(ta, s.id, 'choose', { provider: 'wechat' })
  assert.equal(res.status, 404)
  assert.equal((await sessionRow(ta, s.id)).provider_config_id, eu.id)
})

test('a pick whose provider answers with a redirect names the provider, makes the session processing, and sends the customer on; the page still offers every way to pay', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'creem', label: 'main' })
  await addConfig(ta, { provider: 'wechat', label: 'global', settings: crossBorderSettings('USD') })
  ta.deps.providers = createRegistry([fakeAdapter('creem', { kind: 'redirect', url: 'https://checkout.creem.example/p/abc?x=1&y=2' })])
  const s = await liveSession(ta, { amount: 500, currency: 'USD' })
  const res = await pressButton(ta, s.id, 'choose', { provider: 'creem' })
  assert.equal(res.status, 200)
  assert.ok(res.html.includes('<meta http-equiv="refresh" content="0;url=https://checkout.creem.example/p/abc?x=1&amp;y=2"/>'))
  assert.ok(res.html.includes('<a class="button primary" href="https://checkout.creem.example/p/abc?x=1&amp;y=2">Continue to Creem</a>'))
  const row = await sessionRow(ta, s.id)
  assert.equal(row.status, 'processing')
  assert.equal(row.chosen_provider, 'creem')
  // Only a hint binds the configuration; the payment itself binds it later.
  assert.equal(row.provider_config_id, null)

  const page = await getPage(ta, `/c/${s.id}`)
  assert.ok(page.html.includes('Waiting for Creem to confirm your payment.'))
  assert.ok(page.html.includes('name="provider" value="creem"'), 'the customer may choose again')
  assert.ok(page.html.includes('name="provider" value="wechat"'), 'or choose another way to pay')
  const read = await ta.request('GET', `/api/v1/sessions/${s.id}`, { key: ta.merchant.liveKey })
  assert.equal(read.body.chosenProvider, 'creem')
})

test('a pick whose provider answers with a QR code shows it as an SVG, with the way on to the relay', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  ta.deps.providers = createRegistry([fakeAdapter('wechat', { kind: 'qr', content: 'weixin://wxpay/bizpayurl?pr=abc' })])
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY' })
  const res = await pressButton(ta, s.id, 'choose', { provider: 'wechat' })
  assert.equal(res.status, 200)
  assert.ok(res.html.includes('<h1>Scan this code with WeChat Pay to pay</h1>'))
  assert.match(res.html, /<figure class="qr" role="img" aria-label="QR code to pay with WeChat Pay"><svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="240" height="240"/)
  assert.ok(res.html.includes(`href="/c/${s.id}/done">I have paid</a>`))
  // The language switch reloads the checkout page, not the form post's URL.
  assert.ok(res.html.includes(`<a href="/c/${s.id}?lang=zh-CN" hreflang="zh-CN" lang="zh-CN">简体中文</a>`))
  assert.equal((await sessionRow(ta, s.id)).status, 'processing')
})

test('a live session whose provider configuration was disabled offers nothing, and says so', async (t) => {
  const ta = await startTestApp(t)
  const cfg = await addConfig(ta, { provider: 'wechat', label: 'main' })
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY' })
  const off = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${cfg.id}`, { enabled: false })
  assert.equal(off.status, 200)
  const page = await getPage(ta, `/c/${s.id}`)
  assert.ok(page.html.includes('No payment method is available for this checkout right now. Please try again later, or cancel and return to Acme.'))
  assert.ok((await getPage(ta, `/c/${s.id}?lang=zh-CN`)).html.includes('此订单目前没有可用的支付方式。请稍后再试，或取消并返回Acme。'))
  assert.equal(formCount(page.html), 1, 'only Cancel and return')
})

test('Cancel and return works in live mode too', async (t) => {
  const ta = await startTestApp(t)
  await addConfig(ta, { provider: 'wechat', label: 'main' })
  const s = await liveSession(ta, { amount: 9900, currency: 'CNY', successUrl: 'https://shop.example/back' })
  const res = await pressButton(ta, s.id, 'cancel')
  assert.equal(res.location, `/c/${s.id}/done`)
  const relay = await getPage(ta, res.location!)
  assert.equal(relay.status, 303)
  assert.equal(relay.location, `https://shop.example/back?session_id=${s.id}&paid_confirmed=0`)
})
