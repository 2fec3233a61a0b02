/**
 * What a customer far from UTC reads (issue #12 §6): times in their own zone when the script runs
 * (UTC written out when it does not), amounts that tell yuan from yen, the receipt after a partial
 * refund, and a test-mode banner that speaks of buttons only where there are some. In Hong Kong and
 * Japan, in their languages (issue #40 §4); the console's times in the merchant's own zone.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { paidSession, startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
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
  await page.locator('.amount-refunded').waitFor()
  await screenshot(page, 'browser-receipt-partial-refund-phone-zh')
  assert.deepEqual(problems, [])
})

test('in Hong Kong, in Traditional Chinese: the checkout expiry and the receipt time are Hong Kong times, with no brackets left around the zone', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const s = await createSession(ta, { amount: 8800, currency: 'HKD', expiresInSeconds: 3600 })
  const { page, problems } = await openPage(t, browser, { ...PHONE, locale: 'zh-HK', timezoneId: 'Asia/Hong_Kong' })
  await page.goto(s.url)
  // Intl writes Hong Kong's zone in brackets after the time ("17:30 [GMT+8]"): the zone moves behind a no-break space, the brackets go.
  assert.equal(await page.locator('.timer time').textContent(), '2026年11月21日 18:30\u00a0GMT+8')
  assert.equal(await page.locator('.amount-value').textContent(), 'HK$88.00')
  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: '支付 HK$88.00' }).click()])
  assert.equal(await page.locator('time').textContent(), '2026年11月21日 17:30\u00a0GMT+8')
  await screenshot(page, 'browser-receipt-hong-kong-zh-HK')
  assert.deepEqual(problems, [])
})

test('in Tokyo, in Japanese: yen without its code, and the receipt time in Japan Standard Time', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const paid = await paidSession(ta, { amount: 1500, currency: 'JPY' })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, locale: 'ja-JP', timezoneId: 'Asia/Tokyo' })
  await page.goto(`${ta.baseUrl}/r/${paid.record.id}`)
  assert.equal(await page.locator('html').getAttribute('lang'), 'ja')
  assert.equal(await page.locator('time').textContent(), '2026年11月21日 18:30\u00a0JST')
  assert.equal(await page.locator('.amount-big').textContent(), '¥1,500')
  assert.deepEqual(problems, [])
})

test('the console writes its times in the reader\'s zone once the browser has told it (at sign-in), in UTC for a browser without the script', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const m = await merchantWithLogin(ta, 'Blue Mugs')
  const paid = await paidSession({ ...ta, merchant: m }, { amount: 1500, currency: 'JPY' })
  const signIn = async (page: Page) => {
    await page.goto(`${ta.baseUrl}/console/login`)
    await page.getByLabel('Email').fill(m.email)
    await page.getByLabel('Password').fill(m.password)
    await Promise.all([page.waitForURL('**/console/test/payments'), page.getByRole('button', { name: 'Sign in' }).click()])
  }
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, timezoneId: 'Asia/Tokyo' })
  await signIn(page)
  // The list right after signing in is already in Tokyo time: the sign-in page's script told the zone.
  assert.equal(await page.locator(`tr:has(a[href$="${paid.id}"]) td[data-label="Created"]`).textContent(), 'Nov 21, 2026, 18:30\u00a0GMT+9')
  await page.goto(`${ta.baseUrl}/console/test/payments/${paid.id}?lang=ja`)
  assert.equal(await page.locator('dt:text-is("支払い日時") + dd').textContent(), '2026年11月21日 18:30\u00a0JST')
  assert.deepEqual(problems, [])

  const { page: plain } = await openPage(t, browser, { ...DESKTOP, timezoneId: 'Asia/Tokyo', javaScriptEnabled: false })
  await signIn(plain)
  await plain.goto(`${ta.baseUrl}/console/test/payments/${paid.id}`)
  assert.equal(await plain.locator('dt:text-is("Paid") + dd').textContent(), 'Nov 21, 2026, 09:30\u00a0UTC')
})
