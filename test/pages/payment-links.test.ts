/**
 * /l/{id}, a payment link's page (docs/integrate.md#payment-links): each buyer's post makes a fresh
 * session carrying the link's id and metadata (into its webhooks too); a link that is inactive,
 * expired or used up says so in the buyer's language; two buyers never both get the last payment;
 * an address is rate-limited.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { getPage, postForm, tokenOf } from '../helpers/pages.js'
import { lockWaiters } from '../helpers/wait.js'

const createLink = async (ta: TestApp, body: Record<string, unknown>) => {
  const res = await ta.request('POST', '/api/v1/payment_links', { key: ta.merchant.testKey, body })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as { id: string }
}
const readLink = async (ta: TestApp, id: string) => (await ta.request('GET', `/api/v1/payment_links/${id}`, { key: ta.merchant.testKey })).body
const sessionOf = (location: string | null) => {
  const m = /^\/c\/(sess_\w+)$/.exec(location ?? '')
  assert.ok(m, `not a checkout: ${location}`)
  return m[1]
}

/** Opens the link's page and posts its form as a buyer would. */
async function buy(ta: TestApp, linkId: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const page = await getPage(ta, `/l/${linkId}`, headers)
  assert.equal(page.status, 200, page.html)
  return postForm(ta, `/l/${linkId}`, { token: tokenOf(page.html), ...fields }, headers)
}

test('a buyer\'s post makes a fresh session with the link\'s amount, description, metadata and id; its payment event carries them', async (t) => {
  const ta = await startTestApp(t)
  const link = await createLink(ta, { amount: 9900, currency: 'CNY', description: 'Green tea', metadata: { sku: 'T-1' } })
  const page = await getPage(ta, `/l/${link.id}`)
  assert.match(page.html, /Green tea/)
  assert.match(page.html, /¥99\.00/)
  // Only the buyer's post makes a session: a link preview's GET makes none.
  assert.equal((await ta.request('GET', '/api/v1/sessions', { key: ta.merchant.testKey })).body.data.length, 0)

  const first = sessionOf((await buy(ta, link.id)).location)
  const second = sessionOf((await buy(ta, link.id)).location)
  assert.notEqual(first, second)
  const session = (await ta.request('GET', `/api/v1/sessions/${first}`, { key: ta.merchant.testKey })).body
  assert.equal(session.amount, 9900)
  assert.equal(session.currency, 'CNY')
  assert.equal(session.description, 'Green tea')
  assert.deepEqual(session.metadata, { sku: 'T-1' })
  assert.equal(session.paymentLinkId, link.id)

  const paid = await ta.request('POST', `/api/v1/test_helpers/sessions/${first}/pay`, { key: ta.merchant.testKey, body: {} })
  assert.equal(paid.status, 200)
  assert.equal(paid.body.paymentLinkId, link.id)
  const events = (await ta.request('GET', '/api/v1/events?type=payment.succeeded', { key: ta.merchant.testKey })).body.data
  assert.equal(events.length, 1)
  assert.equal(events[0].data.paymentLinkId, link.id)
  assert.deepEqual(events[0].data.metadata, { sku: 'T-1' })
  assert.equal((await readLink(ta, link.id)).paidCount, 1)
})

test('a buyer-entered amount must be in the link\'s range: refused on the page, taken when it is', async (t) => {
  const ta = await startTestApp(t)
  const link = await createLink(ta, { minAmount: 500, maxAmount: 100_000, currency: 'HKD' })
  const refused = await buy(ta, link.id, { amount: '1000.01' })
  assert.equal(refused.status, 400)
  assert.match(refused.html, /Please enter an amount between \$5\.00\sHKD and \$1,000\.00\sHKD/)
  assert.match(refused.html, /value="1000.01"/)
  assert.equal((await ta.request('GET', '/api/v1/sessions', { key: ta.merchant.testKey })).body.data.length, 0)
  const taken = sessionOf((await buy(ta, link.id, { amount: '88.80' })).location)
  assert.equal((await ta.request('GET', `/api/v1/sessions/${taken}`, { key: ta.merchant.testKey })).body.amount, 8880)
})

test('a post without the page\'s form token makes nothing', async (t) => {
  const ta = await startTestApp(t)
  const link = await createLink(ta, { amount: 100, currency: 'JPY' })
  for (const fields of [{}, { token: "forged" }] as Record<string, string>[]) {
    const res = await postForm(ta, `/l/${link.id}`, fields)
    assert.equal(res.status, 403)
  }
  assert.equal((await ta.request('GET', '/api/v1/sessions', { key: ta.merchant.testKey })).body.data.length, 0)
  assert.equal((await getPage(ta, '/l/plink_000000000000000000000000')).status, 404)
})

