/**
 * A customer paying with Alipay in Chromium, live mode against `till fake alipay`: the desktop QR
 * code paid from a "phone" while the page moves on by itself, Alipay's cashier page on a desktop
 * configured for it, and the mobile cashier on a phone viewport; each ends at successUrl with
 * paid_confirmed=1. Then the merchant refunds part and the rest in the console, and a session left
 * to expire has its Alipay order closed.
 */
import assert from 'node:assert/strict'
import { after, before, test, type TestContext } from 'node:test'
import type { Browser } from 'playwright-core'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { expireDue } from '../../src/services/sessions.js'
import { alipayWithApps } from '../helpers/alipay.js'
import { tillCredentials } from '../helpers/alipay-till.js'
import { startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, merchantSite, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
import { UA } from '../helpers/wechat.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

/** A merchant with a console login and an Alipay configuration at the fake; its sessions, and their attempts. */
async function shop(t: TestContext, settings: Record<string, unknown> = {}) {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, 'Blue Mugs')
  const { fake, ctl, apps } = await alipayWithApps(t, { clock: ta.clock })
  const res = await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'alipay', label: 'main', credentials: tillCredentials(apps.publicKey), settings: { apiBase: fake.url, ...settings } })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  const session = async (body: Record<string, unknown> = {}) => {
    const created = await ta.request('POST', '/api/v1/checkout', { key: m.liveKey, body: { amount: 8888, currency: 'CNY', description: 'Blue mug', ...body } })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    return created.body as { id: string; url: string }
  }
  const attemptOf = async (sessionId: string) => (await ta.database.pool.query('select id from attempts where session_id = $1 order by created_at desc, id limit 1', [sessionId])).rows[0].id as string
  const read = async (id: string) => (await ta.request('GET', `/api/v1/sessions/${id}`, { key: m.liveKey })).body
  /** The attempt that paid: a customer may have tried more than once (created in the same frozen instant). */
  const paidAttemptOf = async (sessionId: string) => (await ta.database.pool.query('select attempt_id from records where session_id = $1', [sessionId])).rows[0].attempt_id as string
  return { ta, m, fake, ctl, session, attemptOf, paidAttemptOf, read }
}

const paidConfirmed = (visit: URL, sessionId: string) => {
  assert.equal(visit.searchParams.get('session_id'), sessionId)
  assert.equal(visit.searchParams.get('paid_confirmed'), '1')
  assert.match(visit.searchParams.get('record_id')!, /^rec_[0-9A-Za-z]{24}$/)
}

test('desktop: the QR code, paid from a phone, and the page moves on by itself to successUrl with paid_confirmed=1', async (t) => {
  const s = await shop(t)
  const merchant = await merchantSite(t, { tls: true })
  const session = await s.session({ successUrl: `${merchant.origin}/thanks?order=42` })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop, ignoreHTTPSErrors: true })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with Alipay' }).click()])
  assert.equal(await page.locator('h1').textContent(), 'Scan this code with Alipay to pay')
  assert.equal(await page.locator('.qr-help').textContent(), 'Open Alipay on your phone, tap Scan, and point the camera at this code.')
  await screenshot(page, 'alipay-qr-desktop-en')

  // The phone scans the code (the fake's scan page) and pays; nobody touches the first page.
  const qrCode = (await s.ctl.order(await s.attemptOf(session.id))).qr_code as string
  const phone = await openPage(t, browser, PHONE)
  await phone.page.goto(`${s.fake.url}/__fake/alipay/qr?qr_code=${encodeURIComponent(qrCode)}`)
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), phone.page.locator('#pay').click()])
  paidConfirmed(merchant.visits[0], session.id)
  assert.equal(merchant.visits[0].searchParams.get('order'), '42')
  assert.deepEqual(problems, [], 'no CSP violation or script error')
})

test('desktop with settings.desktop page: Alipay\'s cashier page, paid, back through the relay to successUrl with paid_confirmed=1', async (t) => {
  const s = await shop(t, { desktop: 'page' })
  const merchant = await merchantSite(t, { tls: true })
  const session = await s.session({ successUrl: `${merchant.origin}/thanks` })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop, ignoreHTTPSErrors: true })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`${s.fake.url}/__fake/alipay/cashier/**`), page.getByRole('button', { name: 'Pay with Alipay' }).click()])
  assert.equal(await page.locator('#amount').textContent(), '¥88.88')
  await screenshot(page, 'alipay-page-cashier-desktop')
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), page.locator('#pay').click()])
  paidConfirmed(merchant.visits[0], session.id)
  assert.equal((await s.ctl.order(await s.attemptOf(session.id))).product, 'page')
  assert.deepEqual(problems, [])
})

