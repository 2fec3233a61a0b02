/** Idempotency-Key on POST (docs/integrate.md#errors-idempotency-and-rate-limits): replays, mismatches, in-flight requests, scope, refunds. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { refundRows } from '../helpers/store-queries.js'
import { within } from '../helpers/wait.js'

/** The spec's error shape for a key still in flight (docs/errors.md). */
const IN_FLIGHT = { error: 'a request with this idempotency key is still in progress', code: 'idempotency_in_flight' }

const checkout = (ta: TestApp, body: unknown, key: string | undefined, apiKey = ta.merchant.testKey) =>
  ta.request('POST', '/api/v1/checkout', { key: apiKey, body, headers: key ? { 'idempotency-key': key } : {} })
const refund = (ta: TestApp, body: unknown, key: string | undefined) =>
  ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body, headers: key ? { 'idempotency-key': key } : {} })

async function sessionCount(ta: TestApp, merchantId = ta.merchant.id) {
  const { rows } = await ta.database.pool.query('select count(*)::int as n from sessions where merchant_id = $1', [merchantId])
  return rows[0].n as number
}

async function keyRow(ta: TestApp, key: string, merchantId = ta.merchant.id, mode = 'test') {
  const { rows } = await ta.database.pool.query('select * from idempotency_keys where merchant_id = $1 and mode = $2 and key = $3', [merchantId, mode, key])
  return rows[0] as Record<string, any> | undefined
}

/**
 * Stores a key as another request would have left it: the same request (its fingerprint copied
 * from a real key made with the same body), no response yet, leased until `lockedUntil`.
 */
async function leaveInFlight(ta: TestApp, copyFrom: string, key: string, lockedUntil: Date) {
  const source = await keyRow(ta, copyFrom)
  assert.ok(source, 'the source key must exist')
  await ta.database.pool.query(
    'insert into idempotency_keys (merchant_id, mode, key, fingerprint, response_status, response_body, locked_until, created_at) values ($1, $2, $3, $4, null, null, $5, $6)',
    [ta.merchant.id, 'test', key, source.fingerprint, lockedUntil, ta.clock()],
  )
}

test('a checkout retried with the same key answers the same session and creates only one', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 1000, currency: 'CNY', metadata: { orderId: 'o-1' } }
  const first = await checkout(ta, body, 'order-o-1')
  assert.equal(first.status, 200)
  assert.equal(first.headers.get('idempotent-replayed'), null)

  const again = await checkout(ta, body, 'order-o-1')
  assert.equal(again.status, 200)
  assert.deepEqual(again.body, first.body)
  assert.equal(again.headers.get('idempotent-replayed'), 'true')
  assert.match(again.headers.get('content-type') ?? '', /^application\/json/)

  const third = await checkout(ta, body, 'order-o-1')
  assert.deepEqual(third.body, first.body)
  assert.equal(await sessionCount(ta), 1)

  // Without a key, the same body is a new session.
  const fresh = await checkout(ta, body, undefined)
  assert.equal(fresh.status, 200)
  assert.notEqual(fresh.body.id, first.body.id)
  assert.equal(await sessionCount(ta), 2)
})

test('a key reused with a different request is refused', async (t) => {
  const ta = await startTestApp(t)
  const first = await checkout(ta, { amount: 1000, currency: 'CNY' }, 'k-1')
  assert.equal(first.status, 200)
  const other = await checkout(ta, { amount: 2000, currency: 'CNY' }, 'k-1')
  assert.equal(other.status, 400)
  assert.deepEqual(other.body, { error: 'idempotency key reused with a different request', code: 'idempotency_mismatch' })
  assert.equal(other.headers.get('idempotent-replayed'), null)

  // Another endpoint with the same key is a different request too.
  const paid = await paidSession(ta)
  const elsewhere = await refund(ta, { recordId: paid.record.id }, 'k-1')
  assert.equal(elsewhere.status, 400)
  assert.deepEqual(elsewhere.body, { error: 'idempotency key reused with a different request', code: 'idempotency_mismatch' })
  assert.equal((await refundRows(ta, paid.record.id)).length, 0)

  // The original still replays.
  const replay = await checkout(ta, { amount: 1000, currency: 'CNY' }, 'k-1')
  assert.deepEqual(replay.body, first.body)
  assert.equal(await sessionCount(ta), 2) // the first checkout and the paid session
})

