/**
 * Receipt and refund emails (docs/integrate.md#receipt-emails) through a real SMTP server on
 * loopback (aiosmtpd): sent once from the outbox, their headers and MIME parts right, and a server
 * that refuses or hangs retried later without holding up a payment.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { createMailer } from '../../src/jobs/mail.js'
import { JOBS, startJobs } from '../../src/jobs/runner.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'

const FROM = 'receipts@till.test'
const BUYER = 'buyer@shop.example'

async function setup(t: TestContext, timeoutMs = 30_000) {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: FROM })
  const mailer = createMailer(ta.deps, { timeoutMs })
  t.after(() => mailer.stop())
  const emailRows = async () => (await ta.deps.db.$client.query('select kind, status, attempts, last_error, next_attempt_at from emails order by created_at')).rows
  return { sink, ta, mailer, emailRows }
}

test('a paid session with customerEmail sends one receipt: From, To, Subject, Date, Message-ID, text and HTML parts', async (t) => {
  const { sink, ta, mailer } = await setup(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', customerEmail: BUYER })
  assert.equal(paid.customerEmail, BUYER)
  assert.equal(await mailer.pump(), 1)
  const [m] = await sink.received(1)
  assert.equal(await mailer.pump(), 0, 'nothing is due any more')

  assert.equal(m.mailFrom, FROM)
  assert.deepEqual(m.rcptTos, [BUYER])
  assert.equal(m.headers.From, `Acme <${FROM}>`)
  assert.equal(m.headers.To, BUYER)
  assert.equal(m.headers.Subject, '[TEST] Your receipt from Acme')
  assert.match(m.headers['Message-ID'], /^<eml_[0-9A-Za-z]{24}@till\.test>$/)
  assert.ok(Math.abs(Date.parse(m.headers.Date) - ta.clock().getTime()) < 1000, m.headers.Date)
  assert.equal(m.headers['Auto-Submitted'], 'auto-generated')
  assert.equal(m.contentType, 'multipart/alternative')
  assert.deepEqual(m.parts.map((p) => p.type), ['text/plain', 'text/html'])
  const receiptUrl = `${ta.baseUrl}/r/${paid.record.id}`
  for (const p of m.parts) {
    assert.ok(p.content.includes('¥10.00\u00a0CNY'), p.content)
    assert.ok(p.content.includes(receiptUrl), p.content)
    assert.ok(p.content.includes('UTC'), 'the date names its zone')
  }
  assert.equal(sink.messages.length, 1)
})

test('the receipt speaks the session\'s language; a refund sends a short notice the same way', async (t) => {
  const { sink, ta, mailer } = await setup(t)
  const paid = await paidSession(ta, { amount: 1500, currency: 'JPY', customerEmail: BUYER, locale: 'ja' })
  await mailer.pump()
  const [receipt] = await sink.received(1)
  assert.equal(receipt.headers.Subject, '[TEST] 【Acme】お支払いの領収書')
  assert.ok(receipt.parts[0].content.includes('¥1,500'))
  const refunded = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 500 } })
  assert.equal(refunded.status, 200)
  assert.equal(await mailer.pump(), 1)
  const [, notice] = await sink.received(2)
  assert.equal(notice.headers.Subject, '[TEST] 【Acme】返金のお知らせ')
  assert.ok(notice.parts[0].content.includes('¥500'), notice.parts[0].content)
  assert.notEqual(notice.headers['Message-ID'], receipt.headers['Message-ID'])
})

test('no address, no email; a bad address is refused and creates nothing', async (t) => {
  const { ta, mailer, emailRows } = await setup(t)
  await paidSession(ta, { amount: 1000, currency: 'CNY' })
  assert.equal(await mailer.pump(), 0)
  assert.deepEqual(await emailRows(), [])
  const bad = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY', customerEmail: 'a@b.example\r\nBcc: x@y.example' } })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.code, 'invalid_field')
  assert.equal(bad.body.param, 'customerEmail')
  const { rows } = await ta.deps.db.$client.query('select count(*)::int as n from sessions')
  assert.equal(rows[0].n, 1)
})

test('a server that refuses (5xx) is tried again later; the payment never waits; the receipt then arrives once', async (t) => {
  const { sink, ta, mailer, emailRows } = await setup(t)
  await sink.answer('refuse')
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', customerEmail: BUYER })
  assert.equal(paid.status, 'paid')
  assert.equal(await mailer.pump(), 1)
  const [row] = await emailRows()
  assert.equal(row.status, 'pending')
  assert.equal(row.attempts, 1)
  assert.match(row.last_error, /554/)
  assert.equal(await mailer.pump(), 0, 'not before its retry time')
  await sink.answer('accept')
  ta.clock.advance(60_000)
  assert.equal(await mailer.pump(), 1)
  await sink.received(1)
  assert.equal(await mailer.pump(), 0)
  assert.equal(sink.messages.length, 1)
  const [sent] = await emailRows()
  assert.equal(sent.status, 'sent')
  assert.equal(sent.attempts, 2)
})

test('a server that hangs holds no payment: others are paid meanwhile, and the email is retried after the timeout', async (t) => {
  const { sink, ta, mailer, emailRows } = await setup(t, 1000)
  await sink.answer('hang')
  await paidSession(ta, { amount: 1000, currency: 'CNY', customerEmail: BUYER })
  const sending = mailer.pump()
  // While the attempt hangs on the server, another payment goes through.
  const other = await paidSession(ta, { amount: 2000, currency: 'CNY' })
  assert.equal(other.status, 'paid')
  assert.equal(await sending, 1)
  const [row] = await emailRows()
  assert.equal(row.status, 'pending')
  assert.equal(row.attempts, 1)
  assert.ok(row.last_error, 'the timeout is the attempt\'s error')
  await sink.answer('accept')
  ta.clock.advance(60_000)
  // The retry's exchange with the server is not held to the short timeout: a busy machine may be slower.
  const patient = createMailer(ta.deps)
  t.after(() => patient.stop())
  assert.equal(await patient.pump(), 1)
  await sink.received(1)
  assert.equal(sink.messages.length, 1)
})

test('on a running instance the mail job sends the receipt as soon as the payment commits', async (t) => {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: FROM })
  const jobs = startJobs(ta.deps, JOBS.filter((j) => j.name === 'mail'))
  t.after(() => jobs.stop())
  await paidSession(ta, { amount: 1000, currency: 'CNY', customerEmail: BUYER })
  const [m] = await sink.received(1)
  assert.deepEqual(m.rcptTos, [BUYER])
})
