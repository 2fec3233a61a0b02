/** A Stripe configuration made in the console, in Chinese and in English: a publishable key refused with the admin API's message, a secret key saved and never shown again. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, signedIn } from '../helpers/console.js'

test('Stripe in the console: refused with the admin API\'s message, saved, identified by its key\'s kind and last four, secrets never shown', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const zh = new ConsoleBrowser(ta, { 'accept-language': 'zh-CN' })
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  const form = { provider: 'stripe', label: 'cards', enabled: 'on', webhookSecret: 'whsec_abcdefgh12345678' }

  const bad = await zh.submit('/console/live/providers/new?provider=stripe', '/console/live/providers', { ...form, secretKey: 'pk_test_abcdefgh12345678' }, { multipart: {} })
  assert.equal(bad.status, 400)
  const api = await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'stripe', label: 'cards', credentials: { secretKey: 'pk_test_abcdefgh12345678', webhookSecret: 'whsec_abcdefgh12345678' } })
  assert.equal(api.status, 400)
  // The console names the field by its form label, with the API's own sentence.
  const sentence = api.body.error.replace(/^credentials\.secretKey: /, '')
  assert.ok(bad.html.includes(`密钥 (Secret key): ${sentence}`), api.body.error)
  assert.match(api.body.error, /credentials\.secretKey: must be a secret key sk_live_…\/sk_test_… or a restricted key/)
  const noSecret = await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'stripe', label: 'cards', credentials: { secretKey: 'sk_test_abcdefgh12345678', webhookSecret: 'secret' } })
  assert.match(noSecret.body.error, /credentials\.webhookSecret: must be a signing secret whsec_…/)

  const saved = await zh.submit('/console/live/providers/new?provider=stripe', '/console/live/providers', { ...form, secretKey: 'sk_test_abcdefgh1234WXYZ' }, { multipart: {} })
  assert.equal(saved.status, 303, saved.html)
  const list = { en: (await browser.get('/console/live/providers')).html, 'zh-CN': (await zh.get('/console/live/providers')).html }
  assert.match(list.en, /key sk_test_…WXYZ/)
  assert.match(list['zh-CN'], /密钥 sk_test_…WXYZ/)
  for (const html of Object.values(list)) assert.ok(!html.includes('abcdefgh1234WXYZ') && !html.includes('whsec_abcdefgh12345678'), 'no secret on the page')
})