test('the same key while the first request is still in flight answers 409', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 1000, currency: 'CNY' }
  assert.equal((await checkout(ta, body, 'done')).status, 200)
  await leaveInFlight(ta, 'done', 'busy', new Date(ta.clock().getTime() + 60_000))

  const res = await checkout(ta, body, 'busy')
  assert.equal(res.status, 409)
  assert.deepEqual(res.body, IN_FLIGHT)
  assert.equal(res.headers.get('idempotent-replayed'), null)
  assert.equal(await sessionCount(ta), 1)
  // The other request's claim is left as it was.
  const row = await keyRow(ta, 'busy')
  assert.equal(row!.response_status, null)
})

test('a key released a moment after its retry arrives (its request failed) is waited for: the retry runs, no 409', async (t) => {
  const ta = await startTestApp(t)
  // As a request that failed would leave its key (in flight), until it is released 300 ms later.
  const failedThenReleased = async (key: string) => {
    await ta.database.pool.query('update idempotency_keys set response_status = null, response_body = null, locked_until = $2 where key = $1', [key, new Date(ta.clock().getTime() + 60_000)])
    return async () => {
      await new Promise((r) => setTimeout(r, 300))
      await ta.database.pool.query('delete from idempotency_keys where key = $1', [key])
    }
  }
  // Both kinds of route: the checkout claims its key with its work, the webhook endpoint before it.
  const body = { amount: 1000, currency: 'CNY' }
  assert.equal((await checkout(ta, body, 'c-1')).status, 200)
  const release = await failedThenReleased('c-1')
  const [created] = await Promise.all([checkout(ta, body, 'c-1'), release()])
  assert.equal(created.status, 200, created.text)
  assert.equal(await sessionCount(ta), 2)

  const endpoint = () => ta.request('POST', '/api/v1/webhook_endpoints', { key: ta.merchant.testKey, body: { url: 'https://example.com/hook' }, headers: { 'idempotency-key': 'w-1' } })
  assert.equal((await endpoint()).status, 201)
  const released = await failedThenReleased('w-1')
  const [again] = await Promise.all([endpoint(), released()])
  assert.equal(again.status, 201, again.text)
  assert.equal(again.headers.get('idempotent-replayed'), null)
})

test('a refund retried while the first is still being processed answers 409, then the result', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  // The first refund's provider call does not return until told: its key is claimed in flight with its reservation.
  const mock = ta.deps.providers.get('mock')!
  const original = mock.refund
  let calls = 0
  let called!: () => void
  const inCall = new Promise<void>((r) => (called = r))
  let release!: () => void
  const released = new Promise<void>((r) => (release = r))
  mock.refund = async (...args) => {
    calls++
    called()
    await released
    return original.apply(mock, args)
  }
  t.after(() => {
    mock.refund = original
  })
  const body = { recordId: paid.record.id, amount: 300 }
  const first = refund(ta, body, 'refund-busy')
  await within(30_000, inCall, 'the first refund reaching the provider')
  const row = await keyRow(ta, 'refund-busy')
  assert.equal(row!.response_status, null, 'claimed in flight with the reservation')

  const second = await refund(ta, body, 'refund-busy')
  assert.equal(second.status, 409)
  assert.deepEqual(second.body, IN_FLIGHT)
  assert.equal(second.headers.get('idempotent-replayed'), null)
  release()
  const done = await first
  assert.equal(done.status, 200)
  assert.equal(done.body.refundedAmount, 300)

  const replay = await refund(ta, body, 'refund-busy')
  assert.equal(replay.status, 200)
  assert.equal(replay.headers.get('idempotent-replayed'), 'true')
  assert.equal(replay.text, done.text)
  assert.equal((await refundRows(ta, paid.record.id)).length, 1)
  assert.equal(calls, 1)
})

