/**
 * What a customer far from UTC reads (issue #12 §6): times in their own zone when the script runs
 * (UTC written out when it does not), amounts that tell yuan from yen, the receipt after a partial
 * refund, and a test-mode banner that speaks of buttons only where there are some.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { paidSession, startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { createSession } from '../helpers/store-queries.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

test('in Tokyo the checkout expiry and the receipt time are Tokyo times; without the script, UTC', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const s = await createSession(ta, { amount: 1500, currency: 'JPY', expiresInSeconds: 3600 })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, timezoneId: 'Asia/Tokyo' })
  await page.goto(s.url)
  assert.equal(await page.locator('.timer time').getAttribute('datetime'), '2026-11-21T10:30:00.000Z')
  assert.equal(await page.locator('.timer time').textContent(), 'Nov 21, 2026, 19:30\u00a0GMT+9')
  assert.equal(await page.locator('.amount-value').textContent(), '¥1,500\u00a0JPY')
  assert.match((await page.locator('.test-banner').textContent())!, /The buttons below act as the customer/)

  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: 'Pay ¥1,500 JPY' }).click()])
  assert.equal(await page.locator('time').textContent(), 'Nov 21, 2026, 18:30\u00a0GMT+9')
  // The receipt has no buttons: the banner does not send the customer looking for any.
  assert.equal(await page.locator('.test-banner').textContent(), 'TEST MODENo real money moves.')
  await screenshot(page, 'browser-receipt-tokyo-en')
  assert.deepEqual(problems, [])

  const { page: plain } = await openPage(t, browser, { ...DESKTOP, timezoneId: 'Asia/Tokyo', javaScriptEnabled: false })
  await plain.goto(page.url())
  assert.equal(await plain.locator('time').textContent(), 'Nov 21, 2026, 09:30\u00a0UTC')
})

test('in Shanghai, in Chinese: yuan marked as CNY, Shanghai time with the zone after it, and a partial refund in the headline', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY' })
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 1000 } })
  assert.equal(refund.status, 200)
  const { page, problems } = await openPage(t, browser, { ...PHONE, locale: 'zh-CN', timezoneId: 'Asia/Shanghai' })
  await page.goto(`${ta.baseUrl}/r/${paid.record.id}`)
  // The zone after the time, as a Chinese reader writes it (Intl puts it before), and never on a line of its own.
  assert.equal(await page.locator('time').textContent(), '2026年11月21日 17:30\u00a0GMT+8')
  assert.equal(await page.locator('.amount-paid').textContent(), '已付 ¥99.00\u00a0CNY')
  assert.equal(await page.locator('.amount-refunded').textContent(), '已退 ¥10.00\u00a0CNY')
  assert.ok(await page.locator('.amount-refunded').isVisible())
  await screenshot(page, 'browser-receipt-partial-refund-phone-zh')
  assert.deepEqual(problems, [])
})
