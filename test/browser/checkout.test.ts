/**
 * The customer's paths through the hosted pages in a real browser (issue #3 §8): pay and arrive at
 * successUrl, pay without successUrl and see the receipt, cancel, fail, expiry (with the countdown),
 * a phone, Chinese, keyboard order, and the same forms with JavaScript off.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, merchantSite, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { createSession } from '../helpers/store-queries.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const lookup = async (ta: Awaited<ReturnType<typeof startTestApp>>, id: string) =>
  (await ta.request('GET', `/api/v1/sessions/${id}`, { key: ta.merchant.testKey })).body

test('Pay on the test page arrives at successUrl with session_id, record_id and paid_confirmed=1', async (t) => {
  const ta = await startTestApp(t)
  const merchant = await merchantSite(t)
  const s = await createSession(ta, { amount: 9900, currency: 'CNY', description: 'Blue mug', successUrl: `${merchant.origin}/thanks?order=42` })
  const { page, problems } = await openPage(t, browser, DESKTOP)
  await page.goto(s.url)
  assert.equal(await page.locator('h1').textContent(), 'Pay Acme')
  assert.equal(await page.locator('.amount-value').textContent(), '¥99.00\u00a0CNY')
  await page.locator('.test-banner').waitFor()
  await page.getByRole('radio', { name: 'Stay pending, then settle' }).check()
  await screenshot(page, 'browser-pay-before-desktop-en')
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), page.getByRole('button', { name: 'Pay ¥99.00' }).click()])

  const session = await lookup(ta, s.id)
  assert.equal(session.status, 'paid')
  assert.equal(merchant.visits.length, 1)
  const arrived = merchant.visits[0]
  assert.equal(arrived.pathname, '/thanks')
  assert.deepEqual([...arrived.searchParams], [['order', '42'], ['session_id', s.id], ['record_id', session.record.id], ['paid_confirmed', '1']])
  assert.equal(page.url(), arrived.toString())
  // The refund behaviour picked on the page rode along with the payment.
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: session.record.id } })
  assert.equal(refund.body.refund.status, 'pending')
  assert.deepEqual(problems, [], 'no CSP violation or script error')

  // Back to the checkout URL afterwards: only the result, linking to the receipt.
  await page.goto(s.url)
  assert.equal(await page.locator('#result-title').textContent(), 'Payment received')
  assert.equal(await page.locator('form').count(), 0)
  await page.getByRole('link', { name: 'View receipt' }).click()
  await page.waitForURL(`**/r/${session.record.id}`)
  assert.equal(await page.locator('h1').textContent(), 'Receipt')
})

test('Pay without successUrl lands on the receipt', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1500, currency: 'JPY', description: 'Matcha' })
  const { page, problems } = await openPage(t, browser, DESKTOP)
  await page.goto(s.url)
  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: 'Pay ¥1,500' }).click()])
  assert.equal(await page.locator('.amount-big').textContent(), '¥1,500\u00a0JPY')
  assert.equal(await page.locator('.status').textContent(), 'Paid')
  assert.equal((await lookup(ta, s.id)).status, 'paid')
  await screenshot(page, 'browser-receipt-desktop-en')
  assert.deepEqual(problems, [])
})

test('Cancel and return: back at successUrl with paid_confirmed=0 and no record_id', async (t) => {
  const ta = await startTestApp(t)
  const merchant = await merchantSite(t)
  const s = await createSession(ta, { amount: 2500, currency: 'USD', successUrl: `${merchant.origin}/back` })
  const { page, problems } = await openPage(t, browser, DESKTOP)
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`${merchant.origin}/back?**`), page.getByRole('button', { name: 'Cancel and return' }).click()])
  assert.deepEqual([...merchant.visits[0].searchParams], [['session_id', s.id], ['paid_confirmed', '0']])
  assert.equal((await lookup(ta, s.id)).status, 'canceled')
  await page.goto(s.url)
  assert.equal(await page.locator('#result-title').textContent(), 'Payment canceled')
  assert.equal(await page.locator('form').count(), 0)
  await screenshot(page, 'browser-canceled-desktop-en')
  assert.deepEqual(problems, [])
})

test('with cancelUrl, Cancel and return arrives there; a failed payment, without JavaScript, links back to the successUrl\'s site', async (t) => {
  const ta = await startTestApp(t)
  const merchant = await merchantSite(t)
  const s = await createSession(ta, { amount: 2500, currency: 'USD', successUrl: `${merchant.origin}/thanks`, cancelUrl: `${merchant.origin}/cart?order=7` })
  const { page, problems } = await openPage(t, browser, PHONE)
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`${merchant.origin}/cart?**`), page.getByRole('button', { name: 'Cancel and return' }).click()])
  assert.deepEqual([...merchant.visits[0].searchParams], [['order', '7'], ['session_id', s.id]])
  assert.deepEqual(problems, [], 'no CSP violation on the way')

  const failed = await createSession(ta, { amount: 2500, currency: 'USD', successUrl: `${merchant.origin}/thanks` })
  const noJs = await openPage(t, browser, { ...PHONE, javaScriptEnabled: false })
  await noJs.page.goto(failed.url)
  await Promise.all([noJs.page.waitForURL(failed.url), noJs.page.getByRole('button', { name: 'Simulate a failed payment' }).click()])
  assert.equal(await noJs.page.locator('#result-title').textContent(), 'Payment failed')
  await screenshot(noJs.page, 'browser-failed-way-back-phone-en')
  await Promise.all([noJs.page.waitForURL(`${merchant.origin}/`), noJs.page.getByRole('link', { name: 'Return to Acme' }).click()])
  assert.equal(merchant.visits[1].pathname, '/')
})

test('Simulate a failed payment: the page shows the failure and nothing to pay with', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 2500, currency: 'EUR' })
  const { page } = await openPage(t, browser, DESKTOP)
  await page.goto(s.url)
  await Promise.all([page.waitForURL(s.url), page.getByRole('button', { name: 'Simulate a failed payment' }).click()])
  assert.equal(await page.locator('#result-title').textContent(), 'Payment failed')
  assert.equal(await page.getByRole('button').count(), 0)
  assert.equal((await lookup(ta, s.id)).status, 'failed')
})

test('an expired session shows only that it expired; the countdown reaching zero brings the page there by itself', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 9900, currency: 'CNY', expiresInSeconds: 60 })
  ta.clock.advance(58_000) // two seconds left
  const { page, problems } = await openPage(t, browser, PHONE)
  // As served: the script ticks it down from a second after the page is read, which on a busy machine
  // may come before the page's text could be read back.
  const served = await (await page.goto(s.url))!.text()
  assert.match(served, /role="timer"[^>]*>0:02</)
  await page.locator('[role="timer"]', { hasText: 'Expired' }).waitFor()
  ta.clock.advance(10_000) // the server's clock has passed expiresAt too
  await page.locator('#result-title').waitFor()
  assert.equal(await page.locator('#result-title').textContent(), 'This checkout has expired')
  assert.equal(await page.locator('form').count(), 0)
  assert.equal((await lookup(ta, s.id)).status, 'expired')
  await screenshot(page, 'browser-expired-phone-en')
  assert.deepEqual(problems, [])
})

test('on a 375 px phone nothing overflows sideways, the controls are thumb-sized, and paying works', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 99999999, currency: 'HKD', description: 'A rather long description that has to wrap nicely on a small phone screen without scrolling sideways' })
  const { page, problems } = await openPage(t, browser, PHONE)
  await page.goto(s.url)
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
  assert.ok(widths.scroll <= widths.client, `page is ${widths.scroll}px wide in a ${widths.client}px viewport`)
  for (const name of ['Pay $999,999.99 HKD', 'Simulate a failed payment', 'Cancel and return']) {
    const box = (await page.getByRole('button', { name }).boundingBox())!
    assert.ok(box.height >= 44, `${name} is ${box.height}px tall`)
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `${name} fits the screen`)
  }
  await screenshot(page, 'browser-checkout-phone-en')
  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: 'Pay $999,999.99 HKD' }).click()])
  await screenshot(page, 'browser-receipt-phone-en')
  assert.deepEqual(problems, [])
})

test('the Chinese page: chosen from the browser language, paid, receipt in Chinese, and switched back to English', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 9900, currency: 'CNY', description: '蓝色马克杯' })
  const { page, problems } = await openPage(t, browser, { ...PHONE, locale: 'zh-CN' })
  await page.goto(s.url)
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN')
  assert.equal(await page.locator('h1').textContent(), '向 Acme 付款')
  assert.equal(await page.locator('.test-banner strong').textContent(), '测试模式')
  await screenshot(page, 'browser-checkout-phone-zh')
  await Promise.all([page.waitForURL('**/r/rec_*'), page.getByRole('button', { name: '支付 ¥99.00' }).click()])
  assert.equal(await page.locator('h1').textContent(), '收据')
  assert.equal(await page.locator('.status').textContent(), '已支付')
  await screenshot(page, 'browser-receipt-phone-zh')
  await page.getByRole('link', { name: 'English' }).click()
  await page.waitForURL('**?lang=en')
  assert.equal(await page.locator('html').getAttribute('lang'), 'en')
  assert.equal(await page.locator('h1').textContent(), 'Receipt')
  // The choice sticks for the next page without ?lang=.
  await page.goto(s.url)
  assert.equal(await page.locator('#result-title').textContent(), 'Payment received')
  assert.deepEqual(problems, [])
})

test('the keyboard reaches everything in order, and every control has a name', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 9900, currency: 'CNY' })
  const { page } = await openPage(t, browser, DESKTOP)
  await page.goto(s.url)
  const order: string[] = []
  const outlines: string[] = []
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab')
    order.push(await page.evaluate(() => {
      const el = document.activeElement as HTMLElement
      return el.tagName === 'INPUT' ? `radio:${(el as HTMLInputElement).value}` : `${el.tagName.toLowerCase()}:${el.textContent}`
    }))
    outlines.push(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle))
  }
  // Radios are one tab stop; arrow keys move within the group.
  assert.deepEqual(order, ['a:English', 'a:简体中文', 'a:繁體中文', 'a:日本語', 'radio:succeed', 'button:Pay ¥99.00\u00a0CNY', 'button:Simulate a failed payment', 'button:Cancel and return'])
  assert.deepEqual(outlines, Array(8).fill('solid'), 'a visible focus ring on each')
  const unnamed = await page.evaluate(() => [...document.querySelectorAll('input:not([type=hidden]), button')].filter((el) => !(el.closest('label')?.textContent || el.textContent)?.trim()).length)
  assert.equal(unnamed, 0)
})

test('with JavaScript off, the forms still pay and the relay still returns to the merchant', async (t) => {
  const ta = await startTestApp(t)
  const merchant = await merchantSite(t)
  const s = await createSession(ta, { amount: 500, currency: 'USD', successUrl: `${merchant.origin}/ok` })
  const { page } = await openPage(t, browser, { ...DESKTOP, javaScriptEnabled: false })
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`${merchant.origin}/ok?**`), page.getByRole('button', { name: 'Pay $5.00' }).click()])
  assert.equal(merchant.visits[0].searchParams.get('paid_confirmed'), '1')
})