test('keys belong to one merchant and one mode', async (t) => {
  const ta = await startTestApp(t)
  const other = await ta.newMerchant('Other')
  const body = { amount: 1000, currency: 'CNY' }
  const mine = await checkout(ta, body, 'shared-key')
  assert.equal(mine.status, 200)

  const theirs = await checkout(ta, body, 'shared-key', other.testKey)
  assert.equal(theirs.status, 200)
  assert.equal(theirs.headers.get('idempotent-replayed'), null)
  assert.notEqual(theirs.body.id, mine.body.id)
  assert.equal(await sessionCount(ta, other.id), 1)
  const theirSession = await ta.request('GET', `/api/v1/sessions/${theirs.body.id}`, { key: other.testKey })
  assert.equal(theirSession.status, 200)

  // The same merchant's live key: its own request (live mode has no provider here), not a replay.
  const live = await checkout(ta, body, 'shared-key', ta.merchant.liveKey)
  assert.equal(live.headers.get('idempotent-replayed'), null)
  assert.equal(live.status, 400)
  assert.deepEqual(live.body, { error: 'no provider available for CNY in live mode: add an enabled configuration of alipay or stripe or wechat that lists CNY', code: 'provider_unavailable' })

  // And each scope still replays its own answer.
  const mineAgain = await checkout(ta, body, 'shared-key')
  assert.equal(mineAgain.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(mineAgain.body, mine.body)
  const theirsAgain = await checkout(ta, body, 'shared-key', other.testKey)
  assert.equal(theirsAgain.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(theirsAgain.body, theirs.body)
  assert.equal(await sessionCount(ta), 1)
})

test('refund keys belong to one merchant: two merchants each refund their own record with the same key', async (t) => {
  const ta = await startTestApp(t)
  const other = await ta.newMerchant('Other')
  const mine = await paidSession(ta)
  const created = await ta.request('POST', '/api/v1/checkout', { key: other.testKey, body: { amount: 1000, currency: 'CNY' } })
  const theirs = await ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, { key: other.testKey, body: {} })
  const refundAs = (key: string, recordId: string, amount: number) =>
    ta.request('POST', '/api/v1/refunds', { key, body: { recordId, amount }, headers: { 'idempotency-key': 'shared-refund-key' } })
  const a = await refundAs(ta.merchant.testKey, mine.record.id, 300)
  // The same key, another merchant, the same request shape: its own refund, not a replay nor a mismatch.
  const b = await refundAs(other.testKey, theirs.body.record.id, 300)
  assert.deepEqual([a.status, a.body.id, a.body.refundedAmount], [200, mine.record.id, 300])
  assert.deepEqual([b.status, b.body.id, b.body.refundedAmount], [200, theirs.body.record.id, 300])
  assert.equal(b.headers.get('idempotent-replayed'), null)
  assert.notEqual(b.body.refund.id, a.body.refund.id)
  assert.deepEqual((await refundRows(ta, mine.record.id)).map((r) => r.merchant_id), [ta.merchant.id])
  assert.deepEqual((await refundRows(ta, theirs.body.record.id)).map((r) => r.merchant_id), [other.id])
  // With the stored answers gone, each merchant's refund still remembers its own key.
  await ta.database.pool.query('delete from idempotency_keys')
  const bAgain = await refundAs(other.testKey, theirs.body.record.id, 300)
  assert.deepEqual([bAgain.status, bAgain.body.refund.id], [200, b.body.refund.id])
})

test('a refund retried with the same key returns the same refund and never refunds twice', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const body = { recordId: paid.record.id, amount: 300, reason: 'damaged' }
  const first = await refund(ta, body, 'refund-1')
  assert.equal(first.status, 200)
  assert.equal(first.body.refundedAmount, 300)

  const again = await refund(ta, body, 'refund-1')
  assert.equal(again.status, 200)
  assert.equal(again.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(again.body, first.body)

  // Even when the stored answer is gone (a 5xx releases it, the purge drops it after 24 h),
  // the refund remembers its key: the retry answers that refund instead of making another.
  await ta.database.pool.query('delete from idempotency_keys where key = $1', ['refund-1'])
  const afterLoss = await refund(ta, body, 'refund-1')
  assert.equal(afterLoss.status, 200)
  assert.equal(afterLoss.body.refund.id, first.body.refund.id)
  assert.equal(afterLoss.body.refundedAmount, 300)

  const rows = await refundRows(ta, paid.record.id)
  assert.equal(rows.length, 1)
  const { rows: [record] } = await ta.database.pool.query('select refunded_amount from records where id = $1', [paid.record.id])
  assert.equal(record.refunded_amount, 300)
  const { rows: events } = await ta.database.pool.query("select count(*)::int as n from events where type like 'refund.%'")
  assert.equal(events[0].n, 1)

  // A new key is a new refund.
  const second = await refund(ta, body, 'refund-2')
  assert.equal(second.status, 200)
  assert.notEqual(second.body.refund.id, first.body.refund.id)
  assert.equal(second.body.refundedAmount, 600)
})

test('a refused request is replayed too: the same 4xx, not a second attempt', async (t) => {
  const ta = await startTestApp(t)
  const bad = { amount: 0, currency: 'CNY' }
  const first = await checkout(ta, bad, 'bad-1')
  assert.equal(first.status, 400)
  assert.match(first.body.error, /^amount: /)
  const again = await checkout(ta, bad, 'bad-1')
  assert.equal(again.status, 400)
  assert.deepEqual(again.body, first.body)
  assert.equal(again.headers.get('idempotent-replayed'), 'true')

  // An unknown field is refused before anything else, and remembered the same way.
  const unknown = { amount: 100, currency: 'CNY', colour: 'red' }
  const u1 = await checkout(ta, unknown, 'bad-2')
  assert.deepEqual(u1.body, { error: 'unknown field: colour', code: 'unknown_field', param: 'colour' })
  const u2 = await checkout(ta, unknown, 'bad-2')
  assert.deepEqual(u2.body, u1.body)
  assert.equal(u2.headers.get('idempotent-replayed'), 'true')

  // A business refusal: refunding more than was paid, then paying nothing more in between.
  const paid = await paidSession(ta)
  const over = await refund(ta, { recordId: paid.record.id, amount: 5000 }, 'over-1')
  assert.equal(over.status, 400)
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 1000 })
  const overAgain = await refund(ta, { recordId: paid.record.id, amount: 5000 }, 'over-1')
  assert.deepEqual(overAgain.body, over.body)
  assert.equal(overAgain.headers.get('idempotent-replayed'), 'true')
  assert.equal(await sessionCount(ta), 1)
})

