/**
 * WeChat Pay's channels on the checkout page, over HTTP against the fake (issue #7 items 2 and 8):
 * the Native QR code and its long poll, the H5 redirect and its return, the JSAPI OAuth round trip
 * inside WeChat, and a channel switch that closes the previous order.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import QRCode from 'qrcode'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { getPage, postForm, tokenOf, type Page } from '../helpers/pages.js'
import { startReceiver } from '../helpers/receiver.js'
import { liveWechat, UA } from '../helpers/wechat.js'

type W = Awaited<ReturnType<typeof liveWechat>>

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** Presses "Pay with WeChat Pay" as a browser with this user agent would. */
async function choose(w: W, id: string, ua: string, headers: Record<string, string> = {}): Promise<Page> {
  const token = tokenOf((await getPage(w.ta, `/c/${id}`, { 'user-agent': ua })).html)
  return postForm(w.ta, `/c/${id}/choose`, { token, provider: 'wechat' }, { 'user-agent': ua, ...headers })
}

/** Where a redirect page's <meta refresh> sends the browser. */
function refreshTarget(html: string): string {
  const m = /<meta http-equiv="refresh" content="0;url=([^"]+)"\/>/.exec(html)
  assert.ok(m, 'a meta refresh')
  return unescape(m[1])
}

async function get(url: string, ua: string): Promise<Page> {
  const res = await fetch(url, { headers: { 'user-agent': ua }, redirect: 'manual' })
  return { status: res.status, html: await res.text(), headers: res.headers, location: res.headers.get('location') }
}

const qrSvg = (html: string) => /<figure class="qr"[^>]*>(<svg[\s\S]*?<\/svg>)<\/figure>/.exec(html)?.[1]
const expectedSvg = async (codeUrl: string) => (await QRCode.toString(codeUrl, { type: 'svg', width: 240, margin: 1, errorCorrectionLevel: 'M' })).trim()

test('on a desktop the page shows the order\'s code_url as a QR code, and a reload shows the same order again', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  const page = await choose(w, s.id, UA.desktop)
  assert.equal(page.status, 200)
  const [attempt] = await w.attempts(s.id)
  assert.equal(attempt.channel, 'native')
  const codeUrl = w.order(attempt.id).codeUrl!
  assert.match(codeUrl, /^weixin:\/\/wxpay\/bizpayurl\/up\?pr=[0-9A-Za-z]{7}&groupid=00$/)
  assert.equal(qrSvg(page.html), await expectedSvg(codeUrl), 'the SVG encodes the fake\'s code_url')
  assert.ok(page.html.includes('<h1>Scan this code with WeChat Pay to pay</h1>'))
  assert.ok(page.html.includes('<p class="description">Pay Acme · Blue mug</p>'))
  assert.ok(page.html.includes('<span class="amount-value">¥99.00\u00a0CNY</span>'))
  assert.ok(page.html.includes('<p class="qr-help">Open WeChat on your phone, tap + and then Scan, and point the camera at this code.</p>'))
  assert.ok(page.html.includes(`<p class="notice" role="status" data-await-payment="/c/${s.id}/status?wait=1" data-done-url="/c/${s.id}/done">This page moves on by itself as soon as your payment is confirmed.</p>`))
  assert.ok(page.html.includes(`<a class="button primary" href="/c/${s.id}/done">I have paid</a>`))
  assert.ok(!page.html.includes(codeUrl), 'the code_url is only in the QR code')

  const again = await choose(w, s.id, UA.desktop)
  assert.equal(qrSvg(again.html), qrSvg(page.html))
  assert.equal((await w.attempts(s.id)).length, 1)
  assert.equal((await w.ctl.requests()).filter((r) => r.path === '/v3/pay/transactions/native').length, 1)

  const zh = await choose(w, s.id, UA.desktop, { 'accept-language': 'zh-CN' })
  assert.ok(zh.html.includes('<h1>请用微信支付扫描二维码付款</h1>'))
  assert.ok(zh.html.includes('<p class="qr-help">打开手机微信，点击右上角“+”，选择“扫一扫”，扫描此二维码。</p>'))
  assert.ok(zh.html.includes('付款确认后，此页面会自动跳转。'))
  assert.equal(qrSvg(zh.html), qrSvg(page.html))
})

