/**
 * Console forms are read one way only: a field sent twice (`amount=50&amount=50`) is refused with a
 * 400 that names it, in the page's language, and changes nothing, on every form (sign-in, refund,
 * webhooks, settings, multipart or not). Only the webhook form's event checkboxes are a list.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, csrfOf, loginTokenOf, signedIn } from '../helpers/console.js'

test('a refund form with its amount twice is refused, in English and in Chinese, and refunds nothing', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const paid = await paidSession({ ...ta, merchant: { id: m.id, testKey: m.testKey, liveKey: m.liveKey } }, { amount: 5000, currency: 'CNY' })
  const refunds = async () => Number((await ta.database.pool.query('select count(*) from refunds where record_id = $1', [paid.record.id])).rows[0].count)
  const refunded = async () => (await ta.request('GET', `/api/v1/records/${paid.record.id}`, { key: m.testKey })).body.refundedAmount

  const page = await browser.get(`/console/test/payments/${paid.id}`)
  const form = { csrf: csrfOf(page.html), idempotencyKey: /name="idempotencyKey" value="([^"]+)"/.exec(page.html)![1] }
  const twice = await browser.post(`/console/test/payments/${paid.id}/refund`, { ...form, amount: ['50', '50'] })
  assert.equal(twice.status, 400)
  assert.match(twice.html, /The form field “amount” was sent more than once/)
  assert.match(twice.html, /Nothing was changed/)
  assert.equal(await refunded(), 0)
  assert.equal(await refunds(), 0)

  const zh = new ConsoleBrowser(ta, { 'accept-language': 'zh-CN' })
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  const zhTwice = await zh.post(`/console/test/payments/${paid.id}/refund`, { ...form, amount: '50', reason: ['a', 'b'] })
  assert.equal(zhTwice.status, 400)
  assert.match(zhTwice.html, /表单字段“reason”提交了不止一次/)
  assert.equal(await refunds(), 0)

  // The confirmation's fields too.
  const confirmTwice = await browser.post(`/console/test/payments/${paid.id}/refund`, { ...form, confirm: '1', amountMinor: ['50', '5000'] })
  assert.equal(confirmTwice.status, 400)
  assert.match(confirmTwice.html, /The form field “amountMinor” was sent more than once/)
  assert.equal(await refunds(), 0)

  // The same form read once refunds what it says, once confirmed: the key was not spent by the refusals.
  const review = await browser.post(`/console/test/payments/${paid.id}/refund`, { ...form, amount: '0.50' })
  assert.equal(review.status, 200)
  const once = await browser.post(`/console/test/payments/${paid.id}/refund`, { ...form, confirm: '1', amountMinor: '50' })
  assert.equal(once.status, 303)
  assert.equal(await refunded(), 50)
})

test('every console form refuses a duplicated field and changes nothing: sign-in, webhooks, settings (multipart), the token itself', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)

  const anon = new ConsoleBrowser(ta)
  const login = await anon.get('/console/login')
  const signIn = await anon.post('/console/login', { token: loginTokenOf(login.html), email: [m.email, m.email], password: m.password })
  assert.equal(signIn.status, 400)
  assert.match(signIn.html, /“email” was sent more than once/)
  assert.equal(anon.cookies.has('till_console'), false, 'not signed in')

  const hook = await browser.submit('/console/test/webhooks', '/console/test/webhooks', { url: ['https://a.example.com/hook', 'https://b.example.com/hook'] })
  assert.equal(hook.status, 400)
  assert.match(hook.html, /“url” was sent more than once/)
  assert.equal(Number((await ta.database.pool.query('select count(*) from webhook_endpoints where merchant_id = $1', [m.id])).rows[0].count), 0)

  const settings = await browser.submit('/console/test/settings', '/console/test/settings', { displayName: ['One', 'Two'] }, { multipart: {} })
  assert.equal(settings.status, 400)
  assert.match(settings.html, /“displayName” was sent more than once/)
  assert.equal((await ta.database.pool.query('select display_name from merchants where id = $1', [m.id])).rows[0].display_name, null)

  const csrf = csrfOf((await browser.get('/console/test/keys')).html)
  const key = await browser.post('/console/test/keys', { csrf: [csrf, csrf] })
  assert.equal(key.status, 400)
  assert.match(key.html, /“csrf” was sent more than once/)
  assert.equal(Number((await ta.database.pool.query('select count(*) from api_keys where merchant_id = $1', [m.id])).rows[0].count), 2, 'the two keys it was made with')
})

test('a console form field holding NUL is refused with a 400 that names it, in the page language, and changes nothing (urlencoded and multipart)', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)

  const hook = await browser.submit('/console/test/webhooks', '/console/test/webhooks', { url: 'https://a.example.com/ho\u0000ok' })
  assert.equal(hook.status, 400)
  assert.match(hook.html, /The form field “url” holds a character that cannot be stored \(U\+0000\)/)
  assert.match(hook.html, /Nothing was changed/)
  assert.equal(Number((await ta.database.pool.query('select count(*) from webhook_endpoints where merchant_id = $1', [m.id])).rows[0].count), 0)

  const zh = new ConsoleBrowser(ta, { 'accept-language': 'zh-CN' })
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  const settings = await zh.submit('/console/test/settings', '/console/test/settings', { displayName: 'Blue\u0000Mugs' }, { multipart: {} })
  assert.equal(settings.status, 400)
  assert.match(settings.html, /表单字段“displayName”含有无法保存的字符（U\+0000）/)
  assert.equal((await ta.database.pool.query('select display_name from merchants where id = $1', [m.id])).rows[0].display_name, null)

  // The same forms without it are taken.
  assert.equal((await browser.submit('/console/test/settings', '/console/test/settings', { displayName: 'Blue Mugs' }, { multipart: {} })).status, 303)
})
