/**
 * A customer paying with WeChat Pay in Chromium, live mode against the fake (issue #7 items 2 and
 * 8): the desktop QR code paid from a "phone" while the page moves on by itself, the phone's H5
 * round trip through the fake's cashier, and WeChat's in-app JSAPI payment through OAuth and a
 * stand-in WeixinJSBridge. Each paid path ends at successUrl with paid_confirmed=1.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { DESKTOP, launchBrowser, merchantSite, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { within } from '../helpers/wait.js'
import { liveWechat, UA } from '../helpers/wechat.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const noSideScroll = async (page: import('playwright-core').Page) => {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
  assert.ok(scroll <= client, `${scroll}px wide in ${client}px`)
}

test('desktop: the QR code, paid from a phone, and the page moves on by itself to successUrl with paid_confirmed=1', async (t) => {
  const w = await liveWechat(t)
  const merchant = await merchantSite(t, { tls: true })
  const s = await w.session({ successUrl: `${merchant.origin}/thanks?order=42` })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop, ignoreHTTPSErrors: true })
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`**/c/${s.id}/choose`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  assert.equal(await page.locator('h1').textContent(), 'Scan this code with WeChat Pay to pay')
  assert.equal(await page.locator('.amount-value').textContent(), '¥99.00\u00a0CNY')
  const box = (await page.locator('.qr svg').boundingBox())!
  assert.deepEqual([box.width, box.height], [240, 240])
  await noSideScroll(page)
  await screenshot(page, 'wechat-qr-desktop-en')

  // The customer's phone scans the code (the fake's scan page) and pays; nobody touches the first page.
  const [attempt] = await w.attempts(s.id)
  const phone = await openPage(t, browser, PHONE)
  await phone.page.goto(`${w.fake.url}/__fake/wechat/scan?code_url=${encodeURIComponent(w.order(attempt.id).codeUrl!)}`)
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), phone.page.locator('#pay').click()])

  const session = (await w.ta.request('GET', `/api/v1/sessions/${s.id}`, { key: w.ta.merchant.liveKey })).body
  assert.equal(session.status, 'paid')
  assert.deepEqual([...merchant.visits[0].searchParams], [['order', '42'], ['session_id', s.id], ['record_id', session.record.id], ['paid_confirmed', '1']])
  assert.deepEqual(problems, [], 'no CSP violation or script error')
})

test('desktop, Chinese: the QR page reads in Chinese and fits', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session({ description: '蓝色马克杯' })
  const { page, problems } = await openPage(t, browser, { ...DESKTOP, userAgent: UA.desktop, locale: 'zh-CN' })
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`**/c/${s.id}/choose`), page.getByRole('button', { name: '微信支付' }).click()])
  assert.equal(await page.locator('h1').textContent(), '请用微信支付扫描二维码付款')
  assert.equal(await page.locator('.description').textContent(), '向 Acme 付款 · 蓝色马克杯')
  assert.equal(await page.locator('.qr-help').textContent(), '打开手机微信，点击右上角“+”，选择“扫一扫”，扫描此二维码。')
  assert.equal(await page.getByRole('img', { name: '微信支付付款二维码' }).count(), 1)
  await noSideScroll(page)
  await screenshot(page, 'wechat-qr-desktop-zh')
  assert.deepEqual(problems, [])
})

test('phone: the H5 round trip through WeChat\'s cashier back to the relay, ending at successUrl with paid_confirmed=1', async (t) => {
  const w = await liveWechat(t)
  const merchant = await merchantSite(t, { tls: true })
  const s = await w.session({ successUrl: `${merchant.origin}/thanks` })
  const { page, problems } = await openPage(t, browser, { ...PHONE, userAgent: UA.phone, ignoreHTTPSErrors: true })
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`${w.fake.url}/__fake/h5/checkmweb?**`), page.getByRole('button', { name: 'Pay with WeChat Pay' }).click()])
  assert.equal(new URL(page.url()).searchParams.get('redirect_url'), `${w.ta.baseUrl}/c/${s.id}/done`)
  assert.equal(await page.locator('#amount').textContent(), '¥99.00')
  await screenshot(page, 'wechat-h5-cashier-phone')
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), page.locator('#pay').click()])
  const visit = merchant.visits[0]
  assert.equal(visit.searchParams.get('session_id'), s.id)
  assert.equal(visit.searchParams.get('paid_confirmed'), '1')
  assert.match(visit.searchParams.get('record_id')!, /^rec_[0-9A-Za-z]{24}$/)
  assert.deepEqual(problems, [])
})

test('phone, Chinese: back from the cashier without paying, the checkout waits, then moves on by itself when the payment lands', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  const { page, problems } = await openPage(t, browser, { ...PHONE, userAgent: UA.phone, locale: 'zh-CN' })
  await page.goto(s.url)
  await Promise.all([page.waitForURL(`${w.fake.url}/__fake/h5/checkmweb?**`), page.getByRole('button', { name: '微信支付' }).click()])
  // Canceled at the cashier: WeChat returns the browser anyway; the relay waits its 5 s, then the checkout page.
  await Promise.all([page.waitForURL(s.url), page.locator('#cancel').click()])
  assert.equal(await page.locator('[data-await-payment]').textContent(), '正在等待微信支付确认您的付款。如果您还没有付款，可以在下方重新选择。')
  await noSideScroll(page)
  await screenshot(page, 'wechat-h5-return-unpaid-phone-zh')

  // The customer paid after all (say, from the WeChat app): the waiting page goes on to the receipt.
  const [attempt] = await w.attempts(s.id)
  await Promise.all([page.waitForURL('**/r/rec_*'), w.ctl.pay({ out_trade_no: attempt.id })])
  assert.equal(await page.locator('h1').textContent(), '收据')
  await screenshot(page, 'wechat-h5-receipt-phone-zh')
  assert.deepEqual(problems, [])
})

test('inside WeChat: OAuth through the fake, WeixinJSBridge with the signed parameters, and successUrl with paid_confirmed=1', async (t) => {
  const w = await liveWechat(t)
  const merchant = await merchantSite(t, { tls: true })
  const s = await w.session({ successUrl: `${merchant.origin}/thanks` })
  const { page, problems } = await openPage(t, browser, { ...PHONE, userAgent: UA.wechat, locale: 'zh-CN', ignoreHTTPSErrors: true })

  // WeChat's bridge is native code outside the page (and its CSP): here the test plays it, through
  // the fake's JSAPI check, which verifies paySign and pays the order (its notification reaches Till).
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let invoked!: (params: Record<string, string>) => void
  const invocation = new Promise<Record<string, string>>((resolve) => (invoked = resolve))
  await page.exposeFunction('fakeWeixinPay', async (params: Record<string, string>) => {
    invoked(params)
    await released
    return w.ctl.jsapiCheck(params, true)
  })
  await page.addInitScript(() => {
    const host = window as unknown as { fakeWeixinPay(p: unknown): Promise<{ err_msg: string }>; WeixinJSBridge: unknown }
    host.WeixinJSBridge = {
      invoke(name: string, params: unknown, callback: (res: { err_msg: string }) => void) {
        if (name === 'getBrandWCPayRequest') host.fakeWeixinPay(params).then((r) => callback({ err_msg: r.err_msg }))
      },
    }
  })

  const oauth = page.waitForRequest(`${w.fake.url}/connect/oauth2/authorize?**`)
  await page.goto(s.url)
  await page.getByRole('button', { name: '微信支付' }).click()
  const authorize = new URL((await oauth).url())
  assert.equal(authorize.searchParams.get('scope'), 'snsapi_base')
  assert.equal(authorize.searchParams.get('redirect_uri'), `${w.ta.baseUrl}/c/wechat/${s.id}`)

  // Bounded, and saying where the page stopped instead: an unbounded wait hung the file until its timeout once.
  const params = await within(45_000, invocation, 'the in-app page invoking WeixinJSBridge').catch(async (e: Error) => {
    throw new Error(`${e.message}; the page is at ${page.url()}, reading: ${await page.locator('body').innerText().catch(() => '(unreadable)')}`)
  })
  assert.equal(await page.locator('h1').textContent(), '在微信中付款')
  await screenshot(page, 'wechat-jsapi-phone-zh')
  const [attempt] = await w.attempts(s.id)
  assert.equal(params.package, `prepay_id=${w.order(attempt.id).prepayId}`)
  await Promise.all([page.waitForURL(`${merchant.origin}/thanks?**`), release()])
  const visit = merchant.visits[0]
  assert.equal(visit.searchParams.get('session_id'), s.id)
  assert.equal(visit.searchParams.get('paid_confirmed'), '1')
  assert.match(visit.searchParams.get('record_id')!, /^rec_[0-9A-Za-z]{24}$/)
  assert.equal((await w.ctl.order(attempt.id)).trade_state, 'SUCCESS')
  assert.deepEqual(problems, [])
})