test('a QR code older than the 2 hours its code_url lives is replaced by a new order', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session({ expiresInSeconds: 4 * 3600 })
  await choose(w, s.id, UA.desktop)
  w.ta.clock.advance(2 * 3600_000)
  await choose(w, s.id, UA.desktop)
  const [first, second] = await w.attempts(s.id)
  assert.notEqual(w.order(first.id).codeUrl, w.order(second.id).codeUrl)
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  assert.equal((await w.ctl.order(first.id)).trade_state, 'CLOSED')
})

test('the status long poll answers the moment the QR code is paid, and the relay then reaches successUrl with paid_confirmed=1', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session({ successUrl: 'https://shop.example/thanks?order=42' })
  assert.deepEqual(await (await fetch(`${w.ta.baseUrl}/c/${s.id}/status?wait=1`)).json(), { status: 'pending' }, 'nothing in flight: at once')
  await choose(w, s.id, UA.desktop)
  const [attempt] = await w.attempts(s.id)
  const plain = await fetch(`${w.ta.baseUrl}/c/${s.id}/status`)
  assert.equal(plain.headers.get('content-type'), 'application/json; charset=utf-8')
  assert.equal(plain.headers.get('cache-control'), 'no-store')
  assert.deepEqual(await plain.json(), { status: 'processing' })

  const waiting = once(w.ta.deps.signals, 'waiting')
  const started = Date.now()
  const answer = fetch(`${w.ta.baseUrl}/c/${s.id}/status?wait=1`).then((r) => r.json())
  await waiting
  await w.ctl.pay({ code_url: w.order(attempt.id).codeUrl! })
  assert.deepEqual(await answer, { status: 'paid' })
  assert.ok(Date.now() - started < 5000, 'woken by the payment, not by the 25 s deadline')

  const relay = await getPage(w.ta, `/c/${s.id}/done`)
  const recordId = (await w.ta.request('GET', `/api/v1/sessions/${s.id}`, { key: w.ta.merchant.liveKey })).body.record.id
  assert.equal(relay.location, `https://shop.example/thanks?order=42&session_id=${s.id}&record_id=${recordId}&paid_confirmed=1`)
  assert.equal((await fetch(`${w.ta.baseUrl}/c/sess_AAAAAAAAAAAAAAAAAAAAAAAA/status`)).status, 404)
})

test('a live session waiting on WeChat Pay: the checkout page waits for the payment too', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  await choose(w, s.id, UA.desktop)
  const page = await getPage(w.ta, `/c/${s.id}`)
  assert.ok(page.html.includes(`<p class="notice" role="status" data-await-payment="/c/${s.id}/status?wait=1" data-done-url="/c/${s.id}/done">Waiting for WeChat Pay to confirm your payment.`))
})

test('on a phone the page goes on to the H5 cashier, which returns the customer to the relay', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session({ successUrl: 'https://shop.example/thanks' })
  const page = await choose(w, s.id, UA.phone)
  assert.equal(page.status, 200)
  const [attempt] = await w.attempts(s.id)
  assert.equal(attempt.channel, 'h5')
  const order = w.order(attempt.id)
  const relay = `${w.ta.baseUrl}/c/${s.id}/done`
  assert.equal(refreshTarget(page.html), `${order.h5Url}&redirect_url=${encodeURIComponent(relay)}`)
  assert.ok(page.html.includes('<h1>Taking you to WeChat Pay…</h1>'))
  assert.equal(JSON.parse(order.fingerprint).scene_info.payer_client_ip, '127.0.0.1')

  // The fake's cashier: Pay, then back to redirect_url.
  const cashier = new URL(refreshTarget(page.html))
  const paid = await fetch(`${w.fake.url}/__fake/h5/checkmweb`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ prepay_id: cashier.searchParams.get('prepay_id')!, package: cashier.searchParams.get('package')!, redirect_url: cashier.searchParams.get('redirect_url')!, action: 'pay' }),
    redirect: 'manual',
  })
  assert.equal(paid.headers.get('location'), relay)
  const back = await get(relay, UA.phone)
  assert.match(back.location!, new RegExp(`^https://shop\\.example/thanks\\?session_id=${s.id}&record_id=rec_[0-9A-Za-z]{24}&paid_confirmed=1$`))
})

