/**
 * A buyer who taps one way to pay and comes back (Back to the checkout, "I have paid" without
 * paying, or the provider failing to start) is offered every way to pay again, in Chromium against
 * the fakes: WeChat Pay ↔ Alipay, and Creem ↔ WeChat Pay Global. The earlier attempt is closed at
 * its provider by reconciliation (Creem's checkout cannot be closed: only at Till); a payment that
 * still lands on it after the switch is recorded as `paid_twice`, and the session is paid once.
 */
import assert from 'node:assert/strict'
import { after, before, test, type TestContext } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { tillCredentials } from '../helpers/alipay-till.js'
import { alipayWithApps } from '../helpers/alipay.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, merchantSite, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { startCreem } from '../helpers/creem.js'
import { APP_SECRET, crossBorderSettings, startFake, UA } from '../helpers/wechat.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

async function addConfig(ta: TestApp, provider: string, credentials: object, settings: object) {
  const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider, label: 'main', credentials, settings })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body.id as string
}

/** A live merchant with WeChat Pay (mainland, or Global settling in `currency`) and Alipay or Creem, each at its fake. */
async function shop(t: TestContext, other: 'alipay' | 'creem') {
  const ta = await startTestApp(t)
  const wechat = await startFake(t, { clock: ta.clock })
  const currency = other === 'alipay' ? 'CNY' : 'EUR'
  const global = currency === 'CNY' ? {} : crossBorderSettings(currency)
  const mch = wechat.fake.addMerchant({ appSecret: APP_SECRET }, currency === 'CNY' ? {} : { service: 'cross_border', settlementCurrency: currency })
  await addConfig(ta, 'wechat', mch, { apiBase: wechat.fake.url, ...global })
  const alipay = other === 'alipay' ? await alipayWithApps(t, { clock: ta.clock }) : null
  if (alipay) await addConfig(ta, 'alipay', tillCredentials(alipay.apps.publicKey), { apiBase: alipay.fake.url })
  const creem = other === 'creem' ? await startCreem(t, { clock: ta.clock }) : null
  if (creem) {
    const creds = creem.fake.addAccount()
    const id = await addConfig(ta, 'creem', creds, { apiBase: creem.fake.url })
    await creem.ctl.registerWebhook(`${ta.baseUrl}/hooks/creem/${id}`, creds.apiKey)
  }
  const session = async (body: Record<string, unknown> = {}) => {
    const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: { amount: 9900, currency, description: 'Blue mug', ...body } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body as { id: string; url: string }
  }
  const q = async (sql: string, args: unknown[]) => (await ta.database.pool.query(sql, args)).rows
  /** The session's attempt with this provider (the newest). */
  const attempt = async (sessionId: string, provider: string) =>
    (await q('select id, status, provider_ref from attempts where session_id = $1 and provider = $2 order by created_at desc, id desc limit 1', [sessionId, provider]))[0] as { id: string; status: string; provider_ref: string | null }
  /** What the merchant's API and store say once the dust settles. */
  const outcome = async (sessionId: string) => ({
    status: (await ta.request('GET', `/api/v1/sessions/${sessionId}`, { key: ta.merchant.liveKey })).body.status,
    records: (await q('select provider from records where session_id = $1', [sessionId])).map((r) => r.provider),
    succeeded: (await q(`select count(*)::int as n from events where type = 'payment.succeeded' and data->>'sessionId' = $1`, [sessionId]))[0].n,
    paidTwice: (await q(`select provider from discrepancies where kind = 'paid_twice' and expected->>'sessionId' = $1`, [sessionId])).map((r) => r.provider),
  })
  return { ta, wechat, mchId: mch.mchId, alipay, creem, session, attempt, outcome, currency }
}

/** The ways to pay the checkout page offers now, by button text. */
const offered = async (page: Page) => (await page.locator('form.offers button > span:last-child').allTextContents()).map((s) => s.trim()).sort()

/** A phone scans WeChat Pay's QR code (the fake's scan page) and pays; the desktop page moves on by itself. */
async function payWechatQr(t: TestContext, s: Awaited<ReturnType<typeof shop>>, page: Page, sessionId: string) {
  const codeUrl = s.wechat.fake.store.order(s.mchId, (await s.attempt(sessionId, 'wechat')).id)!.codeUrl!
  const phone = await openPage(t, browser, PHONE)
  await phone.page.goto(`${s.wechat.fake.url}/__fake/wechat/scan?code_url=${encodeURIComponent(codeUrl)}`)
  await Promise.all([page.waitForURL('**/r/rec_*'), phone.page.locator('#pay').click()])
}

