/**
 * Alipay's channels on the checkout page, over HTTP against the fake: the QR code on a desktop (and
 * shown again on a reload), Alipay's cashier page on a desktop when the configuration says so, the
 * mobile cashier on a phone, each returning through the relay; Alipay beside WeChat Pay for CNY,
 * not for other currencies, and never in test mode.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import QRCode from 'qrcode'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { alipayTill, type AlipayTill } from '../helpers/alipay-till.js'
import { wechatCredentials } from '../helpers/credentials.js'
import { getPage, postForm, tokenOf, type Page } from '../helpers/pages.js'
import { UA } from '../helpers/wechat.js'

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** Presses "Alipay" as a browser with this user agent would. */
async function choose(a: AlipayTill, id: string, ua: string, headers: Record<string, string> = {}): Promise<Page> {
  const token = tokenOf((await getPage(a.ta, `/c/${id}`, { 'user-agent': ua })).html)
  return postForm(a.ta, `/c/${id}/choose`, { token, provider: 'alipay' }, { 'user-agent': ua, ...headers })
}

function refreshTarget(html: string): string {
  const m = /<meta http-equiv="refresh" content="0;url=([^"]+)"\/>/.exec(html)
  assert.ok(m, 'a meta refresh')
  return unescape(m[1])
}

const attempts = async (a: AlipayTill, sessionId: string) =>
  (await a.ta.database.pool.query('select id, channel, status from attempts where session_id = $1 order by created_at, id', [sessionId])).rows as { id: string; channel: string; status: string }[]

const qrSvg = (html: string) => /<figure class="qr"[^>]*>(<svg[\s\S]*?<\/svg>)<\/figure>/.exec(html)?.[1]

