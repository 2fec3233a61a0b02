/**
 * /c/<session_id> in test mode (issue #3 §1, §2; docs/integrate.md#session-and-record-states): what the customer sees in every state,
 * and what each button does, driven as a browser without scripts would.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { updateSettings } from '../../src/services/merchant-settings.js'
import { startAttempt } from '../../src/services/attempts.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { formCount, getPage, postForm, pressButton, tokenOf } from '../helpers/pages.js'
import { createSession, eventsWhere, recordRow, sessionRow } from '../helpers/store-queries.js'

const lookup = async (ta: TestApp, id: string) => (await ta.request('GET', `/api/v1/sessions/${id}`, { key: ta.merchant.testKey })).body

async function refundAll(ta: TestApp, recordId: string) {
  const res = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
}

test('an open test session shows merchant, description, amount, time left, the TEST MODE banner and the mock controls', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 9900, currency: 'CNY', description: 'Blue mug, large', expiresInSeconds: 600 })
  const page = await getPage(ta, `/c/${s.id}`)
  assert.equal(page.status, 200)
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8')
  assert.match(page.html, /^<!doctype html><html lang="en">/)
  assert.ok(page.html.includes('<h1 class="merchant">Pay Acme</h1>'))
  assert.ok(page.html.includes('<p class="description">Blue mug, large</p>'))
  assert.ok(page.html.includes('<span class="amount-value">¥99.00\u00a0CNY</span>'))
  assert.ok(page.html.includes('data-seconds-left="600"'))
  assert.ok(page.html.includes('>10:00</span>'))
  assert.ok(page.html.includes('<strong>TEST MODE</strong>'))
  assert.ok(page.html.includes('<title>[TEST MODE] Pay Acme</title>'))
  // Pay with the three refund behaviours, Fail, and Cancel and return.
  assert.equal(formCount(page.html), 3)
  assert.ok(page.html.includes(`action="/c/${s.id}/pay"`))
  assert.ok(page.html.includes(`action="/c/${s.id}/fail"`))
  assert.ok(page.html.includes(`action="/c/${s.id}/cancel"`))
  for (const b of ['succeed', 'pending', 'fail']) assert.ok(page.html.includes(`name="refundBehavior" value="${b}"`), b)
  assert.ok(page.html.includes('value="succeed" checked=""'))
  assert.ok(page.html.includes('>Pay ¥99.00\u00a0CNY</button>'))
  // The banner explains the buttons this page has.
  assert.ok(page.html.includes('<span>No real money moves. The buttons below act as the customer and the mock provider.</span>'))
  // The expiry is a <time> the script shows in the customer's zone; UTC without it, kept on the line of the time.
  assert.match(page.html, /expires at <time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">[^<]+ \d\d:\d\d\u00a0UTC<\/time>\./)
  assert.ok(page.html.includes('>Simulate a failed payment</button>'))
  assert.ok(page.html.includes('>Cancel and return</button>'))
})

test('JPY is shown in whole yen, never divided by 100; other currencies through the same table', async (t) => {
  const ta = await startTestApp(t)
  const cases: [number, string, string][] = [
    [1500, 'JPY', '¥1,500 JPY'], [1500, 'CNY', '¥15.00 CNY'], [123456, 'USD', '$1,234.56 USD'], [1, 'EUR', '€0.01 EUR'], [1999, 'HKD', '$19.99 HKD'],
  ]
  for (const [amount, currency, shown] of cases) {
    const s = await createSession(ta, { amount, currency })
    for (const lang of ['en', 'zh-CN']) {
      const page = await getPage(ta, `/c/${s.id}?lang=${lang}`)
      // The code beside the amount: yuan and yen are both "¥", US and Hong Kong dollars both "$".
      assert.ok(page.html.includes(`<span class="amount-value">${shown.replace(' ', '\u00a0')}</span>`), `${amount} ${currency} ${lang}`)
    }
  }
})

test('a processing test session still offers the controls and says a payment was started', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  await startAttempt(ta.deps, s.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const page = await getPage(ta, `/c/${s.id}`)
  assert.equal(page.status, 200)
  assert.ok(page.html.includes('A payment has been started.'))
  assert.equal(formCount(page.html), 3)
})

test('Pay goes through the mock provider: the session is paid, one payment.succeeded, and the receipt follows', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 2500, currency: 'USD' })
  const res = await pressButton(ta, s.id, 'pay', { refundBehavior: 'succeed' })
  assert.equal(res.status, 303)
  const after = await lookup(ta, s.id)
  assert.equal(after.status, 'paid')
  assert.equal(after.record.provider, 'mock')
  assert.equal(res.location, `/r/${after.record.id}`)
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type), ['payment.succeeded'])
})

test('the refund behaviour chosen when paying decides what a later refund does', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  await pressButton(ta, s.id, 'pay', { refundBehavior: 'pending' })
  const { record } = await lookup(ta, s.id)
  assert.equal((await recordRow(ta, record.id)).provider_data.refundBehavior, 'pending')
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: record.id } })
  assert.equal(refund.body.refund.status, 'pending')
  assert.equal(refund.body.status, 'refunding')
})

test('with successUrl, Pay sends the customer to the relay', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'http://localhost:3000/thanks' })
  const res = await pressButton(ta, s.id, 'pay')
  assert.equal(res.status, 303)
  assert.equal(res.location, `/c/${s.id}/done`)
  assert.equal((await lookup(ta, s.id)).status, 'paid')
})

test('a second Pay on a paid session changes nothing and leads to the receipt', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const page = await getPage(ta, `/c/${s.id}`)
  const token = tokenOf(page.html)
  const first = await postForm(ta, `/c/${s.id}/pay`, { token })
  const second = await postForm(ta, `/c/${s.id}/pay`, { token })
  assert.equal(second.status, 303)
  assert.equal(second.location, first.location)
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type), ['payment.succeeded'])
  const { rows } = await ta.database.pool.query('select count(*)::int as n from attempts where session_id = $1', [s.id])
  assert.equal(rows[0].n, 1)
})

test('Fail makes the session failed and shows the failure on the checkout page', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const res = await pressButton(ta, s.id, 'fail')
  assert.equal(res.status, 303)
  assert.equal(res.location, `/c/${s.id}`)
  assert.equal((await lookup(ta, s.id)).status, 'failed')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', s.id)).map((e) => e.type), ['payment.failed'])
})

test('Cancel and return: canceled, back to the checkout page without successUrl, to the relay with it', async (t) => {
  const ta = await startTestApp(t)
  const plain = await createSession(ta)
  const res = await pressButton(ta, plain.id, 'cancel')
  assert.equal(res.status, 303)
  assert.equal(res.location, `/c/${plain.id}`)
  assert.equal((await lookup(ta, plain.id)).status, 'canceled')
  assert.deepEqual((await eventsWhere(ta, 'sessionId', plain.id)).map((e) => e.type), ['session.canceled'])

  const withUrl = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'http://localhost:3000/back' })
  const res2 = await pressButton(ta, withUrl.id, 'cancel')
  assert.equal(res2.location, `/c/${withUrl.id}/done`)
  assert.equal((await lookup(ta, withUrl.id)).status, 'canceled')
})

/** Single use (docs/integrate.md#session-and-record-states): a finished session's page has no form at all, and says what happened. */
async function assertResultOnly(ta: TestApp, id: string, title: string) {
  const page = await getPage(ta, `/c/${id}`)
  assert.equal(page.status, 200)
  assert.equal(formCount(page.html), 0, `${title}: no form`)
  assert.ok(!page.html.includes('/pay"') && !page.html.includes('>Pay '), `${title}: nothing that could pay`)
  assert.ok(page.html.includes(`<h1 id="result-title">${title}</h1>`), title)
  return page.html
}