test('WeChat Pay ↔ Alipay: Back to the checkout from Alipay\'s QR offers both again; paid with WeChat Pay, the Alipay order (scanned, unpaid) is closed at Alipay', async (t) => {
  const s = await shop(t, 'alipay')
  const session = await s.session()
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop })
  await page.goto(session.url)
  assert.deepEqual(await offered(page), ['Pay with Alipay', 'Pay with WeChat Pay'])
  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with Alipay' }).click()])
  assert.equal(await page.locator('h1').textContent(), 'Scan this code with Alipay to pay')
  // The buyer scans it (the trade now exists at Alipay), changes their mind and goes back.
  await s.alipay!.ctl.scan({ out_trade_no: (await s.attempt(session.id, 'alipay')).id })
  await Promise.all([page.waitForURL(session.url), page.getByRole('link', { name: 'Back to the checkout' }).click()])
  assert.deepEqual(await offered(page), ['Pay with Alipay', 'Pay with WeChat Pay'], 'every way to pay, not only Alipay')
  await screenshot(page, 'change-of-mind-back-from-alipay')

  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  await payWechatQr(t, s, page, session.id)
  const alipayAttempt = await s.attempt(session.id, 'alipay')
  // Alipay's order still open: reconciliation closes it at Alipay.
  assert.equal((await s.alipay!.ctl.order(alipayAttempt.id)).trade_status, 'WAIT_BUYER_PAY')
  assert.equal(await reconcileAttempts(s.ta.deps), 1)
  assert.equal((await s.alipay!.ctl.order(alipayAttempt.id)).trade_status, 'TRADE_CLOSED')
  assert.equal((await s.attempt(session.id, 'alipay')).status, 'closed')
  assert.deepEqual(await s.outcome(session.id), { status: 'paid', records: ['wechat'], succeeded: 1, paidTwice: [] })
  assert.deepEqual(problems, [])
})

test('Alipay ↔ WeChat Pay, the race: "I have paid" without paying, Alipay picked and paid, then WeChat Pay\'s payment arrives: paid once, paid_twice recorded', async (t) => {
  const s = await shop(t, 'alipay')
  // Without a successUrl, the relay brings an unpaid customer back to the checkout page.
  const session = await s.session()
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  // "I have paid" without paying: the relay waits its few seconds, then the checkout page, waiting and offering both.
  await Promise.all([page.waitForURL(session.url, { timeout: 20_000 }), page.getByRole('link', { name: 'I have paid' }).click()])
  assert.match((await page.locator('.notice[role="status"]').textContent())!, /Waiting for WeChat Pay/)
  assert.deepEqual(await offered(page), ['Pay with Alipay', 'Pay with WeChat Pay'])

  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with Alipay' }).click()])
  const alipayAttempt = await s.attempt(session.id, 'alipay')
  const qrCode = (await s.alipay!.ctl.order(alipayAttempt.id)).qr_code as string
  const phone = await openPage(t, browser, PHONE)
  await phone.page.goto(`${s.alipay!.fake.url}/__fake/alipay/qr?qr_code=${encodeURIComponent(qrCode)}`)
  await Promise.all([page.waitForURL('**/r/rec_*'), phone.page.locator('#pay').click()])

  // The buyer's first payment, on WeChat Pay, lands after the switch (before reconciliation closed it).
  const wechatAttempt = await s.attempt(session.id, 'wechat')
  await s.wechat.ctl.pay({ out_trade_no: wechatAttempt.id })
  assert.deepEqual(await s.outcome(session.id), { status: 'paid', records: ['alipay'], succeeded: 1, paidTwice: ['wechat'] })
  assert.equal((await s.attempt(session.id, 'wechat')).status, 'succeeded')
  assert.deepEqual(problems, [])

  // The merchant sees the second payment on the payment's page, with what to do about it.
  const login = { email: 'owner@bluemugs.example', password: 'correct horse battery' }
  assert.equal((await s.ta.admin('POST', `/merchants/${s.ta.merchant.id}/password`, login)).status, 200)
  const desk = await openPage(t, browser, DESKTOP)
  await desk.page.goto(`${s.ta.baseUrl}/console/login`)
  await desk.page.getByLabel('Email').fill(login.email)
  await desk.page.getByLabel('Password').fill(login.password)
  await Promise.all([desk.page.waitForURL('**/console/test/payments'), desk.page.getByRole('button', { name: 'Sign in' }).click()])
  await desk.page.goto(`${s.ta.baseUrl}/console/live/payments/${session.id}`)
  const notice = desk.page.locator('.notice-warn')
  assert.equal(await notice.locator('strong').textContent(), 'A second payment arrived for this session')
  assert.match((await notice.locator('li').textContent())!, new RegExp(`^¥99\\.00\u00a0CNY through WeChat Pay \\(reference ${(await s.attempt(session.id, 'wechat')).provider_ref}\\), `))
  assert.match((await notice.textContent())!, /does not refund it by itself/)
  await screenshot(desk.page, 'console-paid-twice-desktop-en')
  assert.deepEqual(desk.problems, [])
})

