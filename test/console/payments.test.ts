/**
 * Payments in the console over HTTP: the list (newest first, status and date filters, search by
 * session id, record id or metadata value, keyset pages), a payment's page with its record, refunds
 * and events, and Refund through the API's path: partial, over-refund refused with its message, a
 * double post with the form's idempotency key refunding once, the other mode's and merchant's 404.
 * Filters it cannot read one way answer 400 with a message; a payment's page costs the same few
 * queries however many events it shows.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { appendEvent } from '../../src/store/repos/events.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { statementsDuring } from '../helpers/db.js'
import { ConsoleBrowser, csrfOf, signedIn } from '../helpers/console.js'
import { creemCredentials } from '../helpers/credentials.js'
import { parseMajor } from '../../src/console/payments/refund.js'

/** The hidden fields of the refund confirmation's form, as the browser would post them. */
function confirmFields(html: string): Record<string, string> {
  const form = /<form method="post" action="[^"]+\/refund"[^>]*>([\s\S]*?)<\/form>/.exec(html)
  assert.ok(form, 'a confirmation form')
  return Object.fromEntries([...form[1].matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&amp;/g, '&')]))
}

const rowsOf = (html: string) => [...html.matchAll(/data-session="(sess_\w+)"/g)].map((m) => m[1])

test('major units typed in the refund form become minor units per currency', () => {
  assert.equal(parseMajor('12.5', 'CNY'), 1250)
  assert.equal(parseMajor('12,05', 'EUR'), 1205)
  assert.equal(parseMajor('3', 'USD'), 300)
  assert.equal(parseMajor('500', 'JPY'), 500)
  for (const bad of ['12.345', '-1', '1e3', '', 'abc', '1.5']) assert.equal(parseMajor(bad, bad === '1.5' ? 'JPY' : 'CNY'), null, bad)
})

