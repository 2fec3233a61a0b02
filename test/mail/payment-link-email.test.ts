/**
 * A payment link's page asks for the buyer's email when a receipt would go out (docs/integrate.md#payment-links):
 * the address rides on the buyer's session with the page's language, and the receipt arrives through a
 * real SMTP server in that language; a malformed address is refused on the page and makes no session;
 * without a mail server the page does not ask.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMailer } from '../../src/jobs/mail.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { getPage, postForm, tokenOf } from '../helpers/pages.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'

const JA = { 'accept-language': 'ja' }

async function link(ta: TestApp) {
  const res = await ta.request('POST', '/api/v1/payment_links', { key: ta.merchant.testKey, body: { amount: 1500, currency: 'JPY', description: '抹茶' } })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body.id as string
}
const sessions = async (ta: TestApp) => (await ta.request('GET', '/api/v1/sessions', { key: ta.merchant.testKey })).body.data as { id: string }[]

test('the link page asks a Japanese buyer for an email; the session carries it and ja; the receipt arrives in Japanese', async (t) => {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: 'receipts@till.test' })
  const mailer = createMailer(ta.deps)
  t.after(() => mailer.stop())
  const id = await link(ta)
  const page = await getPage(ta, `/l/${id}`, JA)
  assert.match(page.html, /<label for="link-email">領収書の送信先メールアドレス（任意）<\/label>/)

  const refused = await postForm(ta, `/l/${id}`, { token: tokenOf(page.html), email: 'not an address' }, JA)
  assert.equal(refused.status, 400)
  assert.match(refused.html, /role="alert">メールアドレスを1件/)
  assert.match(refused.html, /value="not an address"/, 'what was typed is kept')
  assert.deepEqual(await sessions(ta), [], 'a refused address makes no session')

  const made = await postForm(ta, `/l/${id}`, { token: tokenOf(page.html), email: ' buyer@shop.example ' }, JA)
  const sessionId = /^\/c\/(sess_\w+)$/.exec(made.location ?? '')?.[1]
  assert.ok(sessionId, `${made.status} ${made.location}`)
  const session = (await ta.request('GET', `/api/v1/sessions/${sessionId}`, { key: ta.merchant.testKey })).body
  assert.equal(session.customerEmail, 'buyer@shop.example')
  assert.equal(session.locale, 'ja')

  assert.equal((await ta.request('POST', `/api/v1/test_helpers/sessions/${sessionId}/pay`, { key: ta.merchant.testKey, body: {} })).status, 200)
  assert.equal(await mailer.pump(), 1)
  const [receipt] = await sink.received(1)
  assert.deepEqual(receipt.rcptTos, ['buyer@shop.example'])
  assert.equal(receipt.headers.Subject, '[TEST] 【Acme】お支払いの領収書')
})

test('without a mail server the link page does not ask for an email, and an email posted anyway is not kept', async (t) => {
  const ta = await startTestApp(t)
  const id = await link(ta)
  const page = await getPage(ta, `/l/${id}`)
  assert.doesNotMatch(page.html, /name="email"/)
  const made = await postForm(ta, `/l/${id}`, { token: tokenOf(page.html), email: 'buyer@shop.example' })
  const sessionId = /^\/c\/(sess_\w+)$/.exec(made.location ?? '')?.[1]
  assert.ok(sessionId, `${made.status} ${made.location}`)
  assert.equal((await ta.request('GET', `/api/v1/sessions/${sessionId}`, { key: ta.merchant.testKey })).body.customerEmail, null)
})
