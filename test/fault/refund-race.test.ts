/**
 * A hundred refunds of one record at once, over HTTP (the pool has 10 connections, so they really
 * overlap): the record's row lock serialises every reservation, so the refunds never add up to more
 * than the payment, exactly as many go through as fit, and each of them has its one event.
 * test/api/refunds.test.ts has the small version (twenty of 100 on 1000).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { eventsWhere, recordRow, refundRows, sessionRow } from '../helpers/store-queries.js'

async function hundredRefunds(ta: TestApp, recordId: string) {
  const answers = await Promise.all(Array.from({ length: 100 }, () =>
    ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId, amount: 15 } })))
  const ok = answers.filter((a) => a.status === 200)
  const refused = answers.filter((a) => a.status !== 200)
  return { ok, refused }
}

test('100 concurrent refunds of 15 on a payment of 1000: 66 succeed, 34 are refused with 10 refundable, one event each', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { order: 'race' } })
  const { ok, refused } = await hundredRefunds(ta, paid.record.id)

  assert.equal(ok.length, 66)
  assert.ok(ok.every((a) => a.body.refund.status === 'succeeded' && a.body.refund.amount === 15))
  assert.equal(new Set(ok.map((a) => a.body.refund.id)).size, 66)
  // 66 × 15 = 990: whatever order they ran in, 10 is left when each refusal is decided.
  assert.deepEqual(refused.map((a) => [a.status, a.body]), Array(34).fill([400, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 10 }]))

  const rows = await refundRows(ta, paid.record.id)
  assert.deepEqual([rows.length, rows.filter((r) => r.status === 'succeeded').length], [66, 66])
  const record = await recordRow(ta, paid.record.id)
  assert.deepEqual([record.refunded_amount, record.status], [990, 'partially_refunded'])
  assert.equal((await sessionRow(ta, paid.id)).status, 'paid')

  const all = await eventsWhere(ta, 'recordId', paid.record.id)
  assert.deepEqual(all.filter((e) => !e.type.startsWith('refund.')).map((e) => e.type), ['payment.succeeded'])
  const events = all.filter((e) => e.type.startsWith('refund.'))
  assert.equal(events.length, 66)
  assert.ok(events.every((e) => e.type === 'refund.succeeded' && e.data.amount === 15))
  assert.deepEqual(new Set(events.map((e) => e.data.refundId)), new Set(ok.map((a) => a.body.refund.id)))
  // Each event carries the record's total at its own commit: 15, 30, … 990, each once.
  assert.deepEqual(events.map((e) => e.data.refundedAmount).sort((a, b) => a - b), Array.from({ length: 66 }, (_, i) => 15 * (i + 1)))
  // The one left: 10 goes through, then nothing is refundable.
  const last = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id } })
  assert.deepEqual([last.status, last.body.refund.amount, last.body.status], [200, 10, 'refunded'])
})

test('100 concurrent refunds of 15 that stay pending: 66 are reserved, 34 refused, the record refunding, nothing refunded yet', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const { ok, refused } = await hundredRefunds(ta, paid.record.id)

  assert.equal(ok.length, 66)
  assert.ok(ok.every((a) => a.body.refund.status === 'pending' && a.body.status === 'refunding'))
  assert.deepEqual(refused.map((a) => [a.status, a.body]), Array(34).fill([400, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 10 }]))
  const record = await recordRow(ta, paid.record.id)
  assert.deepEqual([record.refunded_amount, record.status], [0, 'refunding'])
  const events = (await eventsWhere(ta, 'recordId', paid.record.id)).filter((e) => e.type !== 'payment.succeeded')
  assert.deepEqual([events.length, events.every((e) => e.type === 'refund.pending')], [66, true])
  assert.equal(new Set(events.map((e) => e.data.refundId)).size, 66)
})
