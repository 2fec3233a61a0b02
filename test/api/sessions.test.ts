/**
 * GET /api/v1/sessions/{id} (docs/integrate.md#read-sessions-records-and-refunds, docs/architecture.md#the-state-machines, docs/integrate.md#keys-modes-and-authentication): what a merchant reads back, before and
 * after payment, who may read it, and expiry seen before the sweep has run.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js'

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function newSession(ta: TestApp, body: Record<string, unknown> = { amount: 2500, currency: 'CNY' }) {
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body
}

const read = (ta: TestApp, id: string, key: string = ta.merchant.testKey) => ta.request('GET', `/api/v1/sessions/${id}`, { key })

test('an unpaid session reads back as created, with chosenProvider "mock" and no record', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)
  const res = await read(ta, created.id)
  assert.equal(res.status, 200)
  assert.deepEqual(Object.keys(res.body).sort(), ['amount', 'chosenProvider', 'createdAt', 'currency', 'description', 'expiresAt', 'customerEmail', 'id', 'locale', 'metadata', 'mode', 'status', 'url'].sort())
  // Nothing given at creation: no description, empty metadata.
  assert.equal(res.body.description, null)
  assert.deepEqual(res.body.metadata, {})
  assert.deepEqual(res.body, { ...created, chosenProvider: 'mock' })
  assert.equal(res.body.status, 'pending')
  assert.equal(Object.hasOwn(res.body, 'record'), false)
})

test('a paid session shows its payment record', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta, { amount: 1500, currency: 'JPY' })
  const paid = await ta.request('POST', `/api/v1/test_helpers/sessions/${created.id}/pay`, { key: ta.merchant.testKey, body: {} })
  assert.equal(paid.status, 200, JSON.stringify(paid.body))

  const res = await read(ta, created.id)
  assert.equal(res.status, 200)
  assert.equal(res.body.status, 'paid')
  assert.equal(res.body.chosenProvider, 'mock')
  assert.equal(res.body.amount, 1500)
  assert.deepEqual(Object.keys(res.body.record).sort(), ['amount', 'id', 'paidAt', 'provider', 'providerRef', 'refundedAmount', 'status'])
  assert.equal(res.body.record.refundedAmount, 0)
  assert.match(res.body.record.id, /^rec_[0-9A-Za-z]{24}$/)
  assert.equal(res.body.record.provider, 'mock')
  assert.equal(typeof res.body.record.providerRef, 'string')
  assert.ok(res.body.record.providerRef.length > 0)
  assert.equal(res.body.record.amount, 1500)
  assert.equal(res.body.record.status, 'paid')
  assert.match(res.body.record.paidAt, ISO_MS)
  assert.equal(res.body.record.paidAt, ta.clock().toISOString())
  // The pay helper answers the session exactly as GET shows it after payment (docs/integrate.md#test-mode).
  assert.deepEqual(paid.body, res.body)
})

test('another merchant cannot read the session: 404 Not found', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)
  const other = await ta.newMerchant('Other')
  for (const key of [other.testKey, other.liveKey]) {
    const res = await read(ta, created.id, key)
    assert.equal(res.status, 404)
    assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
  }
})

test('the same merchant\'s live key cannot read a test session: 404 Not found', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)
  const res = await read(ta, created.id, ta.merchant.liveKey)
  assert.equal(res.status, 404)
  assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
  // A second test key of the same merchant reads it.
  const extra = await ta.request('POST', `/admin/v1/merchants/${ta.merchant.id}/api_keys`, { key: ADMIN_TOKEN, body: { mode: 'test' } })
  assert.equal(extra.status, 201)
  const again = await read(ta, created.id, extra.body.key)
  assert.equal(again.status, 200)
  assert.equal(again.body.id, created.id)
})

test('an unknown session id answers 404 Not found', async (t) => {
  const ta = await startTestApp(t)
  for (const id of ['sess_AAAAAAAAAAAAAAAAAAAAAAAA', 'sess_x', 'rec_AAAAAAAAAAAAAAAAAAAAAAAA', 'nothing']) {
    const res = await read(ta, id)
    assert.equal(res.status, 404, id)
    assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
  }
})

test('an id that cannot exist (too long, NUL, broken %-escape) answers 404 Not found, not 400, 414 or 500', async (t) => {
  const ta = await startTestApp(t)
  const ids = [`sess_${'a'.repeat(60)}`, `sess_${'a'.repeat(200)}`, 'sess_%00', 'sess_%E0%A4%A']
  for (const id of ids) {
    for (const [method, path] of [['GET', `/api/v1/sessions/${id}`], ['POST', `/api/v1/test_helpers/sessions/${id}/pay`]]) {
      const res = await ta.request(method, path, { key: ta.merchant.testKey, body: method === 'POST' ? {} : undefined })
      assert.equal(res.status, 404, `${method} ${path.slice(0, 60)}: ${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
      assert.match(res.headers.get('request-id') ?? '', /^req_/)
    }
  }
})

test('a revoked key can no longer read sessions: 401', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)
  const key = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'test' })
  assert.equal(key.status, 201)
  assert.equal((await read(ta, created.id, key.body.key)).status, 200)
  const revoked = await ta.admin('DELETE', `/merchants/${ta.merchant.id}/api_keys/${key.body.id}`)
  assert.equal(revoked.status, 200)
  const res = await read(ta, created.id, key.body.key)
  assert.equal(res.status, 401)
  assert.deepEqual(res.body, { error: 'invalid API key', code: 'invalid_api_key' })
  // The merchant's other key is unaffected.
  assert.equal((await read(ta, created.id)).status, 200)
})

test('reading without a key, or with an unknown key, answers 401', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)
  const none = await ta.request('GET', `/api/v1/sessions/${created.id}`)
  assert.equal(none.status, 401)
  assert.equal(typeof none.body.error, 'string')
  const unknown = await read(ta, created.id, `sk_test_${'Z'.repeat(32)}`)
  assert.equal(unknown.status, 401)
  assert.deepEqual(unknown.body, { error: 'invalid API key', code: 'invalid_api_key' })
})

test('a session past expiresAt reads as expired before the expiry sweep has stored it', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)

  ta.clock.advance(3599 * 1000)
  assert.equal((await read(ta, created.id)).body.status, 'pending')

  ta.clock.advance(2 * 1000)
  const res = await read(ta, created.id)
  assert.equal(res.status, 200)
  assert.equal(res.body.status, 'expired')
  assert.equal(res.body.expiresAt, created.expiresAt)
  assert.equal(Object.hasOwn(res.body, 'record'), false)
  const { rows } = await ta.database.pool.query('select status from sessions where id = $1', [created.id])
  assert.equal(rows[0].status, 'pending', 'the sweep has not run: only the read reports expired')

  // An expired session cannot be paid any more.
  const pay = await ta.request('POST', `/api/v1/test_helpers/sessions/${created.id}/pay`, { key: ta.merchant.testKey, body: {} })
  assert.equal(pay.status, 400)
  assert.deepEqual(pay.body, { error: 'session is expired', code: 'session_terminal' })
})

test('a custom expiresInSeconds decides when the session reads as expired', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta, { amount: 100, currency: 'USD', expiresInSeconds: 60 })
  ta.clock.advance(59 * 1000)
  assert.equal((await read(ta, created.id)).body.status, 'pending')
  ta.clock.advance(1000)
  assert.equal((await read(ta, created.id)).body.status, 'expired')
})

test('a paid session does not turn expired when its expiry time passes', async (t) => {
  const ta = await startTestApp(t)
  const created = await newSession(ta)
  const paid = await ta.request('POST', `/api/v1/test_helpers/sessions/${created.id}/pay`, { key: ta.merchant.testKey, body: {} })
  assert.equal(paid.status, 200)
  ta.clock.advance(3601 * 1000)
  const res = await read(ta, created.id)
  assert.equal(res.body.status, 'paid')
  assert.equal(res.body.record.status, 'paid')
})