test('the payments list: newest first, filtered, searched, paged; the payment page; a partial refund that a double post makes once', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const merchant = { id: m.id, testKey: m.testKey, liveKey: m.liveKey }
  const made: string[] = []
  const firstMadeAt = ta.clock()
  for (let i = 0; i < 27; i++) {
    const r = await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 100 + i, currency: 'CNY', metadata: { order: `o-${i}` } } })
    made.push(r.body.id)
    ta.clock.advance(1000)
  }
  const paid = await paidSession({ ...ta, merchant }, { amount: 9900, currency: 'CNY', description: 'Blue mug <b>', metadata: { order: 'A-1042' } })

  const first = await browser.get('/console/test/payments')
  const page1 = rowsOf(first.html)
  assert.equal(page1.length, 25)
  assert.deepEqual(page1, [paid.id, ...made.slice(-24).reverse()])
  const older = /href="([^"]+)" rel="next"/.exec(first.html)![1].replace(/&amp;/g, '&')
  assert.deepEqual(rowsOf((await browser.get(older)).html), made.slice(0, 3).reverse())
  assert.deepEqual(rowsOf((await browser.get('/console/test/payments?status=paid')).html), [paid.id])
  assert.deepEqual(rowsOf((await browser.get('/console/test/payments?q=A-1042')).html), [paid.id])
  assert.deepEqual(rowsOf((await browser.get(`/console/test/payments?q=${paid.record.id}`)).html), [paid.id])
  assert.deepEqual(rowsOf((await browser.get(`/console/test/payments?q=${made[3]}`)).html), [made[3]])
  // The days they were made on (UTC): two when the 27 seconds of the test clock crossed midnight.
  const day = (d: Date) => d.toISOString().slice(0, 10)
  assert.equal(rowsOf((await browser.get(`/console/test/payments?from=${day(firstMadeAt)}&to=${day(ta.clock())}&status=pending`)).html).length, 25)
  assert.deepEqual(rowsOf((await browser.get('/console/test/payments?from=2001-01-01&to=2001-01-02')).html), [])
  assert.deepEqual(rowsOf((await browser.get('/console/live/payments')).html), [], 'live shows no test payment')
  assert.equal((await browser.get(`/console/live/payments/${paid.id}`)).status, 404)
  const other = await signedIn(ta, { name: 'Other' })
  assert.equal((await other.browser.get(`/console/test/payments/${paid.id}`)).status, 404)

  const page = await browser.get(`/console/test/payments/${paid.id}`)
  assert.match(page.html, /¥99\.00\u00a0CNY/)
  assert.match(page.html, /Blue mug &lt;b&gt;/)
  assert.match(page.html, new RegExp(paid.record.id))
  assert.match(page.html, /payment\.succeeded/)
  const csrf = csrfOf(page.html)
  const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.html)![1]
  const review = await browser.post(`/console/test/payments/${paid.id}/refund`, { csrf, idempotencyKey: key, amount: '25.50', reason: 'chipped' })
  assert.equal(review.status, 200, 'a confirmation first')
  const form = confirmFields(review.html)
  const [a, b] = await Promise.all([browser.post(`/console/test/payments/${paid.id}/refund`, form), browser.post(`/console/test/payments/${paid.id}/refund`, form)])
  assert.equal(a.status, 303)
  assert.equal(b.status, 303)
  assert.equal(a.location, b.location)
  const again = await browser.post(`/console/test/payments/${paid.id}/refund`, form)
  assert.equal(again.location, a.location, 'a reload of the post refunds nothing more')
  const api = await ta.request('GET', `/api/v1/records/${paid.record.id}`, { key: m.testKey })
  assert.equal(api.body.refundedAmount, 2550)
  assert.equal(api.body.refunds.length, 1)
  assert.equal(api.body.refunds[0].reason, 'chipped')
  const after = await browser.get(a.location!)
  assert.match(after.html, /¥25\.50\u00a0CNY, Succeeded/)
  assert.match(after.html, /refund\.succeeded/)

  const bad = await browser.post(`/console/test/payments/${paid.id}/refund`, { csrf, idempotencyKey: 'another-key-0123456789', amount: '1.234' })
  assert.equal(bad.status, 400)
  assert.equal((await browser.post(`/console/test/payments/${paid.id}/refund`, { idempotencyKey: 'k'.repeat(20), amount: '1' })).status, 403, 'CSRF')
  assert.equal((await browser.post(`/console/test/payments/${paid.id}/refund`, { ...form, csrf: 'forged' })).status, 403, 'CSRF on the confirmation too')
  assert.equal((await other.browser.post(`/console/test/payments/${paid.id}/refund`, { csrf: csrfOf((await other.browser.get('/console/test/payments')).html), idempotencyKey: 'k'.repeat(20), amount: '1' })).status, 404)
  assert.equal((await ta.request('GET', `/api/v1/records/${paid.record.id}`, { key: m.testKey })).body.refundedAmount, 2550)

  const activity = await browser.get('/console/test/activity')
  assert.equal((activity.html.match(/data-action="refund_created"/g) ?? []).length, 1)
  assert.match(activity.html, /¥25\.50\u00a0CNY/)
})

/** A signed-in merchant with a paid payment of `amount` `currency`, its page, and a post of the refund form on it. */
async function refundable(t: Parameters<typeof startTestApp>[0], body: Record<string, unknown>, headers: Record<string, string> = {}, refundBehavior?: string) {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const zh = new ConsoleBrowser(ta, headers)
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  const merchant = { id: m.id, testKey: m.testKey, liveKey: m.liveKey }
  const paid = await paidSession({ ...ta, merchant }, body, refundBehavior)
  const path = `/console/test/payments/${paid.id}`
  const review = async (fields: Record<string, string>) => {
    const page = await zh.get(path)
    // With nothing left the page has no form: a form kept from before still posts.
    const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.html)?.[1] ?? 'a-form-from-before-0123'
    return zh.post(`${path}/refund`, { csrf: csrfOf(page.html), idempotencyKey: key, reason: '', ...fields })
  }
  const record = async () => (await ta.request('GET', `/api/v1/records/${paid.record.id}`, { key: m.testKey })).body
  return { ta, browser: zh, paid, path, review, record }
}