test('a paid session shows only its result and links to its receipt', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY' })
  const html = await assertResultOnly(ta, paid.id, 'Payment received')
  assert.ok(html.includes('Thank you. Acme has received your payment.'))
  assert.ok(html.includes(`<a class="button primary" href="/r/${paid.record.id}">View receipt</a>`))
  assert.ok(html.includes('<span class="amount-value">¥99.00\u00a0CNY</span>'))
  // The result has links, not buttons: the test-mode banner speaks of none.
  assert.ok(html.includes('<span>No real money moves.</span>'))
  assert.ok(!html.includes('The buttons below'))
  // No way back to a merchant that gave no successUrl.
  assert.ok(!html.includes('/done'))
})

test('a refunded session shows only its result, with the receipt', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  await refundAll(ta, paid.record.id)
  const html = await assertResultOnly(ta, paid.id, 'Payment refunded')
  assert.ok(html.includes(`href="/r/${paid.record.id}"`))
})

/** Makes a session `failed`, `canceled` or `expired` with the test helpers; returns its id. */
async function unpaid(ta: TestApp, how: 'fail' | 'cancel' | 'expire', body: Record<string, unknown>) {
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', ...body })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${s.id}/${how}`, { key: ta.merchant.testKey })
  return s.id as string
}

const UNPAID: ['fail' | 'cancel' | 'expire', string, string][] = [
  ['fail', 'Payment failed', 'The payment did not go through and no money was taken.'],
  ['cancel', 'Payment canceled', 'You canceled this payment and no money was taken.'],
  ['expire', 'This checkout has expired', 'It was not paid in time and no money was taken.'],
]