test('phone: the mobile cashier (wap), paid, back to successUrl with paid_confirmed=1; then a partial and a full refund in the console', async (t) => {
  const s = await shop(t)
  const merchant = await merchantSite(t, { tls: true })
  const session = await s.session({ successUrl: `${merchant.origin}/thanks` })
  const { page, problems } = await openPage(t, browser, { ...PHONE, userAgent: UA.phone, locale: 'zh-CN', ignoreHTTPSErrors: true })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`${s.fake.url}/__fake/alipay/cashier/**`), page.getByRole('button', { name: '支付宝' }).click()])
  await screenshot(page, 'alipay-wap-cashier-phone')
  // Leaving the mobile cashier unpaid (wap.pay's quit_url) comes back to the checkout page; the customer tries again.
  await Promise.all([page.waitForURL(session.url), page.locator('#cancel').click()])
  await Promise.all([page.waitForURL(`${s.fake.url}/__fake/alipay/cashier/**`), page.getByRole('button', { name: '支付宝' }).click()])
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), page.locator('#pay').click()])
  paidConfirmed(merchant.visits[0], session.id)
  const attemptId = await s.paidAttemptOf(session.id)
  assert.equal((await s.ctl.order(attemptId)).product, 'wap')
  assert.deepEqual(problems, [])

  // The merchant refunds 10.00, then the rest, from the console.
  const desk = await openPage(t, browser, DESKTOP)
  await desk.page.goto(`${s.ta.baseUrl}/console`)
  await desk.page.getByLabel('Email').fill(s.m.email)
  await desk.page.getByLabel('Password').fill(s.m.password)
  await Promise.all([desk.page.waitForURL('**/console/test/payments'), desk.page.getByRole('button', { name: 'Sign in' }).click()])
  for (const [amount, shown] of [['10.00', '¥10\\.00'], ['78.88', '¥78\\.88']]) {
    await desk.page.goto(`${s.ta.baseUrl}/console/live/payments/${session.id}`)
    await desk.page.getByLabel('Amount to refund (CNY)').fill(amount)
    await desk.page.getByRole('button', { name: 'Review refund' }).click()
    await desk.page.getByRole('button', { name: `Refund ${shown.replace('\\', '')}\u00a0CNY` }).click()
    await desk.page.getByText(new RegExp(`Refund ref_\\w+: ${shown}\u00a0CNY, Succeeded\\.`)).waitFor()
  }
  await screenshot(desk.page, 'alipay-refunded-console')
  const read = await s.read(session.id)
  assert.deepEqual([read.status, read.record.status, read.record.refundedAmount], ['refunded', 'refunded', 8888])
  const order = await s.ctl.order(attemptId)
  assert.deepEqual(order.refunds.map((r: { refund_amount: string }) => r.refund_amount), ['10.00', '78.88'])
  assert.equal(order.trade_status, 'TRADE_CLOSED')
  assert.deepEqual(desk.problems, [])
})

test('a session left to expire: its page says so, and its Alipay order is closed with it', async (t) => {
  const s = await shop(t, { desktop: 'page' })
  const session = await s.session({ expiresInSeconds: 60 })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`${s.fake.url}/__fake/alipay/cashier/**`), page.getByRole('button', { name: 'Pay with Alipay' }).click()])
  // The customer logs in on the cashier (the trade exists at Alipay) and walks away.
  await Promise.all([page.waitForURL(`${s.fake.url}/__fake/alipay/cashier/**`), page.locator('#login').click()])
  const attemptId = await s.attemptOf(session.id)
  const open = await s.ctl.order(attemptId)
  assert.equal(open.trade_status, 'WAIT_BUYER_PAY')
  // The order's time_expire is the session's expiry (Beijing time): Alipay closes it then, and Till's reconciliation sees it.
  const expiresAt = new Date((await s.read(session.id)).expiresAt)
  assert.equal(open.time_expire, new Date(expiresAt.getTime() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' '))

  s.ta.clock.advance(61_000)
  assert.equal(await expireDue(s.ta.deps), 1)
  assert.equal(await reconcileAttempts(s.ta.deps), 1)
  assert.equal((await s.ctl.order(attemptId)).trade_status, 'TRADE_CLOSED')
  assert.equal((await s.read(session.id)).status, 'expired')
  await page.goto(session.url)
  assert.equal(await page.locator('h1').textContent(), 'This checkout has expired')
  // Back on the cashier, the order cannot be paid any more.
  await page.goBack()
  await page.reload()
  assert.equal(await page.locator('#pay').count(), 0)
  assert.equal(await page.locator('#closed').count(), 1)
  assert.deepEqual(problems, [])
})
