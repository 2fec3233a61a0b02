/**
 * A payment link in a real browser (docs/integrate.md#payment-links): a buyer opens /l/{id}, enters
 * an amount, pays through the mock on the checkout page, and the webhook carries the link's id.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { deliverDue } from '../../src/jobs/outbox.js'
import { startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, screenshot } from '../helpers/browser.js'
import { createEndpoint, startReceiver } from '../helpers/receiver.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

test('a buyer enters an amount on the link\'s page, pays, and payment.succeeded carries the link\'s id and metadata', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  await createEndpoint(ta, rx.url, { events: ['payment.succeeded'] })
  const link = (await ta.request('POST', '/api/v1/payment_links', {
    key: ta.merchant.testKey, body: { minAmount: 100, maxAmount: 100_000, currency: 'CNY', description: 'Tip jar', metadata: { jar: 'front' } },
  })).body
  const { page, problems } = await openPage(t, browser, DESKTOP)
  await page.goto(link.url)
  assert.equal(await page.locator('h1').textContent(), 'Pay Acme')
  await page.getByLabel('Amount to pay (CNY)').fill('12.34')
  await screenshot(page, 'browser-payment-link-desktop-en')
  await Promise.all([page.waitForURL('**/c/sess_*'), page.getByRole('button', { name: 'Continue to payment' }).click()])
  assert.equal(await page.locator('.amount-value').textContent(), '¥12.34\u00a0CNY')
  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: 'Pay ¥12.34' }).click()])
  assert.deepEqual(problems, [], 'no CSP violation or script error')

  await deliverDue(ta.deps)
  const [hook] = await rx.received(1)
  assert.equal(hook.json.type, 'payment.succeeded')
  assert.equal(hook.json.data.paymentLinkId, link.id)
  assert.equal(hook.json.data.amount, 1234)
  assert.deepEqual(hook.json.data.metadata, { jar: 'front' })
})
