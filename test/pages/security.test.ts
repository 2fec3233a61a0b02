/**
 * Security of the customer pages (issue #3 §7): escaping, headers on every answer, form tokens,
 * and nothing on a page that the customer does not need.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { getPage, postForm, tokenOf, type Page } from '../helpers/pages.js'
import { createSession, recordRow } from '../helpers/store-queries.js'

const XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'

function assertPageHeaders(page: Page, where: string, formAction = "form-action 'self'") {
  const csp = page.headers.get('content-security-policy') ?? ''
  assert.ok(csp.includes("default-src 'none'"), where)
  assert.ok(csp.includes("script-src 'self'"), where)
  assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'), where)
  assert.ok(csp.includes("frame-ancestors 'none'"), where)
  assert.ok(csp.includes(`${formAction};`), `${where}: ${csp}`)
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer', where)
  assert.equal(page.headers.get('x-frame-options'), 'DENY', where)
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff', where)
  assert.equal(page.headers.get('cache-control'), 'no-store', where)
}

test('a description and a merchant name full of markup render as text', async (t) => {
  const ta = await startTestApp(t)
  const evil = await ta.newMerchant(`Evil ${XSS}`)
  const s = await createSession(ta, { amount: 100, currency: 'USD', description: XSS }, evil.testKey)
  const page = await getPage(ta, `/c/${s.id}`)
  assert.ok(!page.html.includes('<script>alert'))
  assert.ok(!page.html.includes('<img src=x'))
  assert.ok(page.html.includes('<p class="description">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</p>'))
  assert.ok(page.html.includes('<h1 class="merchant">Pay Evil &lt;script&gt;'))
  // The only script on the page is our own file.
  assert.deepEqual(page.html.match(/<script\b[^>]*>/g), [page.html.match(/<script src="\/assets\/till\.[0-9a-f]{12}\.js" defer="">/)![0]])

  await ta.request('POST', `/api/v1/test_helpers/sessions/${s.id}/pay`, { key: evil.testKey })
  const recordId = (await ta.request('GET', `/api/v1/sessions/${s.id}`, { key: evil.testKey })).body.record.id
  const receipt = await getPage(ta, `/r/${recordId}`)
  assert.ok(!receipt.html.includes('<script>alert'))
  assert.ok(receipt.html.includes('<dd>Evil &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</dd>'))
})

test('every page answer carries the CSP, frame-ancestors none, no-referrer and no-store', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const open = await createSession(ta)
  assertPageHeaders(await getPage(ta, `/c/${open.id}`), 'checkout')
  assertPageHeaders(await getPage(ta, `/c/${paid.id}`), 'result')
  assertPageHeaders(await getPage(ta, `/r/${paid.record.id}`), 'receipt')
  assertPageHeaders(await getPage(ta, `/c/${paid.id}/done`), 'relay')
  assertPageHeaders(await getPage(ta, '/c/nope'), '404')
  assertPageHeaders(await getPage(ta, '/r/rec_AAAAAAAAAAAAAAAAAAAAAAAA'), 'receipt 404')
  assertPageHeaders(await postForm(ta, `/c/${open.id}/pay`, { token: 'forged' }), '403')
})

test('with successUrl, form-action allows its origin, so Pay → relay → successUrl is not blocked', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 100, currency: 'USD', successUrl: 'http://localhost:3000/x/y?z=1' })
  assertPageHeaders(await getPage(ta, `/c/${s.id}`), 'checkout', "form-action 'self' http://localhost:3000")
})

test('a post without the page\'s token, or with another session\'s, is refused with 403 and changes nothing', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const other = await createSession(ta)
  const otherToken = tokenOf((await getPage(ta, `/c/${other.id}`)).html)
  for (const fields of [{}, { token: '' }, { token: 'forged' }, { token: otherToken }] as Record<string, string>[]) {
    for (const action of ['pay', 'fail', 'cancel']) {
      const res = await postForm(ta, `/c/${s.id}/${action}`, fields)
      assert.equal(res.status, 403, `${action} ${JSON.stringify(fields)}`)
      assert.ok(res.html.includes('<h1 id="message-title">This form has expired</h1>'))
    }
  }
  const read = await ta.request('GET', `/api/v1/sessions/${s.id}`, { key: ta.merchant.testKey })
  assert.equal(read.body.status, 'pending')
})

async function everyPage(ta: TestApp, sessionId: string, recordId: string) {
  return [(await getPage(ta, `/c/${sessionId}`)).html, (await getPage(ta, `/r/${recordId}`)).html]
}

test('no key, merchant id, attempt id, configuration id or provider reference appears on any page', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 100, currency: 'USD', metadata: { order: 'secret-order-77' }, successUrl: 'http://localhost:3000/ok?token=merchant-secret' })
  const record = await recordRow(ta, paid.record.id)
  const open = await createSession(ta)
  const pages = [...(await everyPage(ta, paid.id, paid.record.id)), (await getPage(ta, `/c/${open.id}`)).html]
  for (const html of pages) {
    assert.ok(!html.includes('sk_test_') && !html.includes('sk_live_'))
    assert.ok(!html.includes(ta.merchant.id))
    assert.ok(!/att_[0-9A-Za-z]{24}/.test(html))
    assert.ok(!/pc_[0-9A-Za-z]{24}/.test(html))
    assert.ok(!html.includes(record.provider_ref))
    assert.ok(!html.includes(record.attempt_id))
    assert.ok(!html.includes('secret-order-77'), 'metadata is the merchant\'s, not the customer\'s')
    assert.ok(!html.includes('merchant-secret'), 'the successUrl itself is not on the page')
  }
})

test('assets are served under a content hash with a year of caching; unknown ones are 404', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const html = (await getPage(ta, `/c/${s.id}`)).html
  const css = /href="(\/assets\/till\.[0-9a-f]{12}\.css)"/.exec(html)![1]
  const js = /src="(\/assets\/till\.[0-9a-f]{12}\.js)"/.exec(html)![1]
  for (const [path, type] of [[css, 'text/css; charset=utf-8'], [js, 'text/javascript; charset=utf-8']]) {
    const res = await fetch(ta.baseUrl + path)
    assert.equal(res.status, 200, path)
    assert.equal(res.headers.get('content-type'), type)
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    assert.ok((await res.text()).length > 500)
  }
  for (const path of ['/assets/till.000000000000.css', '/assets/', '/assets/../src/app.ts']) {
    const res = await fetch(ta.baseUrl + path)
    assert.equal(res.status, 404, path)
  }
})