test('a console refund is confirmed first: the amount in major units and what will remain refundable, and nothing moves until confirmed', async (t) => {
  const { browser, path, review, record } = await refundable(t, { amount: 9900, currency: 'CNY' })
  const page = await review({ amount: '25.50', reason: 'chipped' })
  assert.equal(page.status, 200)
  assert.match(page.html, /<h1>Refund ¥25\.50\u00a0CNY\?<\/h1>/)
  assert.match(page.html, /<dt>Paid<\/dt><dd>¥99\.00\u00a0CNY<\/dd>/)
  assert.match(page.html, /<dt>This refund<\/dt><dd><strong>¥25\.50\u00a0CNY<\/strong><\/dd>/)
  assert.match(page.html, /<dt>Still refundable after this refund<\/dt><dd>¥73\.50\u00a0CNY<\/dd>/)
  assert.match(page.html, /<dt>Reason<\/dt><dd>chipped<\/dd>/)
  assert.match(page.html, /<button type="submit" class="button button-danger">Refund ¥25\.50\u00a0CNY<\/button>/)
  assert.match(page.html, new RegExp(`<a class="button button-secondary" href="${path}">Change the refund</a>`))
  assert.equal((await record()).refunds.length, 0, 'nothing is refunded by the review')
  const fields = confirmFields(page.html)
  assert.deepEqual(Object.keys(fields).sort(), ['amountMinor', 'confirm', 'csrf', 'idempotencyKey', 'reason'])
  assert.equal(fields.amountMinor, '2550')
  const done = await browser.post(`${path}/refund`, fields)
  assert.equal(done.status, 303)
  assert.equal((await record()).refundedAmount, 2550)
  // The next review counts what was refunded.
  const second = await review({ amount: '' })
  assert.match(second.html, /<h1>Refund ¥73\.50\u00a0CNY\?<\/h1>/, 'empty means everything left')
  assert.match(second.html, /<dt>Already refunded<\/dt><dd>¥25\.50\u00a0CNY<\/dd>/)
  assert.match(second.html, /<dt>Still refundable after this refund<\/dt><dd>¥0\.00\u00a0CNY<\/dd>/)
})

test('the confirmation in Chinese, and in whole yen for JPY', async (t) => {
  const { review } = await refundable(t, { amount: 1500, currency: 'JPY' }, { 'accept-language': 'zh-CN' })
  const page = await review({ amount: '500' })
  assert.equal(page.status, 200)
  assert.match(page.html, /<h1>退款 ¥500\u00a0JPY？<\/h1>/)
  assert.match(page.html, /<dt>本次退款后剩余可退<\/dt><dd>¥1,000\u00a0JPY<\/dd>/)
  assert.match(page.html, />确认退款 ¥500\u00a0JPY<\/button>/)
})

test('an over-refund is explained in words, in both languages, at the review and at the confirmation, and refunds nothing', async (t) => {
  const { browser, path, review, record } = await refundable(t, { amount: 9900, currency: 'CNY' }, { 'accept-language': 'en' })
  await browser.post(`${path}/refund`, confirmFields((await review({ amount: '25.50' })).html))
  const tooMuch = await review({ amount: '80' })
  assert.equal(tooMuch.status, 400)
  assert.match(tooMuch.html, /You can refund at most ¥73\.50\u00a0CNY of this payment: ¥99\.00\u00a0CNY was paid and ¥25\.50\u00a0CNY has already been refunded\./)
  assert.doesNotMatch(tooMuch.html, /amount exceeds refundable/)
  assert.match(tooMuch.html, /value="80"/, 'the amount typed stays in the form to correct')
  browser.headers['accept-language'] = 'zh-CN'
  const zh = await review({ amount: '80' })
  assert.match(zh.html, /本笔付款最多还可退款 ¥73\.50\u00a0CNY：已付 ¥99\.00\u00a0CNY，已退款 ¥25\.50\u00a0CNY。/)
  browser.headers['accept-language'] = 'en'

  // Reviewed while 73.50 was left; another refund of 50 lands before the confirmation.
  const stale = confirmFields((await review({ amount: '73.50' })).html)
  await browser.post(`${path}/refund`, confirmFields((await review({ amount: '50' })).html))
  const late = await browser.post(`${path}/refund`, stale)
  assert.equal(late.status, 400)
  assert.match(late.html, /You can refund at most ¥23\.50\u00a0CNY of this payment: ¥99\.00\u00a0CNY was paid and ¥75\.50\u00a0CNY has already been refunded\./)
  assert.equal((await record()).refundedAmount, 7550)
})

