import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AmountExceedsRefundable } from './errors.js'
import { recordStatus, refundable, refundAmount, type RecordStatus } from './refund-math.js'

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
        return true
      },
      `${requested} of ${available}`,
    )
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
