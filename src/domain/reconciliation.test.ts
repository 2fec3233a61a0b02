import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  addDays, BOUNDARY_MS, classify, dayIn, daysToReconcile, GRACE_MS, isDay, isMismatch, itemFingerprint, MISMATCH_CATEGORIES,
  nextStatementTry, paymentRefundsSide, type LineSide, type PairInput, type TillSide,
} from './reconciliation.js'

// 2026-05-20 in Beijing time: 2026-05-19T16:00Z to 2026-05-20T16:00Z.
const day = { start: new Date('2026-05-19T16:00:00.000Z'), end: new Date('2026-05-20T16:00:00.000Z') }
const noon = new Date('2026-05-20T04:00:00.000Z')
const nextMorning = new Date('2026-05-21T02:00:00.000Z')
const weekLater = new Date('2026-05-27T02:00:00.000Z')

const line = (o: Partial<LineSide> = {}): LineSide => ({ kind: 'payment', amount: 9900, currency: 'CNY', status: 'succeeded', at: noon, ...o })
const till = (o: Partial<TillSide> = {}): TillSide => ({ kind: 'payment', amount: 9900, currency: 'CNY', status: 'succeeded', at: noon, ...o })
const run = (p: Partial<PairInput>) => classify({ line: null, till: null, day, now: nextMorning, ...p })

test('a payment on both sides with the same amount and currency is matched', () => {
  assert.deepEqual(run({ line: line(), till: till() }), { category: 'matched', differences: [], expectedUntil: null })
})

test('a different amount is amount_differs, naming both amounts', () => {
  const r = run({ line: line({ amount: 9800 }), till: till() })
  assert.equal(r.category, 'amount_differs')
  assert.deepEqual(r.differences, [{ field: 'amount', till: 9900, statement: 9800 }])
})

test('amounts one fen apart differ, either way', () => {
  assert.deepEqual(run({ line: line({ amount: 9901 }), till: till() }).differences, [{ field: 'amount', till: 9900, statement: 9901 }])
  assert.equal(run({ line: line({ amount: 9899 }), till: till() }).category, 'amount_differs')
  assert.equal(run({ line: line({ kind: 'refund', amount: 899 }), till: till({ kind: 'refund', amount: 900 }) }).category, 'amount_differs')
})

test('a different currency is currency_differs, whatever the amounts', () => {
  const r = run({ line: line({ currency: 'HKD', amount: 1 }), till: till() })
  assert.equal(r.category, 'currency_differs')
  assert.deepEqual(r.differences, [{ field: 'currency', till: 'CNY', statement: 'HKD' }])
})

test('a converted payment stated in what the customer was charged is matched; a wrong charged amount differs', () => {
  const converted = till({ currency: 'HKD', amount: 1000, charged: { amount: 917, currency: 'CNY' } })
  assert.equal(run({ line: line({ amount: 917 }), till: converted }).category, 'matched')
  assert.equal(run({ line: line({ currency: 'HKD', amount: 1000 }), till: converted }).category, 'matched')
  assert.deepEqual(run({ line: line({ amount: 900 }), till: converted }).differences, [{ field: 'amount', till: 917, statement: 900 }])
})

test('refund statuses: the same final status matches; succeeded against failed differs either way', () => {
  const r = (ls: LineSide['status'], ts: TillSide['status']) => run({ line: line({ kind: 'refund', status: ls }), till: till({ kind: 'refund', status: ts }) }).category
  assert.equal(r('succeeded', 'succeeded'), 'matched')
  assert.equal(r('failed', 'failed'), 'matched')
  assert.equal(r('succeeded', 'failed'), 'status_differs')
  assert.equal(r('failed', 'succeeded'), 'status_differs')
  // The statement's row was written when the provider accepted the refund; Till knows how it ended.
  assert.equal(r('pending', 'succeeded'), 'matched')
  assert.equal(r('pending', 'failed'), 'matched')
})