test('Alipay failing to start shows one message, no waiting notice, and every way to pay; WeChat Pay then pays', async (t) => {
  const s = await shop(t, 'alipay')
  const session = await s.session()
  await s.alipay!.ctl.error({ route: 'precreate', status: 503 })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`**/c/${session.id}?failed=alipay`), page.getByRole('button', { name: 'Pay with Alipay' }).click()])
  assert.deepEqual(await page.locator('.controls .notice').allTextContents(), ['Alipay could not start the payment just now. Please try again, or choose another way to pay.'])
  assert.deepEqual(await offered(page), ['Pay with Alipay', 'Pay with WeChat Pay'])
  await screenshot(page, 'change-of-mind-alipay-failed')
  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  await payWechatQr(t, s, page, session.id)
  assert.deepEqual(await s.outcome(session.id), { status: 'paid', records: ['wechat'], succeeded: 1, paidTwice: [] })
  assert.deepEqual(problems, [])
})

test('Creem ↔ WeChat Pay Global: back from Creem\'s page, paid by WeChat Pay; Creem\'s checkout (which cannot be closed) paid afterwards is paid_twice', async (t) => {
  const s = await shop(t, 'creem')
  const session = await s.session()
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop })
  await page.goto(session.url)
  assert.deepEqual(await offered(page), ['Pay with Creem', 'Pay with WeChat Pay'])
  await Promise.all([page.waitForURL(`${s.creem!.fake.url}/test/checkout/**`), page.getByRole('button', { name: 'Pay with Creem' }).click()])
  await Promise.all([page.waitForURL(session.url), page.goBack()])
  await page.reload()
  assert.deepEqual(await offered(page), ['Pay with Creem', 'Pay with WeChat Pay'])
  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  await payWechatQr(t, s, page, session.id)

  // Reconciliation closes Creem's attempt at Till (Creem has no way to close a checkout); the buyer then pays it anyway.
  const creemAttempt = await s.attempt(session.id, 'creem')
  assert.equal(await reconcileAttempts(s.ta.deps), 1)
  assert.equal((await s.attempt(session.id, 'creem')).status, 'closed')
  await s.creem!.ctl.complete(creemAttempt.provider_ref!)
  assert.deepEqual(await s.outcome(session.id), { status: 'paid', records: ['wechat'], succeeded: 1, paidTwice: ['creem'] })
  assert.deepEqual(problems, [])
})

test('WeChat Pay Global ↔ Creem: back from the QR code, paid on Creem\'s page; the WeChat Pay order is closed', async (t) => {
  const s = await shop(t, 'creem')
  const merchant = await merchantSite(t, { tls: true })
  const session = await s.session({ successUrl: `${merchant.origin}/thanks` })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop, ignoreHTTPSErrors: true })
  await page.goto(session.url)
  await Promise.all([page.waitForURL(`**/c/${session.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  await Promise.all([page.waitForURL(session.url), page.getByRole('link', { name: 'Back to the checkout' }).click()])
  assert.deepEqual(await offered(page), ['Pay with Creem', 'Pay with WeChat Pay'])
  await Promise.all([page.waitForURL(`${s.creem!.fake.url}/test/checkout/**`), page.getByRole('button', { name: 'Pay with Creem' }).click()])
  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), page.getByRole('button', { name: /^Pay / }).click()])
  assert.equal(merchant.visits[0].searchParams.get('paid_confirmed'), '1')

  const wechatAttempt = await s.attempt(session.id, 'wechat')
  assert.equal(await reconcileAttempts(s.ta.deps), 1)
  assert.equal((await s.wechat.ctl.order(wechatAttempt.id)).trade_state, 'CLOSED')
  assert.deepEqual(await s.outcome(session.id), { status: 'paid', records: ['creem'], succeeded: 1, paidTwice: [] })
  assert.deepEqual(problems, [])
})
