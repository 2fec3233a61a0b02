/** The buyer's emails in the console: switched off per merchant in Settings, and shown in a payment's timeline as they go. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMailer } from '../../src/jobs/mail.js'
import { startTestApp } from '../helpers/app.js'
import { signedIn } from '../helpers/console.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'

const BUYER = 'buyer@shop.example'

test('receipts off, refund notices on: a payment sends nothing, its refund sends the notice; a bad zone is refused', async (t) => {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: 'receipts@till.test' })
  const { m, browser } = await signedIn(ta)
  const bad = await browser.submit('/console/test/settings', '/console/test/settings/buyer', { refundEmails: 'on', timeZone: 'Mars/Olympus' })
  assert.equal(bad.status, 400)
  assert.match(bad.html, /timeZone: must be a time zone name/)
  const saved = await browser.submit('/console/test/settings', '/console/test/settings/buyer', { refundEmails: 'on', timeZone: 'Asia/Tokyo' })
  assert.equal(saved.status, 303)
  const page = await browser.get('/console/test/settings')
  assert.match(page.html, /name="timeZone"[^>]*value="Asia\/Tokyo"/)
  assert.doesNotMatch(page.html, /name="receiptEmails" checked/)

  const created = await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 1000, currency: 'CNY', customerEmail: BUYER } })
  const paid = await ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, { key: m.testKey, body: {} })
  assert.equal(paid.status, 200)
  const mailer = createMailer(ta.deps)
  t.after(() => mailer.stop())
  assert.equal(await mailer.pump(), 0, 'no receipt')
  const refunded = await ta.request('POST', '/api/v1/refunds', { key: m.testKey, body: { recordId: paid.body.record.id } })
  assert.equal(refunded.status, 200)
  assert.equal(await mailer.pump(), 1)
  const [notice] = await sink.received(1)
  assert.equal(notice.headers.Subject, '[TEST] Your refund from Shop')
  assert.match(notice.parts[0].content, /GMT\+9/, 'the date is in the merchant\'s zone')
})

test('a payment\'s timeline shows its receipt retrying, then sent', async (t) => {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: 'receipts@till.test' })
  const { m, browser } = await signedIn(ta)
  await sink.answer('refuse')
  const created = await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 1000, currency: 'CNY', customerEmail: BUYER } })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, { key: m.testKey, body: {} })
  const mailer = createMailer(ta.deps)
  t.after(() => mailer.stop())
  await mailer.pump()
  const retrying = await browser.get(`/console/test/payments/${created.body.id}`)
  assert.match(retrying.html, /data-email="receipt" data-email-status="retrying"/)
  assert.match(retrying.html, /Receipt email to buyer@shop\.example/)
  assert.match(retrying.html, /554/)
  await sink.answer('accept')
  ta.clock.advance(60_000)
  await mailer.pump()
  await sink.received(1)
  const sent = await browser.get(`/console/test/payments/${created.body.id}`)
  assert.match(sent.html, /data-email="receipt" data-email-status="sent"/)
})
