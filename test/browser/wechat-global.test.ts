/**
 * A customer paying a cross-border merchant (WeChat Pay Global) in Chromium, live mode against the
 * fake: an HKD session by QR on a desktop, a JPY session through the H5 cashier on a phone. Prices
 * are listed in the merchant's currency; the receipt adds what the customer paid in CNY and the rate.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { liveWechat, UA } from '../helpers/wechat.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

test('desktop, HKD: the QR lists $99.00 HKD, a phone pays it in CNY, and the page moves on to a receipt with the CNY paid and the rate', async (t) => {
  const w = await liveWechat(t, { crossBorder: 'HKD' })
  const s = await w.session({ amount: 9900, currency: 'HKD' })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop })
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`**/c/${s.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  assert.equal(await page.locator('h1').textContent(), 'Scan this code with WeChat Pay to pay')
  assert.equal(await page.locator('.amount-value').textContent(), '$99.00\u00a0HKD')
  assert.equal(await page.locator('.qr svg').count(), 1)

  const [attempt] = await w.attempts(s.id)
  const phone = await openPage(t, browser, PHONE)
  await phone.page.goto(`${w.fake.url}/__fake/wechat/scan?code_url=${encodeURIComponent(w.order(attempt.id).codeUrl!)}`)
  assert.equal(await phone.page.locator('#amount').textContent(), 'HKD 99.00')
  await Promise.all([page.waitForURL('**/r/rec_*'), phone.page.locator('#pay').click()])
  assert.equal(await page.locator('.amount-big').textContent(), '$99.00\u00a0HKD')
  assert.equal(await page.locator('.charged').textContent(), '¥91.08\u00a0CNY · 1 HKD = 0.92 CNY')
  await screenshot(page, 'wechat-global-receipt-hkd-desktop')
  assert.equal(w.order(attempt.id).currency, 'HKD')
  assert.deepEqual(problems, [])
})

test('phone, JPY: ¥1,500 through the H5 cashier back to the receipt; a ¥500 refund leaves ¥1,000 refundable', async (t) => {
  const w = await liveWechat(t, { crossBorder: 'JPY' })
  await w.ctl.rates({ JPY: 0.0481 })
  const s = await w.session({ amount: 1500, currency: 'JPY' })
  const { page, problems } = await openPage(t, browser, { ...PHONE, userAgent: UA.phone })
  await page.goto(s.url)
  assert.equal(await page.locator('.amount-value').first().textContent(), '¥1,500\u00a0JPY')
  await Promise.all([page.waitForURL(`${w.fake.url}/__fake/h5/checkmweb?**`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  assert.equal(new URL(page.url()).searchParams.get('redirect_url'), `${w.ta.baseUrl}/c/${s.id}/done`)
  assert.equal(await page.locator('#amount').textContent(), 'JPY 1500')
  await Promise.all([page.waitForURL('**/r/rec_*'), page.locator('#pay').click()])
  assert.equal(await page.locator('.amount-big').textContent(), '¥1,500\u00a0JPY')
  // 1500 × 0.0481 = 72.15 CNY.
  assert.equal(await page.locator('.charged').textContent(), '¥72.15\u00a0CNY · 1 JPY = 0.0481 CNY')
  await screenshot(page, 'wechat-global-receipt-jpy-phone')

  const live = { key: w.ta.merchant.liveKey }
  const session = (await w.ta.request('GET', `/api/v1/sessions/${s.id}`, live)).body
  assert.deepEqual(session.record.charged, { amount: 7215, currency: 'CNY', rate: '0.0481' })
  const refund = await w.ta.request('POST', '/api/v1/refunds', { ...live, body: { recordId: session.record.id, amount: 500 } })
  assert.equal(refund.status, 200, JSON.stringify(refund.body))
  await w.ctl.tick()
  await page.reload()
  assert.match((await page.locator('dl.facts').textContent())!, /Refunded\s*¥500/)
  const over = await w.ta.request('POST', '/api/v1/refunds', { ...live, body: { recordId: session.record.id, amount: 1001 } })
  assert.deepEqual([over.status, over.body], [400, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 1000 }])
  assert.deepEqual(problems, [])
})
