import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AlreadyRefunded, AmountExceedsRefundable } from './errors.js'
import { inRecordCurrency, recordStatus, refundable, refundAmount, type RecordStatus } from './refund-math.js'

test('refundable = amount − succeeded − pending, never negative', () => {
  const cases: [number, number, number, number][] = [
    // amount, refundedAmount, pendingSum, expected
    [1000, 0, 0, 1000],
    [1000, 300, 0, 700],
    [1000, 300, 200, 500],
    [1000, 0, 1000, 0],
    [1000, 1000, 0, 0],
    [1000, 600, 400, 0],
    [1000, 800, 400, 0],
  ]
  for (const [amount, refunded, pending, expected] of cases) {
    assert.equal(refundable(amount, refunded, pending), expected, `${amount} ${refunded} ${pending}`)
  }
})

test('refundAmount: omitted means everything; within bounds is returned as asked', () => {
  const cases: [number | undefined, number, number][] = [
    [undefined, 1000, 1000],
    [undefined, 1, 1],
    [1, 1000, 1],
    [999, 1000, 999],
    [1000, 1000, 1000],
  ]
  for (const [requested, available, expected] of cases) {
    assert.equal(refundAmount(requested, available), expected, `${requested} of ${available}`)
  }
})

test('refundAmount throws AmountExceedsRefundable with the refundable amount', () => {
  const cases: [number | undefined, number][] = [
    [1001, 1000], // above what remains
    [2, 1],
    [1, 0], // nothing left
    [undefined, 0], // omitted with nothing left
    [0, 1000], // zero
    [-5, 1000], // negative
  ]
  for (const [requested, available] of cases) {
    assert.throws(
      () => refundAmount(requested, available),
      (e: unknown) => {
        assert.ok(e instanceof AmountExceedsRefundable)
        assert.equal(e.status, 400)
        assert.equal(e.message, 'amount exceeds refundable')
        assert.deepEqual(e.extra, { refundable: available })
        assert.equal(e.code, 'amount_exceeds_refundable')
        return true
      },
      `${requested} of ${available}`,
    )
  }
})

test('refundAmount on a record refunded in full says so: the spec\'s words, refundable 0, code already_refunded', () => {
  for (const requested of [undefined, 1, 1000]) {
    assert.throws(() => refundAmount(requested, 0, true), (e: unknown) => {
      assert.ok(e instanceof AlreadyRefunded)
      assert.equal(e.status, 400)
      assert.equal(e.message, 'amount exceeds refundable')
      assert.equal(e.code, 'already_refunded')
      assert.deepEqual(e.extra, { refundable: 0, detail: 'the record is already refunded in full' })
      return true
    })
  }
})

test('recordStatus follows from totals; any pending refund means refunding', () => {
  const cases: [number, number, boolean, RecordStatus][] = [
    [1000, 0, false, 'paid'],
    [1000, 1, false, 'partially_refunded'],
    [1000, 999, false, 'partially_refunded'],
    [1000, 1000, false, 'refunded'],
    [1000, 0, true, 'refunding'],
    [1000, 500, true, 'refunding'],
    [1000, 1000, true, 'refunding'],
  ]
  for (const [amount, refunded, pending, expected] of cases) {
    assert.equal(recordStatus(amount, refunded, pending), expected, `${amount} ${refunded} ${pending}`)
  }
})

test('a provider\'s refund report is read only in the record\'s currency: an amount needs its currency, a bare status does not', () => {
  const cases: [{ amount?: number; currency?: string }, boolean][] = [
    [{ amount: 300, currency: 'JPY' }, true],
    [{ amount: 300, currency: 'CNY' }, false],
    [{ amount: 300, currency: 'jpy' }, false],
    [{ amount: 300 }, false],
    [{ currency: 'JPY' }, true],
    [{ currency: 'CNY' }, false],
    [{}, true],
  ]
  for (const [report, expected] of cases) assert.equal(inRecordCurrency(report, 'JPY'), expected, JSON.stringify(report))
})