test('an inactive, expired or used-up link says so in the buyer\'s language and makes no session', async (t) => {
  const ta = await startTestApp(t)
  const inactive = await createLink(ta, { amount: 100, currency: 'JPY', active: false })
  const expiring = await createLink(ta, { amount: 100, currency: 'JPY', expiresAt: new Date(ta.clock().getTime() + 60_000).toISOString() })
  const once = await createLink(ta, { amount: 100, currency: 'JPY', maxPayments: 1 })
  const token = tokenOf((await getPage(ta, `/l/${expiring.id}`)).html)
  const paid = sessionOf((await buy(ta, once.id)).location)
  await ta.request('POST', `/api/v1/test_helpers/sessions/${paid}/pay`, { key: ta.merchant.testKey, body: {} })
  ta.clock.advance(60_000)

  const expected: [string, Record<string, string>, string][] = [
    [inactive.id, { 'accept-language': 'ja' }, 'この支払いリンクは無効になっています'],
    [expiring.id, { 'accept-language': 'zh-HK' }, '此付款連結已過期'],
    [once.id, { 'accept-language': 'zh-CN' }, '此付款链接的付款次数已用完'],
    [once.id, { 'accept-language': 'en' }, 'This payment link has been used up'],
  ]
  for (const [id, headers, title] of expected) {
    const page = await getPage(ta, `/l/${id}`, headers)
    assert.equal(page.status, 410)
    assert.match(page.html, new RegExp(title))
    // A test link's buyer is told, here too, that nothing is charged.
    assert.match(page.html, /<body class="test-mode"/)
  }
  // A page opened before the link expired cannot make a session after.
  const late = await postForm(ta, `/l/${expiring.id}`, { token })
  assert.equal(late.status, 410)
  assert.equal((await ta.request('GET', '/api/v1/sessions', { key: ta.merchant.testKey })).body.data.length, 1)
  // Deactivated through the API: the page says so at once.
  const live = await createLink(ta, { amount: 100, currency: 'JPY' })
  await ta.request('POST', `/api/v1/payment_links/${live.id}`, { key: ta.merchant.testKey, body: { active: false } })
  assert.equal((await getPage(ta, `/l/${live.id}`)).status, 410)
})

test('two buyers racing for the last payment: one gets a session, the other is told the link is busy; a lapsed session frees it', async (t) => {
  const ta = await startTestApp(t)
  const link = await createLink(ta, { amount: 100, currency: 'JPY', maxPayments: 2 })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${sessionOf((await buy(ta, link.id)).location)}/pay`, { key: ta.merchant.testKey, body: {} })
  const token = tokenOf((await getPage(ta, `/l/${link.id}`)).html)
  // Both buyers are held at the point of inserting their session (reads go on, inserts wait), so both have read the link before either commits.
  const holder = await ta.database.pool.connect()
  await holder.query('begin')
  await holder.query('lock table sessions in share mode')
  const racing = Promise.all([postForm(ta, `/l/${link.id}`, { token }), postForm(ta, `/l/${link.id}`, { token })])
  while (await lockWaiters(ta.database.pool) < 2) await new Promise((r) => setImmediate(r))
  await holder.query('commit')
  holder.release()
  const answers = await racing
  assert.deepEqual(answers.map((a) => a.status).sort(), [303, 409])
  const winner = sessionOf(answers.find((a) => a.status === 303)!.location)
  assert.match(answers.find((a) => a.status === 409)!.html, /This payment link is busy/)

  // The winner's session lapses unpaid: its payment is free again.
  ta.clock.advance(1800_000)
  const next = sessionOf((await buy(ta, link.id)).location)
  await ta.request('POST', `/api/v1/test_helpers/sessions/${next}/pay`, { key: ta.merchant.testKey, body: {} })
  assert.equal((await readLink(ta, link.id)).paidCount, 2)
  assert.equal((await getPage(ta, `/l/${link.id}`)).status, 410)
  assert.notEqual(winner, next)
})

test('one address makes at most 10 sessions a minute through a merchant\'s links', async (t) => {
  const ta = await startTestApp(t)
  const link = await createLink(ta, { amount: 100, currency: 'JPY' })
  const token = tokenOf((await getPage(ta, `/l/${link.id}`)).html)
  for (let i = 0; i < 10; i++) assert.equal((await postForm(ta, `/l/${link.id}`, { token })).status, 303)
  const limited = await postForm(ta, `/l/${link.id}`, { token })
  assert.equal(limited.status, 429)
  assert.equal(limited.headers.get('retry-after'), '60')
  assert.match(limited.html, /Too many attempts/)
  ta.clock.advance(60_000)
  assert.equal((await postForm(ta, `/l/${link.id}`, { token })).status, 303)
})