test('H5 orders carry the customer\'s address: the socket\'s, or with TRUST_PROXY the one the proxy forwarded', async (t) => {
  const direct = await liveWechat(t)
  const a = await direct.session()
  await choose(direct, a.id, UA.phone, { 'x-forwarded-for': '203.0.113.9' })
  const [att] = await direct.attempts(a.id)
  assert.equal(JSON.parse(direct.order(att.id).fingerprint).scene_info.payer_client_ip, '127.0.0.1', 'a header anyone can send is ignored')

  const proxied = await liveWechat(t, { config: { trustProxy: 1 } })
  const b = await proxied.session()
  await choose(proxied, b.id, UA.phone, { 'x-forwarded-for': '203.0.113.9' })
  const [btt] = await proxied.attempts(b.id)
  assert.equal(JSON.parse(proxied.order(btt.id).fingerprint).scene_info.payer_client_ip, '203.0.113.9')
})

test('inside WeChat: OAuth for the openid with a state bound to the session, then a JSAPI page whose paySign verifies', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session({ successUrl: 'https://shop.example/thanks' })
  const page = await choose(w, s.id, UA.wechat)
  assert.equal(page.status, 200)
  assert.equal((await w.attempts(s.id)).length, 0, 'no order before the openid is known')
  const authorize = refreshTarget(page.html)
  const callback = `${w.ta.baseUrl}/c/wechat/${s.id}`
  const m = new RegExp(`^${w.fake.url}/connect/oauth2/authorize\\?appid=${w.creds.appId}&redirect_uri=${encodeURIComponent(callback).replace(/\./g, '\\.')}&response_type=code&scope=snsapi_base&state=([0-9a-f]{64})#wechat_redirect$`).exec(authorize)
  assert.ok(m, authorize)

  const back = await get(authorize, UA.wechat)
  assert.equal(back.status, 302)
  const returned = new URL(back.location!)
  assert.equal(`${returned.origin}${returned.pathname}`, callback)
  assert.equal(returned.searchParams.get('state'), m[1])

  // A return that did not start from this session's page changes nothing.
  const other = await w.session()
  const otherState = new URL(refreshTarget((await choose(w, other.id, UA.wechat)).html)).searchParams.get('state')!
  for (const state of ['forged', otherState, '']) {
    const forged = await get(`${callback}?code=${returned.searchParams.get('code')}&state=${state}`, UA.wechat)
    assert.equal(forged.status, 403, state)
    assert.ok(forged.html.includes('<h1 id="message-title">This form has expired</h1>'))
  }
  assert.equal((await w.attempts(s.id)).length, 0)

  w.ta.clock.advance(1000)
  const jsapi = await get(back.location!, UA.wechat)
  assert.equal(jsapi.status, 200)
  assert.ok(jsapi.html.includes('<h1>Pay in WeChat</h1>'))
  assert.ok(jsapi.html.includes('<p class="description">Pay Acme · Blue mug</p>'))
  const [attempt] = await w.attempts(s.id)
  assert.deepEqual([attempt.channel, attempt.status], ['jsapi', 'processing'])
  const order = w.order(attempt.id)
  assert.equal(order.tradeType, 'JSAPI')
  assert.match(order.openid!, /^o[0-9A-Za-z]{27}$/)
  const data = /data-wechat-pay="([^"]+)" data-done-url="\/c\/(sess_\w+)\/done" data-back-url="\/c\/\2"/.exec(jsapi.html)
  assert.ok(data)
  const params = JSON.parse(unescape(data[1]))
  assert.deepEqual(Object.keys(params).sort(), ['appId', 'nonceStr', 'package', 'paySign', 'signType', 'timeStamp'])
  assert.deepEqual([params.appId, params.package, params.signType], [w.creds.appId, `prepay_id=${order.prepayId}`, 'RSA'])
  assert.deepEqual(await w.ctl.jsapiCheck(params), { ok: true, err_msg: 'get_brand_wcpay_request:ok' })

  assert.deepEqual(await w.ctl.jsapiCheck(params, true), { ok: true, err_msg: 'get_brand_wcpay_request:ok' })
  const relay = await get(`${w.ta.baseUrl}/c/${s.id}/done`, UA.wechat)
  assert.match(relay.location!, new RegExp(`^https://shop\\.example/thanks\\?session_id=${s.id}&record_id=rec_\\w{24}&paid_confirmed=1$`))
})

