/**
 * The console's screens over HTTP, as a browser without scripts: keys (shown once, used, revoked),
 * provider configurations (the admin API's validation messages), webhooks (a test event delivered,
 * resend), settings shown on the checkout and receipt, and the activity log of it all.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { moduleOf, PROVIDERS } from '../../src/providers/index.js'
import { ConsoleBrowser, signedIn } from '../helpers/console.js'
import { startReceiver, verifySignature } from '../helpers/receiver.js'
import { startFake } from '../helpers/wechat.js'

const shownOnce = (html: string) => /id="shown-once-value">([^<]+)</.exec(html)?.[1] ?? null

test('a key created in the console is shown once, works at once, and answers 401 as soon as it is revoked', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const created = await browser.submit('/console/test/keys', '/console/test/keys')
  assert.equal(created.status, 201)
  const key = shownOnce(created.html)!
  assert.match(key, /^sk_test_[0-9A-Za-z]{32}$/)
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } })).status, 200)
  const list = await browser.get('/console/test/keys')
  assert.equal(shownOnce(list.html), null, 'not shown again')
  assert.ok(!list.html.includes(key))
  assert.match(list.html, new RegExp(`sk_test_…${key.slice(-4)}`))
  assert.doesNotMatch(list.html.split(`…${key.slice(-4)}`)[1].split('</tr>')[0], /Never/, 'last used is set')
  assert.doesNotMatch((await browser.get('/console/live/keys')).html, new RegExp(`…${key.slice(-4)}`), 'not under live')

  const keyId = new RegExp(`/console/test/keys/(key_\\w+)/revoke`).exec(list.html.split(`…${key.slice(-4)}`)[1])![1]
  const confirm = await browser.get(`/console/test/keys/${keyId}/revoke`)
  assert.match(confirm.html, /cannot be undone/)
  const revoked = await browser.submit(`/console/test/keys/${keyId}/revoke`, `/console/test/keys/${keyId}/revoke`)
  assert.equal(revoked.status, 303)
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } })).status, 401)
  assert.match((await browser.get(revoked.location!)).html, /was revoked/)
})

test('a WeChat Pay configuration is added with the admin API\'s messages, marked default, disabled, and never shows its secrets', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const { fake } = await startFake(t, { clock: ta.clock })
  const creds = fake.addMerchant()
  assert.match((await browser.get('/console/test/providers')).html, /mock provider/)
  assert.equal((await browser.get('/console/test/providers/new?provider=wechat')).status, 404)

  const bad = await browser.submit('/console/live/providers/new?provider=wechat', '/console/live/providers', { provider: 'wechat', label: 'main', enabled: 'on', ...creds, mchId: 'abc', apiBase: fake.url }, { multipart: {} })
  assert.equal(bad.status, 400)
  const api = await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: { ...creds, mchId: 'abc' } })
  // The admin API's message, in the form's words: the field's label for `credentials.mchId`.
  const label = moduleOf('wechat').credentials.find((f) => f.name === 'mchId')!.label.en
  assert.ok(bad.html.includes(api.body.error.replace('credentials.mchId', label).replaceAll("'", '&#39;')), api.body.error)

  // The private key as a chosen file, the rest typed.
  const { privateKey, ...typed } = creds as unknown as Record<string, string>
  const saved = await browser.submit('/console/live/providers/new?provider=wechat', '/console/live/providers',
    { provider: 'wechat', label: 'main', enabled: 'on', ...typed, apiBase: fake.url }, { multipart: { privateKeyFile: new Blob([privateKey]) } })
  assert.equal(saved.status, 303, saved.html)
  const second = await browser.submit('/console/live/providers/new?provider=wechat', '/console/live/providers',
    { provider: 'wechat', label: 'backup', enabled: 'on', ...(creds as unknown as Record<string, string>), apiBase: fake.url }, { multipart: {} })
  assert.equal(second.status, 303)
  const configs = (await ta.admin('GET', `/merchants/${m.id}/provider_configs`)).body.data as { id: string; label: string; isDefault: boolean; enabled: boolean }[]
  const backup = configs.find((c) => c.label === 'backup')!
  assert.deepEqual(configs.map((c) => [c.label, c.isDefault]).sort(), [['backup', false], ['main', true]])
  const list = await browser.get('/console/live/providers')
  assert.ok(!list.html.includes((creds as unknown as Record<string, string>).apiV3Key), 'no secret on the page')
  assert.ok(!list.html.includes('BEGIN PRIVATE KEY'))
  assert.match(list.html, new RegExp(`merchant ${(creds as unknown as Record<string, string>).mchId}`))

  assert.equal((await browser.submit('/console/live/providers', `/console/live/providers/${backup.id}/state`, { change: 'default' })).status, 303)
  assert.equal((await browser.submit('/console/live/providers', `/console/live/providers/${backup.id}/state`, { change: 'disable' })).status, 303)
  const after = (await ta.admin('GET', `/merchants/${m.id}/provider_configs`)).body.data as typeof configs
  assert.deepEqual(after.map((c) => [c.label, c.isDefault, c.enabled]).sort(), [['backup', true, false], ['main', false, true]])
  const edit = await browser.submit(`/console/live/providers/${backup.id}`, `/console/live/providers/${backup.id}`, { label: 'spare', apiBase: fake.url })
  assert.equal(edit.status, 303)
  const activity = await browser.get('/console/live/activity')
  assert.equal((activity.html.match(/data-action="provider_config_created"/g) ?? []).length, 2)
  assert.equal((activity.html.match(/data-action="provider_config_updated"/g) ?? []).length, 3)
})

test('the provider screens come from the provider modules, in English and Chinese: one add button each, each module\'s fields', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const zh = new ConsoleBrowser(ta, { 'accept-language': 'zh-CN' })
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  const list = { en: (await browser.get('/console/live/providers')).html, 'zh-CN': (await zh.get('/console/live/providers')).html }
  assert.match(list.en, />Add WeChat Pay</)
  assert.match(list['zh-CN'], />添加微信支付</)
  assert.match(list['zh-CN'], />添加 Creem</)
  // With none yet, the page says what that means and what to do.
  assert.match(list.en, /No provider configurations yet\. Live checkouts are refused until you add one above with your provider account(?:'|&#39;)s credentials\./)
  assert.match(list['zh-CN'], /还没有支付渠道配置。添加之前，正式模式的付款会被拒绝：请在上方用您的支付渠道账户凭据添加一个。/)
  for (const p of PROVIDERS) {
    assert.ok(list.en.includes(`/console/live/providers/new?provider=${p.id}`), p.id)
    const form = { en: (await browser.get(`/console/live/providers/new?provider=${p.id}`)).html, 'zh-CN': (await zh.get(`/console/live/providers/new?provider=${p.id}`)).html }
    for (const locale of ['en', 'zh-CN'] as const) {
      assert.deepEqual([...form[locale].matchAll(/<label for="cred-(\w+)">([^<]+)</g)].map((m) => [m[1], m[2]]), p.credentials.map((f) => [f.name, f.label[locale]]), `${p.id} ${locale}`)
    }
  }
})

test('an endpoint added in the console gets its secret once, receives a signed test event, and the delivery can be resent', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const rx = await startReceiver(t, () => ({ status: 200, body: 'thanks' }))
  const created = await browser.submit('/console/test/webhooks', '/console/test/webhooks', { url: rx.url, filter: 'some', events: ['payment.succeeded', 'refund.succeeded'] })
  assert.equal(created.status, 201)
  const secret = shownOnce(created.html)!
  assert.match(secret, /^whsec_/)
  const id = /\/console\/test\/webhooks\/(we_\w+)\/test/.exec(created.html)![1]
  assert.ok(!(await browser.get(`/console/test/webhooks/${id}`)).html.includes(secret))

  const sent = await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/test`, { type: 'refund.succeeded' })
  assert.equal(sent.status, 303)
  await deliverDue(ta.deps)
  assert.equal(rx.requests.length, 1)
  const [r] = rx.requests
  assert.equal(r.json.type, 'refund.succeeded')
  assert.equal(r.json.data.metadata.till_test_event, 'true')
  assert.ok(verifySignature(secret, r.body, r.headers['x-service-signature']))
  const page = await browser.get(sent.location!)
  assert.match(page.html, /A test refund\.succeeded event was sent/)
  assert.match(page.html, /Delivered/)
  assert.match(page.html, /<strong>200<\/strong>/)
  assert.match(page.html, /thanks/)

  const resent = await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/resend`, { event: r.json.id })
  assert.equal(resent.status, 303)
  await deliverDue(ta.deps)
  assert.equal(rx.requests.length, 2)
  assert.equal(rx.requests[1].json.id, r.json.id)
  assert.equal(((await browser.get(`/console/test/webhooks/${id}`)).html.match(/<li>/g) ?? []).length >= 2, true)

  const rotated = await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/rotate`)
  assert.notEqual(shownOnce(rotated.html), secret)
  assert.match(rotated.html, /Previous secrets sign beside it until/)
  const expired = await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/expire-previous`)
  assert.equal(expired.status, 303)
  const after = await browser.get(expired.location!)
  assert.match(after.html, /The previous secrets no longer sign/)
  assert.doesNotMatch(after.html, /Previous secrets sign beside it until/)
  await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/test`, { type: 'refund.succeeded' })
  await deliverDue(ta.deps)
  const last = rx.requests.at(-1)!
  assert.ok(verifySignature(shownOnce(rotated.html)!, last.body, last.headers['x-service-signature']))
  assert.equal(String(last.headers['x-service-signature']).split(',').length, 1)
  assert.equal((await browser.submit(`/console/test/webhooks/${id}`, `/console/test/webhooks/${id}/state`, { change: 'disable' })).status, 303)
  assert.match((await browser.get(`/console/test/webhooks/${id}`)).html, /Disabled/)
  assert.equal((await browser.submit(`/console/test/webhooks/${id}/delete`, `/console/test/webhooks/${id}/delete`)).status, 303)
  assert.equal((await browser.get(`/console/test/webhooks/${id}`)).status, 404)
  const activity = (await browser.get('/console/test/activity')).html
  for (const a of ['endpoint_created', 'endpoint_test_sent', 'event_resent', 'endpoint_secret_rotated', 'endpoint_previous_secrets_expired', 'endpoint_updated', 'endpoint_deleted']) assert.match(activity, new RegExp(`data-action="${a}"`), a)
  assert.doesNotMatch((await browser.get('/console/live/activity')).html, /data-action="endpoint_created"/, 'test-mode entries stay in test mode')
})

test('settings: the name, brand colour, logo and support email appear on the checkout and the receipt', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360f8cf000000030101000518d84e0000000049454e44ae426082', 'hex')
  const bad = await browser.submit('/console/test/settings', '/console/test/settings', { displayName: 'Blue Mugs', brandColor: 'blue', supportEmail: '' }, { multipart: {} })
  assert.equal(bad.status, 400)
  assert.match(bad.html, /brandColor: must be a colour/)
  const svg = await browser.submit('/console/test/settings', '/console/test/settings', { displayName: 'Blue Mugs', brandColor: '', supportEmail: '' }, { multipart: { logo: new Blob(['<svg onload="alert(1)"/>']) } })
  assert.equal(svg.status, 400)
  const saved = await browser.submit('/console/test/settings', '/console/test/settings', { displayName: 'Blue Mugs', brandColor: '#1A7F5A', supportEmail: 'help@bluemugs.example' }, { multipart: { logo: new Blob([png]) } })
  assert.equal(saved.status, 303)

  const session = await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 100, currency: 'CNY' } })
  const checkout = await fetch(session.body.url).then((r) => r.text())
  assert.match(checkout, /Pay Blue Mugs/)
  assert.match(checkout, /href="mailto:help@bluemugs\.example"/)
  const logo = /<img src="(\/logos\/[^"]+)"/.exec(checkout)![1]
  const img = await fetch(ta.baseUrl + logo)
  assert.equal(img.headers.get('content-type'), 'image/png')
  assert.deepEqual(Buffer.from(await img.arrayBuffer()), png)
  const css = /<link rel="stylesheet" href="(\/logos\/colour\/1a7f5a)"/.exec(checkout)![1]
  assert.match(await fetch(ta.baseUrl + css).then((r) => r.text()), /background:#1a7f5a/)

  const paid = await paidSession({ ...ta, merchant: { id: m.id, testKey: m.testKey, liveKey: m.liveKey } })
  const receipt = await fetch(`${ta.baseUrl}/r/${paid.record.id}`).then((r) => r.text())
  assert.match(receipt, /Blue Mugs/)
  assert.match(receipt, /help@bluemugs\.example/)
  assert.match(receipt, new RegExp(logo))
  assert.match((await browser.get('/console/live/activity')).html, /data-action="settings_updated"/, 'settings have no mode: shown in both')
})

test('settings: a support page, https only, is the way back from an unpaid checkout that names none', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const form = { displayName: 'Blue Mugs', brandColor: '', supportEmail: 'help@bluemugs.example' }
  for (const supportUrl of ['javascript:alert(1)', 'http://bluemugs.example/help', 'help page']) {
    const bad = await browser.submit('/console/test/settings', '/console/test/settings', { ...form, supportUrl }, { multipart: {} })
    assert.equal(bad.status, 400, supportUrl)
    assert.match(bad.html, /supportUrl: must be an https address/, supportUrl)
  }
  const page = await browser.get('/console/test/settings')
  assert.match(page.html, /<label for="supportUrl">Support page<\/label>/)
  const saved = await browser.submit('/console/test/settings', '/console/test/settings', { ...form, supportUrl: 'https://bluemugs.example/help' }, { multipart: {} })
  assert.equal(saved.status, 303)
  assert.match((await browser.get('/console/test/settings')).html, /name="supportUrl" type="url" value="https:\/\/bluemugs\.example\/help"/)

  const session = await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 100, currency: 'CNY' } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${session.body.id}/cancel`, { key: m.testKey })
  const checkout = await fetch(session.body.url).then((r) => r.text())
  assert.match(checkout, /<a class="button primary" href="https:\/\/bluemugs\.example\/help">Return to Blue Mugs<\/a>/)
  // Emptied, it is gone: the support email is what is left.
  await browser.submit('/console/test/settings', '/console/test/settings', { ...form, supportUrl: '' }, { multipart: {} })
  assert.match(await fetch(session.body.url).then((r) => r.text()), /<a class="button primary" href="mailto:help@bluemugs\.example">Contact Blue Mugs<\/a>/)
})