test('a refund still pending at Till is expected for the grace, then status_differs', () => {
  const pair = { line: line({ kind: 'refund', status: 'succeeded' }), till: till({ kind: 'refund', status: 'pending' }) }
  const early = run(pair)
  assert.equal(early.category, 'expected')
  assert.equal(early.expectedUntil?.getTime(), noon.getTime() + GRACE_MS)
  const late = run({ ...pair, now: weekLater })
  assert.equal(late.category, 'status_differs')
  assert.deepEqual(late.differences, [{ field: 'status', till: 'pending', statement: 'succeeded' }])
})

test('a payment line Till has no record of is missing_in_till, unless its attempt is still open within the grace', () => {
  assert.equal(run({ line: line() }).category, 'missing_in_till')
  assert.equal(run({ line: line(), attempt: 'closed' }).category, 'missing_in_till')
  assert.equal(run({ line: line(), attempt: 'succeeded' }).category, 'missing_in_till', 'paid twice: the second payment has no record')
  const open = run({ line: line(), attempt: 'processing' })
  assert.equal(open.category, 'expected')
  assert.equal(run({ line: line(), attempt: 'processing', now: weekLater }).category, 'missing_in_till')
  // Neither side says money moved.
  assert.equal(run({ line: line({ status: 'failed' }), attempt: 'closed' }).category, 'matched')
  assert.equal(run({ line: line({ status: 'failed' }) }).category, 'missing_in_till', 'an order Till never made')
  assert.equal(run({ line: line({ kind: 'refund' }) }).category, 'missing_in_till')
})

test('a Till payment missing from the statement is missing_at_provider, or expected near the day\'s edges for the grace', () => {
  assert.equal(run({ till: till() }).category, 'missing_at_provider')
  const lateEvening = new Date(day.end.getTime() - BOUNDARY_MS + 1000)
  const edge = run({ till: till({ at: lateEvening }) })
  assert.equal(edge.category, 'expected')
  assert.equal(edge.expectedUntil?.getTime(), lateEvening.getTime() + GRACE_MS)
  assert.equal(run({ till: till({ at: new Date(day.start.getTime() + 1000) }) }).category, 'expected')
  assert.equal(run({ till: till({ at: lateEvening }), now: weekLater }).category, 'missing_at_provider')
  assert.equal(run({ till: till({ at: new Date(day.end.getTime() - BOUNDARY_MS - 1000) }) }).category, 'missing_at_provider')
})

test('Till refunds without a line: failed is matched (nothing moved), pending in flight, succeeded missing', () => {
  assert.equal(run({ till: till({ kind: 'refund', status: 'failed' }) }).category, 'matched')
  assert.equal(run({ till: till({ kind: 'refund', status: 'pending' }) }).category, 'expected')
  assert.equal(run({ till: till({ kind: 'refund', status: 'pending' }), now: weekLater }).category, 'missing_at_provider')
  assert.equal(run({ till: till({ kind: 'refund' }) }).category, 'missing_at_provider')
})

test('a per-payment refund line against the record\'s refunds as one: settled sum, in flight, refused, or a different sum', () => {
  const refundLine = (amount: number) => line({ kind: 'refund', amount })
  const refunds = (o: Partial<Parameters<typeof paymentRefundsSide>[0]>) => ({ currency: 'CNY', succeeded: 0, pending: 0, failed: 0, lastAt: noon, pendingAt: null, ...o })
  const of = (amount: number, o: Partial<Parameters<typeof paymentRefundsSide>[0]>) => run({ line: refundLine(amount), till: paymentRefundsSide(refunds(o), amount) })
  // Two settled refunds (and one refused) stated as their sum.
  assert.equal(of(800, { succeeded: 800, failed: 300 }).category, 'matched')
  assert.deepEqual(of(900, { succeeded: 800 }).differences, [{ field: 'amount', till: 800, statement: 900 }])
  // Refused in Till, refunded at the provider.
  assert.deepEqual(of(500, { failed: 500 }).differences, [{ field: 'status', till: 'failed', statement: 'succeeded' }])
  // One still pending in Till: the line may state it already, or not yet; either way in flight for the grace.
  const pendingAt = new Date(noon.getTime() + 60_000)
  for (const amount of [800, 1100]) {
    const r = of(amount, { succeeded: 800, pending: 300, pendingAt })
    assert.equal(r.category, 'expected')
    assert.equal(r.expectedUntil?.getTime(), pendingAt.getTime() + GRACE_MS)
  }
  assert.equal(of(999, { succeeded: 800, pending: 300, pendingAt }).category, 'amount_differs')
  assert.equal(paymentRefundsSide(refunds({ currency: 'EUR', succeeded: 1 }), 1).currency, 'EUR')
})

