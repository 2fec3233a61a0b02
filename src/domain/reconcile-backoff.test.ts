import assert from 'node:assert/strict'
import { test } from 'node:test'
import { nextAttemptCheck, nextRefundCheck } from './reconcile-backoff.js'

const now = new Date('2026-01-01T00:00:00.000Z')
const waitS = (next: Date) => (next.getTime() - now.getTime()) / 1000

test('a pending refund is asked about after 30 s, 1 m, 2 m, 5 m, 10 m, 30 m, then hourly', () => {
  const schedule = Array.from({ length: 10 }, (_, checks) => waitS(nextRefundCheck(now, checks)))
  assert.deepEqual(schedule, [30, 60, 120, 300, 600, 1800, 3600, 3600, 3600, 3600])
  assert.equal(waitS(nextRefundCheck(now, 10_000)), 3600, 'hourly for ever, however many checks')
})

test('a processing attempt is asked about after 1 m, 2 m, 5 m, 10 m, 30 m, then hourly', () => {
  const schedule = Array.from({ length: 8 }, (_, checks) => waitS(nextAttemptCheck(now, checks)))
  assert.deepEqual(schedule, [60, 120, 300, 600, 1800, 3600, 3600, 3600])
})

test('the next check is counted from the time given, not from the clock', () => {
  const later = new Date(now.getTime() + 7 * 86_400_000)
  assert.equal(nextRefundCheck(later, 0).toISOString(), '2026-01-08T00:00:30.000Z')
})
