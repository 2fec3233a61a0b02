/**
 * A session's own `locale` (issue #40 §4): named at creation, validated against the four languages,
 * answered back, and the language of that session's checkout, relay and receipt pages over the
 * browser's Accept-Language, while the customer's own pick in the language switch still wins.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { errorBody } from '../helpers/errors.js'
import { getPage, postForm, tokenOf } from '../helpers/pages.js'

const create = (ta: TestApp, body: Record<string, unknown>) => ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body })
const sessionCount = async (ta: TestApp) => (await ta.database.pool.query('select count(*)::int as n from sessions')).rows[0].n as number

test('locale is one of en, zh-CN, zh-HK and ja, answered back on creation and on every read; null when not given', async (t) => {
  const ta = await startTestApp(t)
  for (const locale of ['en', 'zh-CN', 'zh-HK', 'ja']) {
    const res = await create(ta, { amount: 100, currency: 'JPY', locale })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.body.locale, locale)
    const read = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.testKey })
    assert.equal(read.body.locale, locale)
  }
  const plain = await create(ta, { amount: 100, currency: 'JPY' })
  assert.equal(plain.body.locale, null)
  const listed = await ta.request('GET', '/api/v1/sessions', { key: ta.merchant.testKey })
  assert.deepEqual(listed.body.data.map((x: { locale: string | null }) => x.locale).sort(), ['en', 'ja', 'zh-CN', 'zh-HK', null].sort())
})

test('an unsupported locale is refused in the documented shape and stores nothing', async (t) => {
  const ta = await startTestApp(t)
  const before = await sessionCount(ta)
  for (const locale of ['fr', 'zh-TW', 'ja-JP', 'ZH-cn', '', 'auto', 1, null]) {
    const res = await create(ta, { amount: 100, currency: 'CNY', locale })
    assert.equal(res.status, 400, JSON.stringify(locale))
    assert.deepEqual(res.body, errorBody('locale: must be one of en, zh-CN, zh-HK, ja'), JSON.stringify(locale))
  }
  assert.equal(await sessionCount(ta), before)
})

test('the session\'s locale wins over Accept-Language on its checkout, relay and receipt; the customer\'s own pick wins over it', async (t) => {
  const ta = await startTestApp(t)
  const s = (await create(ta, { amount: 1500, currency: 'JPY', locale: 'ja', successUrl: 'http://localhost:3000/thanks' })).body
  const english = { 'accept-language': 'en-US,en;q=0.9' }
  const page = await getPage(ta, `/c/${s.id}`, english)
  assert.match(page.html, /^<!doctype html><html lang="ja">/)
  assert.ok(page.html.includes('<span class="amount-label">お支払い金額</span><span class="amount-value">¥1,500</span>'))
  assert.ok(page.html.includes('>¥1,500を支払う</button>'))
  assert.equal(page.headers.get('set-cookie'), null, 'the session\'s language is not remembered for other sessions')

  const paid = await postForm(ta, `/c/${s.id}/pay`, { token: tokenOf(page.html) }, english)
  assert.equal(paid.location, `/c/${s.id}/done`)
  const relay = await getPage(ta, paid.location!, english)
  assert.equal(relay.status, 303)
  assert.ok(relay.html.includes('ショップのページに戻っています'))
  const done = await getPage(ta, `/c/${s.id}`, english)
  const receiptPath = /href="(\/r\/rec_\w+)"/.exec(done.html)![1]
  const receipt = await getPage(ta, receiptPath, english)
  assert.match(receipt.html, /<html lang="ja">/)
  assert.ok(receipt.html.includes('<h1>領収書</h1>'))

  // The switch: the customer's ?lang= (and its cookie) over the merchant's choice.
  const switched = await getPage(ta, `${receiptPath}?lang=zh-HK`, english)
  assert.match(switched.html, /<html lang="zh-HK">/)
  assert.ok(switched.html.includes('<h1>收據</h1>'))
  assert.match((await getPage(ta, `/c/${s.id}`, { cookie: 'till_lang=en' })).html, /<html lang="en">/)
})

test('without a session locale the browser decides: zh-TW and zh-HK get Traditional Chinese with Hong Kong dollars as Hong Kong writes them', async (t) => {
  const ta = await startTestApp(t)
  const s = (await create(ta, { amount: 8800, currency: 'HKD' })).body
  for (const header of ['zh-HK', 'zh-TW,zh;q=0.9', 'zh-Hant']) {
    const page = await getPage(ta, `/c/${s.id}`, { 'accept-language': header })
    assert.match(page.html, /<html lang="zh-HK">/, header)
    assert.ok(page.html.includes('<h1 class="merchant">向 Acme 付款</h1>'), header)
    assert.ok(page.html.includes('<span class="amount-label">應付金額</span><span class="amount-value">HK$88.00</span>'), header)
  }
  const simplified = await getPage(ta, `/c/${s.id}`, { 'accept-language': 'zh-SG' })
  assert.match(simplified.html, /<html lang="zh-CN">/)
  assert.ok(simplified.html.includes('<span class="amount-value">$88.00\u00a0HKD</span>'))
})