test('an item has at least one side', () => {
  assert.throws(() => run({}), /at least one side/)
})

test('mismatches are every category but matched and expected', () => {
  assert.deepEqual(MISMATCH_CATEGORIES, ['missing_in_till', 'missing_at_provider', 'amount_differs', 'currency_differs', 'status_differs'])
  assert.equal(isMismatch('expected'), false)
  assert.equal(isMismatch('status_differs'), true)
})

test('the fingerprint changes with the category or a side\'s money facts, not with the time', () => {
  const a = itemFingerprint('amount_differs', till(), line({ amount: 1 }))
  assert.equal(a, itemFingerprint('amount_differs', till({ at: weekLater }), line({ amount: 1, at: weekLater })))
  assert.notEqual(a, itemFingerprint('amount_differs', till(), line({ amount: 2 })))
  assert.notEqual(a, itemFingerprint('matched', till(), line({ amount: 1 })))
  assert.notEqual(itemFingerprint('missing_in_till', null, line()), itemFingerprint('missing_at_provider', till(), null))
})

test('days: in a zone, moved, checked, and the job\'s window up to yesterday', () => {
  assert.equal(dayIn(new Date('2026-05-19T16:00:00.000Z'), 'Asia/Shanghai'), '2026-05-20')
  assert.equal(dayIn(new Date('2026-05-19T15:59:59.999Z'), 'Asia/Shanghai'), '2026-05-19')
  assert.equal(dayIn(new Date('2026-05-19T15:59:59.999Z'), 'UTC'), '2026-05-19')
  assert.equal(addDays('2026-03-01', -1), '2026-02-28')
  assert.equal(addDays('2024-12-31', 1), '2025-01-01')
  assert.equal(isDay('2026-02-28'), true)
  assert.equal(isDay('2026-02-29'), false)
  assert.equal(isDay('2026-5-1'), false)
  const at = new Date('2026-05-21T01:00:00.000Z') // 09:00 on the 21st in Beijing
  assert.deepEqual(daysToReconcile(at, 'Asia/Shanghai', '2000-01-01', 3), ['2026-05-18', '2026-05-19', '2026-05-20'])
  assert.deepEqual(daysToReconcile(at, 'Asia/Shanghai', '2026-05-20', 3), ['2026-05-20'])
  assert.deepEqual(daysToReconcile(at, 'Asia/Shanghai', '2026-05-21', 3), [], 'a configuration made today has no past day yet')
  assert.deepEqual(daysToReconcile(at, 'UTC', '2000-01-01', 1), ['2026-05-20'])
})

test('a statement not given is asked for again after 15 m, 30 m, 1 h, 2 h, 4 h, then every 6 h; a longer Retry-After wins', () => {
  const waits = Array.from({ length: 8 }, (_, i) => (nextStatementTry(noon, i + 1).getTime() - noon.getTime()) / 60_000)
  assert.deepEqual(waits, [15, 30, 60, 120, 240, 360, 360, 360])
  assert.equal((nextStatementTry(noon, 1, 7200).getTime() - noon.getTime()) / 60_000, 120)
  assert.equal((nextStatementTry(noon, 6, 60).getTime() - noon.getTime()) / 60_000, 360)
  assert.equal((nextStatementTry(noon, 1, 10 * 86_400).getTime() - noon.getTime()) / 3600_000, 24, 'capped at a day')
})
