import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LOCALES } from './locales.js'
import { receiptMail, type MailFacts } from './receipt-mail.js'

const facts: MailFacts = {
  kind: 'receipt', locale: 'en', merchantName: 'Tea & <Co>', supportEmail: 'help@tea.example', amount: '¥99.00 CNY',
  date: 'Nov 21, 2026, 17:30 GMT+8', receiptUrl: 'https://till.example/r/rec_1', testMode: false,
}

test('a receipt names the merchant, amount, date, link and support address, the HTML escaped', () => {
  const m = receiptMail(facts)
  assert.equal(m.subject, 'Your receipt from Tea & <Co>')
  for (const part of ['Tea & <Co>', '¥99.00 CNY', 'Nov 21, 2026, 17:30 GMT+8', 'https://till.example/r/rec_1', 'help@tea.example']) assert.ok(m.text.includes(part), part)
  assert.ok(m.html.includes('Tea &#38; &#60;Co&#62;'))
  assert.ok(!m.html.includes('<Co>'))
  assert.ok(m.html.includes('href="https://till.example/r/rec_1"'))
})

test('each language has its own words; a refund notice says the amount came back; test mode says so', () => {
  const subjects = new Set(LOCALES.map((locale) => receiptMail({ ...facts, locale }).subject))
  assert.equal(subjects.size, LOCALES.length)
  assert.match(receiptMail({ ...facts, locale: 'ja' }).subject, /領収書/)
  assert.match(receiptMail({ ...facts, locale: 'zh-HK' }).text, /多謝/)
  const refund = receiptMail({ ...facts, kind: 'refund', amount: '¥10.00 CNY', locale: 'zh-CN' })
  assert.match(refund.subject, /退款/)
  assert.match(refund.text, /退款金额: ¥10\.00 CNY/)
  assert.match(receiptMail({ ...facts, testMode: true }).subject, /^\[TEST\] /)
  assert.ok(!receiptMail({ ...facts, supportEmail: null }).text.includes('Questions'))
})

test('retries back off, then stop', async () => {
  const { mailRetryAt, MAIL_RETRY_DELAYS_MS } = await import('./receipt-mail.js')
  const now = new Date('2026-11-21T00:00:00Z')
  assert.equal(mailRetryAt(now, 1)?.getTime(), now.getTime() + 60_000)
  assert.ok(mailRetryAt(now, 2)!.getTime() > mailRetryAt(now, 1)!.getTime())
  assert.equal(mailRetryAt(now, MAIL_RETRY_DELAYS_MS.length + 1), null)
})