test('failed, canceled and expired sessions show only their result, and the way back to cancelUrl with session_id', async (t) => {
  const ta = await startTestApp(t)
  for (const [how, title, body] of UNPAID) {
    const id = await unpaid(ta, how, { successUrl: 'http://localhost:3000/thanks', cancelUrl: 'http://localhost:3000/cart?order=42' })
    const html = await assertResultOnly(ta, id, title)
    assert.ok(html.includes(body), title)
    assert.ok(html.includes(`<a class="button primary" href="http://localhost:3000/cart?order=42&amp;session_id=${id}">Return to Acme</a>`), title)
    assert.ok(!html.includes('/r/rec_') && !html.includes('/done'), title)
  }
})

test('without cancelUrl the way back is the successUrl\'s site, not its thank-you page', async (t) => {
  const ta = await startTestApp(t)
  for (const [how, title] of UNPAID) {
    const id = await unpaid(ta, how, { successUrl: 'http://localhost:3000/orders/42/thanks?x=1' })
    const html = await assertResultOnly(ta, id, title)
    assert.ok(html.includes('<a class="button primary" href="http://localhost:3000/">Return to Acme</a>'), title)
    assert.ok(!html.includes('/thanks') && !html.includes('/done'), title)
  }
})

test('without cancelUrl or successUrl, the support page from the merchant\'s settings, else its support email, else no link', async (t) => {
  const ta = await startTestApp(t)
  const settings = (s: { supportUrl?: string; supportEmail?: string }) =>
    updateSettings(ta.deps, ta.merchant.id, { displayName: '', brandColor: '', supportEmail: s.supportEmail ?? '', supportUrl: s.supportUrl ?? '' })
  await settings({ supportUrl: 'https://help.acme.example/orders', supportEmail: 'help@acme.example' })
  for (const [how, title] of UNPAID) {
    const html = await assertResultOnly(ta, await unpaid(ta, how, {}), title)
    assert.ok(html.includes('<a class="button primary" href="https://help.acme.example/orders">Return to Acme</a>'), title)
  }
  await settings({ supportEmail: 'help@acme.example' })
  const failed = await unpaid(ta, 'fail', {})
  assert.ok((await assertResultOnly(ta, failed, 'Payment failed')).includes('<a class="button primary" href="mailto:help@acme.example">Contact Acme</a>'))
  const zh = await getPage(ta, `/c/${failed}?lang=zh-CN`)
  assert.ok(zh.html.includes('<a class="button primary" href="mailto:help@acme.example">联系Acme</a>'), zh.html)
  await settings({})
  const bare = await assertResultOnly(ta, await unpaid(ta, 'expire', {}), 'This checkout has expired')
  assert.ok(!bare.includes('class="actions"'), 'nothing to link to')
  // A paid session is not sent to the support page: its way on is the receipt.
  await settings({ supportUrl: 'https://help.acme.example/orders' })
  const paid = await paidSession(ta)
  assert.ok(!(await assertResultOnly(ta, paid.id, 'Payment received')).includes('help.acme.example'))
})

test('in Chinese the way back reads 返回 and the merchant\'s name', async (t) => {
  const ta = await startTestApp(t)
  const id = await unpaid(ta, 'cancel', { cancelUrl: 'http://localhost:3000/cart' })
  const page = await getPage(ta, `/c/${id}?lang=zh-CN`)
  assert.ok(page.html.includes(`<a class="button primary" href="http://localhost:3000/cart?session_id=${id}">返回Acme</a>`))
})