test('with a refund still pending, the words say what is being refunded; with nothing left, that nothing can be', async (t) => {
  const { browser, path, review, record } = await refundable(t, { amount: 10000, currency: 'USD' }, {}, 'pending')
  await browser.post(`${path}/refund`, confirmFields((await review({ amount: '30' })).html))
  assert.equal((await record()).refunds[0].status, 'pending')
  const tooMuch = await review({ amount: '80' })
  assert.equal(tooMuch.status, 400)
  assert.match(tooMuch.html, /You can refund at most \$70\.00\u00a0USD of this payment: \$100\.00\u00a0USD was paid, \$0\.00\u00a0USD has already been refunded and \$30\.00\u00a0USD is being refunded\./)
  const rest = await review({ amount: '' })
  assert.match(rest.html, /<dt>Being refunded<\/dt><dd>\$30\.00\u00a0USD<\/dd>/)
  assert.match(rest.html, /<dt>Still refundable after this refund<\/dt><dd>\$0\.00\u00a0USD<\/dd>/)
  await browser.post(`${path}/refund`, confirmFields(rest.html))
  // A form from before: nothing is left.
  const none = await review({ amount: '1' })
  assert.equal(none.status, 400)
  assert.match(none.html, /Nothing more can be refunded: the whole \$100\.00\u00a0USD has been refunded or is being refunded\./)
  assert.equal((await record()).refunds.length, 2)
})

test('an empty payments list says what to do next: live without a provider, how to connect one; live with one, the live key; test, the test key; filtered, clear the filters', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const zh = new ConsoleBrowser(ta, { 'accept-language': 'zh-CN' })
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  const empty = async (b: ConsoleBrowser, path: string) => {
    const page = await b.get(path)
    assert.equal(page.status, 200)
    assert.deepEqual(rowsOf(page.html), [])
    return page.html
  }
  const live = await empty(browser, '/console/live/payments')
  assert.match(live, /No live payments yet\. To take live payments, <a href="\/console\/live\/providers">connect a payment provider<\/a>, then create checkouts with a live key\./)
  assert.match(await empty(zh, '/console/live/payments'), /还没有正式支付。要收取真实付款，请先<a href="\/console\/live\/providers">接入一个支付渠道<\/a>，再用正式密钥创建付款。/)

  const config = await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'creem', label: 'main', credentials: creemCredentials() })
  assert.equal(config.status, 201, config.text)
  assert.match(await empty(browser, '/console/live/payments'), /No live payments yet\. Checkouts you create with a <a href="\/console\/live\/keys">live key<\/a> appear here\./)
  assert.match(await empty(zh, '/console/live/payments'), /还没有正式支付。用<a href="\/console\/live\/keys">正式密钥<\/a>创建的付款会显示在这里。/)
  // A disabled configuration takes no payments: back to connecting one.
  await ta.admin('PATCH', `/merchants/${m.id}/provider_configs/${config.body.id}`, { enabled: false })
  assert.match(await empty(browser, '/console/live/payments'), /connect a payment provider/)

  assert.match(await empty(browser, '/console/test/payments'), /No test payments yet\. Create a checkout with a <a href="\/console\/test\/keys">test key<\/a> and pay it on its page: it appears here\./)
  assert.match(await empty(zh, '/console/test/payments'), /还没有测试支付。用<a href="\/console\/test\/keys">测试密钥<\/a>创建一笔付款并在付款页面上支付，它就会显示在这里。/)

  await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 100, currency: 'CNY' } })
  const filtered = await empty(browser, '/console/test/payments?status=paid')
  assert.match(filtered, /No payments match these filters\. <a href="\/console\/test\/payments">Clear the filters<\/a> to see all\./)
  assert.doesNotMatch(filtered, /No test payments yet/)
  assert.match(await empty(zh, '/console/test/payments?status=paid'), /没有符合筛选条件的支付。<a href="\/console\/test\/payments">清除筛选条件<\/a>即可查看全部。/)
})

