/** Languages (issue #3 §5): Accept-Language, the visible switch (?lang=), and its cookie across the flow. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp } from '../helpers/app.js'
import { wechatCredentials } from '../helpers/credentials.js'
import { getPage, postForm, tokenOf } from '../helpers/pages.js'
import { createSession } from '../helpers/store-queries.js'

test('Accept-Language zh-CN gives the Chinese checkout page, with lang="zh-CN" and yuan through the currency table', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 9900, currency: 'CNY', expiresInSeconds: 600 })
  const page = await getPage(ta, `/c/${s.id}`, { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' })
  assert.equal(page.status, 200)
  assert.match(page.html, /^<!doctype html><html lang="zh-CN">/)
  assert.ok(page.html.includes('<h1 class="merchant">向 Acme 付款</h1>'))
  assert.ok(page.html.includes('<strong>测试模式</strong>'))
  assert.ok(page.html.includes('<span class="amount-label">应付金额</span><span class="amount-value">¥99.00\u00a0CNY</span>'))
  assert.ok(page.html.includes('>支付 ¥99.00\u00a0CNY</button>'))
  assert.ok(page.html.includes('>模拟付款失败</button>'))
  assert.ok(page.html.includes('>取消并返回</button>'))
  assert.ok(page.html.includes('剩余时间'))
  assert.equal(page.headers.get('vary'), 'Accept-Language, Cookie')
})

test('the switch is visible on every page, links ?lang=, and marks the current language', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  for (const path of [`/c/${paid.id}`, `/r/${paid.record.id}`, '/c/nope']) {
    const page = await getPage(ta, path)
    assert.ok(page.html.includes('<nav class="lang-switch" aria-label="Language"><a href="?lang=en" hreflang="en" lang="en" aria-current="true">English</a><a href="?lang=zh-CN" hreflang="zh-CN" lang="zh-CN">简体中文</a><a href="?lang=zh-HK" hreflang="zh-HK" lang="zh-HK">繁體中文</a><a href="?lang=ja" hreflang="ja" lang="ja">日本語</a></nav>'), path)
  }
})

test('?lang= overrides Accept-Language and is remembered in a cookie for the pages that follow', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const chosen = await getPage(ta, `/c/${s.id}?lang=zh-CN`, { 'accept-language': 'en-US' })
  assert.match(chosen.html, /<html lang="zh-CN">/)
  const cookie = chosen.headers.get('set-cookie')
  assert.equal(cookie, 'till_lang=zh-CN; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly')

  // A form post and the page after it keep the language without ?lang=.
  const res = await postForm(ta, `/c/${s.id}/pay`, { token: tokenOf(chosen.html) }, { cookie: 'till_lang=zh-CN', 'accept-language': 'en-US' })
  const receipt = await getPage(ta, res.location!, { cookie: 'till_lang=zh-CN', 'accept-language': 'en-US' })
  assert.match(receipt.html, /<html lang="zh-CN">/)
  assert.ok(receipt.html.includes('<h1>收据</h1>'))

  const back = await getPage(ta, `/c/${s.id}?lang=en`, { cookie: 'till_lang=zh-CN' })
  assert.match(back.html, /<html lang="en">/)
  assert.equal(back.headers.get('set-cookie'), 'till_lang=en; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly')
})

test('an unknown ?lang= or cookie value is ignored', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const page = await getPage(ta, `/c/${s.id}?lang=xx`, { cookie: 'till_lang=<b>', 'accept-language': 'zh' })
  assert.match(page.html, /<html lang="zh-CN">/)
  assert.equal(page.headers.get('set-cookie'), null)
})

test('the 404 page speaks the customer\'s language too', async (t) => {
  const ta = await startTestApp(t)
  const page = await getPage(ta, '/r/rec_AAAAAAAAAAAAAAAAAAAAAAAA', { 'accept-language': 'zh-CN' })
  assert.equal(page.status, 404)
  assert.match(page.html, /<html lang="zh-CN">/)
  assert.ok(page.html.includes('<h1 id="message-title">页面不存在</h1>'))
})

test('the result pages in Chinese', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1500, currency: 'JPY', successUrl: 'http://localhost:3000/ok' })
  const page = await getPage(ta, `/c/${paid.id}?lang=zh-CN`)
  assert.ok(page.html.includes('<h1 id="result-title">付款成功</h1>'))
  assert.ok(page.html.includes('谢谢，Acme已收到您的付款。'))
  assert.ok(page.html.includes('<span class="amount-value">¥1,500\u00a0JPY</span>'))
  assert.ok(page.html.includes('>查看收据</a>'))
  assert.ok(page.html.includes('>返回Acme</a>'))
})

test('a page answering a form post offers no language switch that would reload a POST-only URL', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const forbidden = await postForm(ta, `/c/${s.id}/pay`, { token: 'forged' })
  assert.equal(forbidden.status, 403)
  assert.ok(!forbidden.html.includes('lang-switch'))
  assert.ok(forbidden.html.includes('<h1 id="message-title">This form has expired</h1>'))
})

test('provider names are translated too: WeChat Pay is 微信支付 on the Chinese page', async (t) => {
  const ta = await startTestApp(t)
  const cfg = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  assert.equal(cfg.status, 201)
  const s = (await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: { amount: 9900, currency: 'CNY' } })).body
  const zh = await getPage(ta, `/c/${s.id}?unavailable=wechat`, { 'accept-language': 'zh-CN' })
  assert.ok(zh.html.includes('<span class="mark mark-wechat" aria-hidden="true">W</span><span>微信支付</span>'))
  assert.ok(zh.html.includes('微信支付暂不可用。请选择其他支付方式，或稍后再试。'))
  const en = await getPage(ta, `/c/${s.id}`, { 'accept-language': 'en' })
  assert.ok(en.html.includes('<span>Pay with WeChat Pay</span>'))
})