test('reloading the JSAPI page (its code spent) takes one more silent trip through OAuth; a second refusal goes back to the checkout', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  const authorize = refreshTarget((await choose(w, s.id, UA.wechat)).html)
  const callback = (await get(authorize, UA.wechat)).location!
  assert.equal((await get(callback, UA.wechat)).status, 200)

  w.ta.clock.advance(1000)
  const reload = await get(callback, UA.wechat)
  assert.equal(reload.status, 303)
  const again = new URL(reload.location!)
  assert.equal(again.searchParams.get('redirect_uri'), `${w.ta.baseUrl}/c/wechat/${s.id}?retry=1`)
  const retried = (await get(reload.location!, UA.wechat)).location!
  assert.equal((await get(retried, UA.wechat)).status, 200)
  const attempts = await w.attempts(s.id)
  assert.deepEqual(attempts.map((a) => a.channel), ['jsapi', 'jsapi'], 'a new order for the new code; the first is closed by reconciliation')
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  assert.equal((await w.ctl.order(attempts[0].id)).trade_state, 'CLOSED')

  const refused = await get(retried, UA.wechat)
  assert.deepEqual([refused.status, refused.location], [303, `/c/${s.id}?failed=wechat`])
})

test('the OAuth code exchange is held to the provider address rule: an apiBase whose name resolves to loopback is never dialled', async (t) => {
  const w = await liveWechat(t)
  // A listener on this machine's loopback, named by a host name (resolved by DNS, not written as an address).
  const listener = await startReceiver(t, () => ({ status: 200, body: '{"openid":"oStolen"}' }))
  const patched = await w.ta.admin('PATCH', `/merchants/${w.ta.merchant.id}/provider_configs/${w.configId}`, { settings: { apiBase: `http://localhost:${listener.port}` } })
  assert.equal(patched.status, 200, JSON.stringify(patched.body))
  // Saved while PROVIDER_ALLOW_PRIVATE=1 (or a public name that resolves to loopback): the rule holds at connection time.
  w.ta.deps.config.providerAllowPrivate = false
  const s = await w.session()
  const state = new URL(refreshTarget((await choose(w, s.id, UA.wechat)).html)).searchParams.get('state')!
  const back = await get(`${w.ta.baseUrl}/c/wechat/${s.id}?code=0a1b2c3d&state=${state}`, UA.wechat)
  assert.deepEqual([back.status, back.location], [303, `/c/${s.id}?failed=wechat`])
  assert.equal(listener.connections(), 0, 'the loopback listener heard nothing')
  assert.equal((await w.attempts(s.id)).length, 0)
})

test('a return from OAuth without a code, or for a finished session, goes back to the checkout page', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  const state = new URL(refreshTarget((await choose(w, s.id, UA.wechat)).html)).searchParams.get('state')!
  const callback = `${w.ta.baseUrl}/c/wechat/${s.id}`
  assert.equal((await get(`${callback}?state=${state}`, UA.wechat)).location, `/c/${s.id}?failed=wechat`)
  await postForm(w.ta, `/c/${s.id}/cancel`, { token: tokenOf((await getPage(w.ta, `/c/${s.id}`)).html) })
  assert.equal((await get(`${callback}?code=x&state=${state}`, UA.wechat)).location, `/c/${s.id}`)
  assert.equal((await w.attempts(s.id)).length, 0)
})

test('switching from the QR code on a computer to the phone starts a new order, and reconciliation closes the QR\'s', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  await choose(w, s.id, UA.desktop)
  w.ta.clock.advance(1000)
  await choose(w, s.id, UA.phone)
  const [qr, h5] = await w.attempts(s.id)
  assert.deepEqual([qr.channel, h5.channel], ['native', 'h5'])
  assert.equal(await reconcileAttempts(w.ta.deps), 1)
  assert.equal((await w.ctl.order(qr.id)).trade_state, 'CLOSED')
  assert.deepEqual((await w.attempts(s.id)).map((a) => a.status), ['closed', 'processing'])

  // Back on the computer: the newest order is the phone's, so a new QR code (not the closed one).
  w.ta.clock.advance(1000)
  await choose(w, s.id, UA.desktop)
  const third = (await w.attempts(s.id))[2]
  assert.equal(third.channel, 'native')
  assert.notEqual(w.order(third.id).codeUrl, w.order(qr.id).codeUrl)
})