test('list filters it cannot read answer 400 with a message on the page, never 500: a NUL in the search, a repeated filter, impossible or out-of-range dates', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const paid = await paidSession({ ...ta, merchant: { id: m.id, testKey: m.testKey, liveKey: m.liveKey } }, { amount: 100, currency: 'CNY', metadata: { order: 'A-1' } })
  const list = (query: string) => browser.get(`/console/test/payments?${query}`)
  const refused = async (query: string, message: RegExp) => {
    const page = await list(query)
    assert.equal(page.status, 400, query)
    assert.match(page.html, message, query)
    assert.match(page.html, /role="search"/, `${query}: the filters are still there to fix`)
    assert.deepEqual(rowsOf(page.html), [], query)
  }
  await refused('q=A-1%00', /The search cannot contain a NUL character/)
  await refused('q=A-1&q=A-2', /The filter “q” was given more than once/)
  await refused('status=paid&status=pending', /The filter “status” was given more than once/)
  await refused('from=2026-01-01&from=2026-01-02', /“from” was given more than once/)
  const zh = new ConsoleBrowser(ta, { 'accept-language': 'zh-CN' })
  zh.cookies.set('till_console', browser.cookies.get('till_console')!)
  assert.match((await zh.get('/console/test/payments?q=a&q=b')).html, /筛选条件“q”给出了不止一次/)
  for (const date of ['0000-01-01', '2026-02-30', '2026-13-01', '20260101', '+02026-01-01', '2026-1-1']) {
    await refused(`from=${date}`, /Dates must be real days written year-month-day, from 0001-01-01 to 9999-12-31/)
    await refused(`to=${date}`, /Dates must be real days/)
  }
  // The calendar's very ends are dates like any other.
  assert.deepEqual(rowsOf((await list('from=0001-01-01&to=9999-12-31')).html), [paid.id])
  assert.deepEqual(rowsOf((await list('from=9999-12-31')).html), [])
  assert.deepEqual(rowsOf((await list('to=0001-01-01')).html), [])
  assert.deepEqual(rowsOf((await list('from=2024-02-29&q=A-1')).html), [paid.id], 'a leap day')
})

test('a payment\'s page costs the same few queries with 20 events as with 200, each with its delivery and attempts', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const endpoint = await ta.request('POST', '/api/v1/webhook_endpoints', { key: m.testKey, body: { url: 'https://hooks.example.com/till' } })
  assert.equal(endpoint.status, 201, endpoint.text)
  const scope = { merchantId: m.id, mode: 'test' as const }
  const merchant = { id: m.id, testKey: m.testKey, liveKey: m.liveKey }
  const busyPayment = async (events: number) => {
    const paid = await paidSession({ ...ta, merchant }, { amount: 5000, currency: 'CNY' })
    const made = Number((await ta.database.pool.query(`select count(*) from events where data->>'sessionId' = $1`, [paid.id])).rows[0].count)
    for (let i = made; i < events; i++) await appendEvent(ta.deps.db, scope, 'refund.failed', { sessionId: paid.id, recordId: paid.record.id }, ta.clock())
    // Every delivery tried twice: the page shows how often, and the last answer.
    await ta.database.pool.query(`insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error)
      select d.id, now() + (n || ' s')::interval, case n when 1 then 502 else 418 end, 3, null
      from webhook_deliveries d join events e on e.id = d.event_id, generate_series(1, 2) n where e.data->>'sessionId' = $1`, [paid.id])
    return paid.id as string
  }
  const cost = async (id: string, events: number) => {
    let html = ''
    const n = await statementsDuring(ta.database.pool, async () => {
      const page = await browser.get(`/console/test/payments/${id}`)
      assert.equal(page.status, 200)
      html = page.html
    })
    assert.equal((html.match(/data-event="evt_/g) ?? []).length, events)
    assert.equal((html.match(/hooks\.example\.com\/till · <span class="badge[^"]*">Pending<\/span> · 2× · 418/g) ?? []).length, events, 'each event with its delivery, attempts and last answer')
    return n
  }
  const few = await cost(await busyPayment(20), 20)
  const many = await cost(await busyPayment(200), 200)
  t.diagnostic(`${few} queries with 20 events, ${many} with 200`)
  assert.ok(many <= 15, `${many} queries for a page with 200 events`)
  assert.equal(many, few, 'the count does not grow with the events')
})