/** The customer on Alipay's cashier: the signed gateway URL, paying, then back to the relay. */
async function payOnCashier(a: AlipayTill, gatewayUrl: string, ua: string) {
  const gateway = await fetch(gatewayUrl, { headers: { 'user-agent': ua }, redirect: 'manual' })
  assert.equal(gateway.status, 302, await gateway.text())
  const paid = await fetch(gateway.headers.get('location')!, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
  return getPage(a.ta, new URL(paid.headers.get('location')!).pathname + new URL(paid.headers.get('location')!).search, { 'user-agent': ua })
}

test('on a desktop the page shows the precreate qr_code as a QR code with Alipay\'s help, and a reload shows the same order', async (t) => {
  const a = await alipayTill(t)
  const id = await a.session()
  const page = await choose(a, id, UA.desktop)
  assert.equal(page.status, 200)
  const [attempt] = await attempts(a, id)
  assert.equal(attempt.channel, 'precreate')
  const qrCode = (await a.ctl.order(attempt.id)).qr_code as string
  assert.equal(qrSvg(page.html), (await QRCode.toString(qrCode, { type: 'svg', width: 240, margin: 1, errorCorrectionLevel: 'M' })).trim())
  assert.ok(page.html.includes('<h1>Scan this code with Alipay to pay</h1>'))
  assert.ok(page.html.includes('<span class="amount-value">¥88.88\u00a0CNY</span>'))
  assert.ok(page.html.includes('<p class="qr-help">Open Alipay on your phone, tap Scan, and point the camera at this code.</p>'))
  const zh = await choose(a, id, UA.desktop, { 'accept-language': 'zh-CN' })
  assert.ok(zh.html.includes('<h1>请用支付宝扫描二维码付款</h1>'))
  assert.ok(zh.html.includes('<p class="qr-help">打开手机支付宝，点击“扫一扫”，扫描此二维码。</p>'))
  assert.equal(qrSvg(zh.html), qrSvg(page.html))
  assert.equal((await attempts(a, id)).length, 1)
  assert.equal((await a.ctl.requests()).filter((r) => r.method === 'alipay.trade.precreate').length, 1)
  // Scanned and paid: the relay confirms.
  await a.ctl.pay({ qr_code: qrCode })
  const relay = await getPage(a.ta, `/c/${id}/done`)
  assert.match(relay.location!, /^\/r\/rec_\w{24}$/)

  // Two hours on, Alipay's code cannot be scanned any more: a new order, and the old one closed.
  const long = await a.session({ expiresInSeconds: 4 * 3600 })
  await choose(a, long, UA.desktop)
  a.ta.clock.advance(2 * 3600_000)
  await choose(a, long, UA.desktop)
  const [first, second] = await attempts(a, long)
  assert.notEqual((await a.ctl.order(first.id)).qr_code, (await a.ctl.order(second.id)).qr_code)
  assert.ok(await reconcileAttempts(a.ta.deps) >= 1)
  assert.equal((await attempts(a, long))[0].status, 'closed')

})

test('settings.desktop page: a desktop goes to Alipay\'s cashier page and comes back through the relay, paid', async (t) => {
  const a = await alipayTill(t, { settings: { desktop: 'page' } })
  const id = await a.session({ successUrl: 'https://shop.example/thanks' })
  const page = await choose(a, id, UA.desktop)
  assert.ok(page.html.includes('<h1>Taking you to Alipay…</h1>'))
  const target = new URL(refreshTarget(page.html))
  assert.equal(target.searchParams.get('method'), 'alipay.trade.page.pay')
  assert.equal(target.searchParams.get('return_url'), `${a.ta.baseUrl}/c/${id}/done`)
  const [attempt] = await attempts(a, id)
  assert.equal(attempt.channel, 'page')
  const back = await payOnCashier(a, target.toString(), UA.desktop)
  assert.match(back.location!, new RegExp(`^https://shop\\.example/thanks\\?session_id=${id}&record_id=rec_\\w{24}&paid_confirmed=1$`))
})

test('on a phone the page goes on to the mobile cashier (wap), whatever settings.desktop says', async (t) => {
  const a = await alipayTill(t, { settings: { desktop: 'qr' } })
  const id = await a.session({ successUrl: 'https://shop.example/thanks' })
  const page = await choose(a, id, UA.phone)
  const target = new URL(refreshTarget(page.html))
  assert.equal(target.searchParams.get('method'), 'alipay.trade.wap.pay')
  assert.equal(JSON.parse(target.searchParams.get('biz_content')!).product_code, 'QUICK_WAP_WAY')
  assert.equal((await attempts(a, id))[0].channel, 'wap')
  const back = await payOnCashier(a, target.toString(), UA.phone)
  assert.match(back.location!, /paid_confirmed=1$/)
  // The receipt of an Alipay payment.
  const recordId = /record_id=(rec_\w{24})/.exec(back.location!)![1]
  const receipt = await getPage(a.ta, `/r/${recordId}`)
  assert.equal(receipt.status, 200)
  assert.ok(receipt.html.includes('¥88.88\u00a0CNY'))
})

test('CNY sessions offer Alipay beside WeChat Pay; other currencies and test mode do not', async (t) => {
  const a = await alipayTill(t)
  const wechat = await a.ta.admin('POST', `/merchants/${a.ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  assert.equal(wechat.status, 201)
  const cny = await a.ta.request('POST', '/api/v1/checkout', { key: a.ta.merchant.liveKey, body: { amount: 100, currency: 'CNY' } })
  const buttons = (html: string) => [...html.matchAll(/<button type="submit" name="provider" value="(\w+)"/g)].map((m) => m[1])
  const page = await getPage(a.ta, `/c/${cny.body.id}`)
  assert.deepEqual(buttons(page.html), ['alipay', 'wechat'])
  assert.ok(page.html.includes('<span class="mark mark-alipay" aria-hidden="true">A</span><span>Pay with Alipay</span>'))
  assert.ok((await getPage(a.ta, `/c/${cny.body.id}`, { 'accept-language': 'zh-CN' })).html.includes('<span>支付宝</span>'))
  const css = await (await fetch(a.ta.baseUrl + /href="(\/assets\/till\.[^"]+\.css)"/.exec(page.html)![1])).text()
  assert.ok(css.includes('.mark-alipay { background: #1677ff; }'))

  const usd = await a.ta.request('POST', '/api/v1/checkout', { key: a.ta.merchant.liveKey, body: { amount: 100, currency: 'USD', providerHints: { alipay: 'main' } } })
  assert.deepEqual([usd.status, usd.body.error], [400, 'no provider available for USD in live mode'])
  const testMode = await a.ta.request('POST', '/api/v1/checkout', { key: a.ta.merchant.testKey, body: { amount: 100, currency: 'CNY' } })
  const testPage = await getPage(a.ta, `/c/${testMode.body.id}`)
  assert.deepEqual(buttons(testPage.html), [])
  assert.ok(!testPage.html.includes('Alipay'))
})
