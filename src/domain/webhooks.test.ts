import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eventPayload, isDelivered, MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter, recentWindowStart, sign, signatureHeader, successRate } from './webhooks.js'

const now = new Date('2026-11-21T09:30:00.000Z')
const MIN = 60_000
const HOUR = 3600_000

test('the body has id, type, createdAt, mode and data, in that order', () => {
  const body = eventPayload({ id: 'evt_1', type: 'payment.succeeded', mode: 'test', data: { sessionId: 'sess_1', amount: 9900 }, createdAt: now })
  assert.equal(body, '{"id":"evt_1","type":"payment.succeeded","createdAt":"2026-11-21T09:30:00.000Z","mode":"test","data":{"sessionId":"sess_1","amount":9900}}')
})

test('signature: lowercase hex HMAC-SHA256 of the body with the whole secret (RFC 4231 case 2 key and data)', () => {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  assert.equal(sign('Jefe', 'what do ya want for nothing?'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  assert.equal(sign('whsec_abc', Buffer.from('{}')), sign('whsec_abc', '{}'))
  assert.match(sign('whsec_abc', '{}'), /^[0-9a-f]{64}$/)
})

test('after a rotation the header carries the new signature, then the old one, comma-separated', () => {
  const body = '{"id":"evt_1"}'
  assert.equal(signatureHeader(['whsec_new'], body), sign('whsec_new', body))
  assert.equal(signatureHeader(['whsec_new', 'whsec_old'], body), `${sign('whsec_new', body)},${sign('whsec_old', body)}`)
})

test('Retry-After in seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('120', now), 120_000)
  assert.equal(parseRetryAfter(' 0 ', now), 0)
  assert.equal(parseRetryAfter(['30', '99'], now), 30_000)
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 10:30:00 GMT', now), HOUR)
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 08:30:00 GMT', now), 0)
  for (const bad of [undefined, '', 'soon', '-5', '1.5']) assert.equal(parseRetryAfter(bad, now), null, String(bad))
})

test('the retry schedule: 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h, then failed', () => {
  const mid = () => 0.5 // no jitter
  const waits = []
  for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) waits.push(nextAttemptAt(now, attempt, null, mid)!.getTime() - now.getTime())
  assert.deepEqual(waits, [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 24 * HOUR, 24 * HOUR])
  assert.equal(MAX_ATTEMPTS, 10)
  assert.equal(nextAttemptAt(now, 10, null, mid), null)
})

test('jitter stays within ±10 % of the step', () => {
  assert.equal(nextAttemptAt(now, 1, null, () => 0)!.getTime() - now.getTime(), 54_000)
  assert.equal(nextAttemptAt(now, 1, null, () => 0.999999)!.getTime() - now.getTime(), 66_000)
  assert.equal(nextAttemptAt(now, 4, null, () => 0)!.getTime() - now.getTime(), 1.8 * HOUR)
})

test('a Retry-After longer than the step wins; a shorter one does not; it is capped at 24 h', () => {
  const mid = () => 0.5
  assert.equal(nextAttemptAt(now, 1, 10 * MIN, mid)!.getTime() - now.getTime(), 10 * MIN)
  assert.equal(nextAttemptAt(now, 1, 5_000, mid)!.getTime() - now.getTime(), MIN)
  assert.equal(nextAttemptAt(now, 1, 400 * HOUR, mid)!.getTime() - now.getTime(), 24 * HOUR)
  // Even a Retry-After does not extend the schedule past its last attempt.
  assert.equal(nextAttemptAt(now, 10, HOUR, mid), null)
})

test('2xx is delivered; anything else, or no answer, is not', () => {
  for (const code of [200, 201, 204, 299]) assert.equal(isDelivered(code), true, String(code))
  for (const code of [null, 100, 199, 301, 302, 304, 400, 410, 500, 503]) assert.equal(isDelivered(code), false, String(code))
})

test('the recent window starts 23 whole hours before the current hour; the rate has 4 decimals and is null without attempts', () => {
  assert.equal(recentWindowStart(new Date('2030-05-02T10:59:59.999Z')).toISOString(), '2030-05-01T11:00:00.000Z')
  assert.equal(recentWindowStart(new Date('2030-05-02T11:00:00.000Z')).toISOString(), '2030-05-01T12:00:00.000Z')
  assert.equal(successRate(0, 0), null)
  assert.equal(successRate(2, 1), 0.6667)
  assert.equal(successRate(0, 5), 0)
  assert.equal(successRate(7, 0), 1)
})
