/**
 * The merchant's time zone (console Settings) on the buyer's pages: the server writes the checkout's
 * expiry and the receipt's time in it, so a browser without the script never reads bare UTC; the
 * buyer's own zone still wins where the script runs (issue #40 §4).
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { updateBuyerSettings } from '../../src/services/buyer-settings.js'
import { startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage } from '../helpers/browser.js'
import { createSession } from '../helpers/store-queries.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

test('a merchant in Shanghai: without the script the pages say Shanghai time, with it the buyer\'s own (London)', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  await updateBuyerSettings(ta.deps, ta.merchant.id, { receiptEmails: true, refundEmails: true, timeZone: 'Asia/Shanghai' })
  const s = await createSession(ta, { amount: 9900, currency: 'CNY', expiresInSeconds: 3600 })

  const { page: plain } = await openPage(t, browser, { ...DESKTOP, timezoneId: 'Europe/London', javaScriptEnabled: false })
  await plain.goto(s.url)
  assert.equal(await plain.locator('.timer time').textContent(), 'Nov 21, 2026, 18:30\u00a0GMT+8')

  const { page, problems } = await openPage(t, browser, { ...DESKTOP, timezoneId: 'Europe/London' })
  await page.goto(s.url)
  assert.equal(await page.locator('.timer time').textContent(), 'Nov 21, 2026, 10:30\u00a0GMT')
  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: 'Pay ¥99.00 CNY' }).click()])
  assert.equal(await page.locator('time').textContent(), 'Nov 21, 2026, 09:30\u00a0GMT')
  assert.deepEqual(problems, [])

  await plain.goto(page.url())
  assert.equal(await plain.locator('time').textContent(), 'Nov 21, 2026, 17:30\u00a0GMT+8')
})
