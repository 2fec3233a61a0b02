/**
 * Live mode in Chromium with Stripe: the customer opens /c/<id>, picks Stripe, is taken to the
 * fake's hosted Checkout page, pays by card and comes back through the relay to the merchant's
 * successUrl with paid_confirmed=1. A declined card then a retry, a 3-D Secure challenge, Cancel
 * back to Till's checkout page, a JPY session on a phone, expiry, and refunds afterwards.
 */
import assert from 'node:assert/strict'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { after, before, test, type TestContext } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { expireDue } from '../../src/services/sessions.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { TEST_TLS } from '../helpers/receiver.js'
import { stripeTill } from '../helpers/stripe-till.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

/** The merchant's site over https (live mode requires it), with the test certificate. */
async function httpsShop(t: TestContext) {
  const visits: URL[] = []
  const server = https.createServer(TEST_TLS, (req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end()
    visits.push(new URL(req.url ?? '/', `https://${req.headers.host}`))
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Shop</title><h1>Thanks from the shop</h1>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, visits }
}

async function toStripe(t: TestContext, session: Record<string, unknown> = {}, viewport = DESKTOP) {
  const c = await stripeTill(t)
  const shop = await httpsShop(t)
  const id = await c.session({ successUrl: `${shop.origin}/thanks?order=42`, ...session })
  const { page, problems } = await openPage(t, browser, { ...viewport, ignoreHTTPSErrors: true })
  await page.goto(`${c.ta.baseUrl}/c/${id}`)
  await Promise.all([page.waitForURL(`${c.fake.url}/c/pay/**`), page.getByRole('button', { name: 'Pay with Stripe' }).click()])
  return { c, shop, id, page, problems }
}

async function payAndLand(page: Page, shopOrigin: string, card: string) {
  await page.getByLabel('Card number').fill(card)
  await Promise.all([page.waitForURL(`${shopOrigin}/thanks?**`), page.getByRole('button', { name: 'Pay', exact: true }).click()])
}

test('Stripe in a browser: a declined card, then 4242 pays; back through the relay with paid_confirmed=1; then a partial and a full refund', async (t) => {
  const { c, shop, id, page, problems } = await toStripe(t)
  assert.equal(await page.locator('.amount').textContent(), 'HK$12.34')
  await page.getByLabel('Card number').fill('4000 0000 0000 0002')
  await page.getByRole('button', { name: 'Pay', exact: true }).click()
  assert.equal(await page.getByRole('alert').textContent(), 'Your card was declined.')
  assert.equal((await c.read(id)).status, 'processing')
  await screenshot(page, 'stripe-declined')

  await payAndLand(page, shop.origin, '4242 4242 4242 4242')
  const s = await c.read(id)
  assert.equal(s.status, 'paid')
  assert.deepEqual([...shop.visits[0].searchParams], [['order', '42'], ['session_id', id], ['record_id', s.record.id], ['paid_confirmed', '1']])
  assert.deepEqual(problems, [], 'no CSP violation or script error')

  assert.equal((await c.refund(s.record.id, 234)).body.refund.status, 'succeeded')
  const rest = await c.refund(s.record.id)
  assert.deepEqual([rest.body.refund.amount, rest.body.status], [1000, 'refunded'])
  assert.equal((await c.read(id)).status, 'refunded')
})

test('Stripe in a browser: the 3-D Secure card shows its challenge; Fail keeps the session unpaid, Complete pays', async (t) => {
  const { c, shop, id, page } = await toStripe(t)
  await page.getByLabel('Card number').fill('4000 0027 6000 3184')
  await Promise.all([page.waitForURL('**/3ds'), page.getByRole('button', { name: 'Pay', exact: true }).click()])
  await screenshot(page, 'stripe-3ds')
  await page.getByRole('button', { name: 'Fail' }).click()
  assert.match(String(await page.getByRole('alert').textContent()), /unable to authenticate/)
  assert.equal((await c.read(id)).status, 'processing')
  await page.getByLabel('Card number').fill('4000 0027 6000 3184')
  await Promise.all([page.waitForURL('**/3ds'), page.getByRole('button', { name: 'Pay', exact: true }).click()])
  await Promise.all([page.waitForURL(`${shop.origin}/thanks?**`), page.getByRole('button', { name: 'Complete' }).click()])
  assert.equal((await c.read(id)).status, 'paid')
})

test('Stripe in a browser: Cancel goes back to Till\'s checkout page, where Stripe can be picked again and paid', async (t) => {
  const { c, shop, id, page } = await toStripe(t)
  await Promise.all([page.waitForURL(`${c.ta.baseUrl}/c/${id}`), page.getByRole('link', { name: /Cancel/ }).click()])
  assert.notEqual((await c.read(id)).status, 'paid')
  await Promise.all([page.waitForURL(`${c.fake.url}/c/pay/**`), page.getByRole('button', { name: 'Pay with Stripe' }).click()])
  await payAndLand(page, shop.origin, '4242424242424242')
  assert.equal((await c.read(id)).status, 'paid')
})

test('Stripe in a browser on a phone: a JPY session, ¥1,500, paid', async (t) => {
  const { c, shop, id, page } = await toStripe(t, { amount: 1500, currency: 'JPY' }, PHONE)
  assert.equal(await page.locator('.amount').textContent(), '¥1,500')
  await payAndLand(page, shop.origin, '4242 4242 4242 4242')
  const s = await c.read(id)
  assert.deepEqual([s.status, s.record.amount], ['paid', 1500])
})

test('Stripe in a browser: when Till\'s session expires, Stripe\'s page stops taking the card', async (t) => {
  const { c, id, page } = await toStripe(t, { expiresInSeconds: 60 })
  c.ta.clock.advance(61_000)
  assert.equal(await expireDue(c.ta.deps), 1)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  await page.reload()
  assert.equal(await page.locator('h1').textContent(), 'This Checkout Session has expired')
  assert.equal((await c.read(id)).status, 'expired')
})