test('a key whose first request died (lease lapsed, no answer) is taken over by the retry', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 1000, currency: 'CNY' }
  assert.equal((await checkout(ta, body, 'seed')).status, 200)
  await leaveInFlight(ta, 'seed', 'crashed', new Date(ta.clock().getTime() - 1000))

  const retry = await checkout(ta, body, 'crashed')
  assert.equal(retry.status, 200)
  assert.equal(retry.headers.get('idempotent-replayed'), null)
  assert.equal(await sessionCount(ta), 2)
  const row = await keyRow(ta, 'crashed')
  assert.equal(row!.response_status, 200)

  const replay = await checkout(ta, body, 'crashed')
  assert.equal(replay.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(replay.body, retry.body)
  assert.equal(await sessionCount(ta), 2)
})

test('a lapsed lease is taken over only by the same request', async (t) => {
  const ta = await startTestApp(t)
  assert.equal((await checkout(ta, { amount: 1000, currency: 'CNY' }, 'seed')).status, 200)
  await leaveInFlight(ta, 'seed', 'crashed', new Date(ta.clock().getTime() - 1000))
  const different = await checkout(ta, { amount: 1234, currency: 'CNY' }, 'crashed')
  assert.equal(different.status, 400)
  assert.deepEqual(different.body, { error: 'idempotency key reused with a different request', code: 'idempotency_mismatch' })
  assert.equal(await sessionCount(ta), 1)
})

test('a server error is not remembered: the retry with the same key runs again', async (t) => {
  const ta = await startTestApp(t)
  const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } })
  const original = ta.deps.providers.get
  ta.deps.providers.get = () => {
    throw new Error('provider registry broken')
  }
  const pay = () => ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, { key: ta.merchant.testKey, body: {}, headers: { 'idempotency-key': 'pay-1' } })
  let broken
  try {
    broken = await pay()
  } finally {
    ta.deps.providers.get = original
  }
  assert.equal(broken.status, 500)
  assert.equal(await keyRow(ta, 'pay-1'), undefined)

  const retried = await pay()
  assert.equal(retried.status, 200)
  assert.equal(retried.headers.get('idempotent-replayed'), null)
  assert.equal(retried.body.status, 'paid')
})

test('an Idempotency-Key over 255 characters is refused', async (t) => {
  const ta = await startTestApp(t)
  const long = await checkout(ta, { amount: 1000, currency: 'CNY' }, 'k'.repeat(256))
  assert.equal(long.status, 400)
  assert.match(long.body.error, /^Idempotency-Key: /)
  const ok = await checkout(ta, { amount: 1000, currency: 'CNY' }, 'k'.repeat(255))
  assert.equal(ok.status, 200)
  assert.equal(await sessionCount(ta), 1)
})

