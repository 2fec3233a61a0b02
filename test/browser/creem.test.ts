/**
 * Live mode in a real browser with Creem (issue #7 §8): the customer opens /c/<id>, picks Creem, is
 * taken to the fake's hosted page, pays with 4242 4242 4242 4242, comes back through the relay
 * with Creem's signed parameters, and lands on the merchant's https successUrl with
 * paid_confirmed=1 and record_id. Then the same with the webhook lost, where the signed return
 * makes Till ask Creem; and a declined card first.
 */
import assert from 'node:assert/strict'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { after, before, test, type TestContext } from 'node:test'
import type { Browser } from 'playwright-core'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { creemTill } from '../helpers/creem-till.js'
import { TEST_TLS } from '../helpers/receiver.js'

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
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><title>Shop</title><h1>Thanks from the shop</h1>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, visits }
}

async function scenario(t: TestContext, opts: { dropWebhook: boolean; viewport: typeof DESKTOP; shots: string }) {
  const c = await creemTill(t)
  const shop = await httpsShop(t)
  if (opts.dropWebhook) await c.ctl.notifications({ mode: 'drop', persist: true })
  const id = await c.session({ successUrl: `${shop.origin}/thanks?order=42` })
  const { page, problems } = await openPage(t, browser, { ...opts.viewport, ignoreHTTPSErrors: true })
  await page.goto(`${c.ta.baseUrl}/c/${id}`)
  assert.equal(await page.locator('.amount-value').textContent(), '€12.34\u00a0EUR')
  await screenshot(page, `creem-${opts.shots}-checkout`)
  await Promise.all([page.waitForURL(`${c.fake.url}/test/checkout/**`), page.getByRole('button', { name: 'Pay with Creem' }).click()])
  assert.equal(await page.locator('.amount').textContent(), '€12.34')

  // A declined card first: the page says so and nothing is paid.
  await page.getByLabel('Card number').fill('4000 0000 0000 0002')
  await page.getByRole('button', { name: 'Pay €12.34' }).click()
  assert.equal(await page.getByRole('alert').textContent(), 'Your card was declined.')
  assert.equal((await c.read(id)).status, 'processing')
  await screenshot(page, `creem-${opts.shots}-declined`)

  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await Promise.all([page.waitForURL(`${shop.origin}/thanks?**`), page.getByRole('button', { name: 'Pay €12.34' }).click()])
  await screenshot(page, `creem-${opts.shots}-shop`)
  const s = await c.read(id)
  assert.equal(s.status, 'paid')
  assert.equal(shop.visits.length, 1)
  assert.deepEqual([...shop.visits[0].searchParams], [['order', '42'], ['session_id', id], ['record_id', s.record.id], ['paid_confirmed', '1']])
  assert.equal(page.url(), shop.visits[0].toString())
  assert.deepEqual(problems, [], 'no CSP violation or script error')
  return { c, id, recordId: s.record.id as string }
}

test('Creem in a browser: pick Creem, pay on its page, back through the relay to successUrl with paid_confirmed=1', async (t) => {
  const { c, id, recordId } = await scenario(t, { dropWebhook: false, viewport: DESKTOP, shots: 'desktop' })
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.eventType, d.status]), [['checkout.completed', 200]])
  // The merchant refunds it: pending until refund.created.
  const refund = await c.refund(recordId)
  assert.equal(refund.body.refund.status, 'pending')
  await c.ctl.tick()
  assert.equal((await c.read(id)).status, 'refunded')
})

test('Creem in a browser with the webhook lost: the signed return makes Till ask Creem, on a phone', async (t) => {
  const { c } = await scenario(t, { dropWebhook: true, viewport: PHONE, shots: 'phone' })
  assert.deepEqual((await c.ctl.deliveries()).map((d) => d.status), [null])
  assert.equal((await c.ctl.requests()).filter((r) => r.method === 'GET' && r.path.startsWith('/v1/checkouts')).length, 1)
})