test('with cancelUrl, Cancel and return goes through the relay to cancelUrl, which the page\'s form-action allows', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'http://localhost:3000/thanks', cancelUrl: 'http://127.0.0.1:4000/cart' })
  const page = await getPage(ta, `/c/${s.id}`)
  assert.match(page.headers.get('content-security-policy')!, /form-action 'self' http:\/\/localhost:3000 http:\/\/127\.0\.0\.1:4000;/)
  const res = await pressButton(ta, s.id, 'cancel')
  assert.equal(res.location, `/c/${s.id}/done`)
  const relay = await getPage(ta, `/c/${s.id}/done`)
  assert.equal(relay.location, `http://127.0.0.1:4000/cart?session_id=${s.id}`)
  // Without successUrl too: cancelUrl alone is enough to leave through the relay.
  const only = await createSession(ta, { amount: 1000, currency: 'CNY', cancelUrl: 'http://127.0.0.1:4000/cart' })
  assert.equal((await pressButton(ta, only.id, 'cancel')).location, `/c/${only.id}/done`)
  assert.equal((await getPage(ta, `/c/${only.id}/done`)).location, `http://127.0.0.1:4000/cart?session_id=${only.id}`)
})

test('no button on a finished session can start a payment, even when posted by hand', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60 })
  const token = tokenOf((await getPage(ta, `/c/${s.id}`)).html)
  ta.clock.advance(61_000)
  for (const action of ['pay', 'fail', 'cancel']) {
    const res = await postForm(ta, `/c/${s.id}/${action}`, { token })
    assert.equal(res.status, 303, action)
    assert.equal(res.location, `/c/${s.id}`, action)
  }
  const { rows } = await ta.database.pool.query('select count(*)::int as n from attempts where session_id = $1', [s.id])
  assert.equal(rows[0].n, 0)
  assert.equal((await lookup(ta, s.id)).status, 'expired')
  // Neither failed nor canceled: the row waits for the sweep to store `expired`.
  assert.equal((await sessionRow(ta, s.id)).status, 'pending')
})

test('unknown and malformed session ids get the 404 page', async (t) => {
  const ta = await startTestApp(t)
  for (const path of ['/c/sess_AAAAAAAAAAAAAAAAAAAAAAAA', '/c/not-a-session', '/c/sess_AAAAAAAAAAAAAAAAAAAAAAAA/done', '/c/x/y/z']) {
    const page = await getPage(ta, path)
    assert.equal(page.status, 404, path)
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8', path)
    assert.ok(page.html.includes('<h1 id="message-title">Page not found</h1>'), path)
  }
  const post = await postForm(ta, '/c/sess_AAAAAAAAAAAAAAAAAAAAAAAA/pay', { token: 'x' })
  assert.equal(post.status, 404)
})

test('a refund behaviour that does not exist is refused with the 400 page, and nothing is paid', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const res = await pressButton(ta, s.id, 'pay', { refundBehavior: 'explode' })
  assert.equal(res.status, 400)
  assert.ok(res.html.includes('This request could not be handled'))
  assert.equal((await lookup(ta, s.id)).status, 'pending')
})

test('forms accept only urlencoded bodies: JSON is 415 with an HTML page', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const res = await fetch(`${ta.baseUrl}/c/${s.id}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', redirect: 'manual' })
  assert.equal(res.status, 415)
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8')
  assert.equal((await lookup(ta, s.id)).status, 'pending')
})

test('cancelUrl, successUrl and the support page are kept as the URL parser read them: a CR or LF sent in them is never stored or sent back', async (t) => {
  const ta = await startTestApp(t)
  const id = await unpaid(ta, 'cancel', { cancelUrl: 'http://localhost:3000/ca\r\nrt?order=4\t2', successUrl: 'http://localhost:3000/than\nks' })
  const row = await sessionRow(ta, id)
  assert.deepEqual([row.cancel_url, row.success_url], ['http://localhost:3000/cart?order=42', 'http://localhost:3000/thanks'])
  const back = await fetch(`${ta.baseUrl}/c/${id}/done`, { redirect: 'manual' })
  assert.equal(back.headers.get('location'), `http://localhost:3000/cart?order=42&session_id=${id}`)

  await updateSettings(ta.deps, ta.merchant.id, { displayName: '', brandColor: '', supportEmail: '', supportUrl: ' https://help.acme.example/or\r\nders\n' })
  const { rows } = await ta.database.pool.query('select support_url from merchants where id = $1', [ta.merchant.id])
  assert.equal(rows[0].support_url, 'https://help.acme.example/orders')
})