test('a refund key reused after its 24 hours is a new request, never the old refund', async (t) => {
  const ta = await startTestApp(t)
  const first = await paidSession(ta)
  const second = await paidSession(ta)
  const a = await refund(ta, { recordId: first.record.id, amount: 100 }, 'reused-key')
  assert.equal(a.status, 200)
  ta.clock.advance(25 * 3600_000)
  await ta.database.pool.query('delete from idempotency_keys') // the purge job's work after 24 h
  const b = await refund(ta, { recordId: second.record.id, amount: 200 }, 'reused-key')
  assert.equal(b.status, 200)
  assert.equal(b.body.id, second.record.id)
  assert.equal(b.body.refund.amount, 200)
  assert.notEqual(b.body.refund.id, a.body.refund.id)
  assert.equal((await refundRows(ta, second.record.id)).length, 1)
})

test('a refund retried after its key row was lost returns the same refund for the same request only', async (t) => {
  const ta = await startTestApp(t)
  const first = await paidSession(ta)
  const other = await paidSession(ta)
  const a = await refund(ta, { recordId: first.record.id, amount: 100 }, 'k-lost')
  await ta.database.pool.query('delete from idempotency_keys') // as after a takeover
  const again = await refund(ta, { recordId: first.record.id, amount: 100 }, 'k-lost')
  assert.equal(again.body.refund.id, a.body.refund.id)
  // The same record with another amount is another request, even without the stored answer to compare with.
  await ta.database.pool.query('delete from idempotency_keys')
  const otherAmount = await refund(ta, { recordId: first.record.id, amount: 200 }, 'k-lost')
  assert.deepEqual([otherAmount.status, otherAmount.body], [400, { error: 'idempotency key reused with a different request', code: 'idempotency_mismatch' }])
  assert.deepEqual((await refundRows(ta, first.record.id)).map((r) => [r.id, r.amount]), [[a.body.refund.id, 100]])
  await ta.database.pool.query('delete from idempotency_keys')
  const elsewhere = await refund(ta, { recordId: other.record.id, amount: 100 }, 'k-lost')
  assert.equal(elsewhere.status, 400)
  assert.deepEqual(elsewhere.body, { error: 'idempotency key reused with a different request', code: 'idempotency_mismatch' })
  assert.equal((await refundRows(ta, other.record.id)).length, 0)
})

test('a keyed checkout answers byte for byte what the same checkout without a key answers', async (t) => {
  const ta = await startTestApp(t)
  // Metadata comes back in the order PostgreSQL's jsonb keeps keys (by length, then bytes): a keyed
  // answer is made before its row is written and must not differ from one read back.
  const body = { amount: 1000, currency: 'CNY', description: 'order', metadata: { zeta: '1', b: '2', alpha: '3', éa: '4', ab: '5' } }
  const keyed = await checkout(ta, body, 'order-metadata')
  const plain = await checkout(ta, body, undefined)
  assert.equal(keyed.status, 200)
  assert.deepEqual(Object.keys(keyed.body.metadata), Object.keys(plain.body.metadata))
  const same = (text: string, id: string) => text.replaceAll(id, 'ID').replace(/"(expiresAt|createdAt)":"[^"]+"/g, '"$1":"T"')
  assert.equal(same(keyed.text, keyed.body.id), same(plain.text, plain.body.id))
  assert.equal(keyed.headers.get('content-type'), plain.headers.get('content-type'))
  const replay = await checkout(ta, body, 'order-metadata')
  assert.equal(replay.text, keyed.text)
  assert.equal(replay.headers.get('content-type'), keyed.headers.get('content-type'))
})

test('a used key with a body the schema refuses is a mismatch, not a validation error', async (t) => {
  const ta = await startTestApp(t)
  assert.equal((await checkout(ta, { amount: 1000, currency: 'CNY' }, 'k-used')).status, 200)
  const invalid = await checkout(ta, { amount: 0, currency: 'CNY' }, 'k-used')
  assert.equal(invalid.status, 400)
  assert.deepEqual(invalid.body, { error: 'idempotency key reused with a different request', code: 'idempotency_mismatch' })
  assert.equal(invalid.headers.get('idempotent-replayed'), null)
  const row = await keyRow(ta, 'k-used')
  assert.equal(row!.response_status, 200, 'the first answer is kept')
})
