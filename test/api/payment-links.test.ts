/**
 * /api/v1/payment_links (docs/integrate.md#payment-links): create, read, list by cursor, change and
 * deactivate; errors in the documented shape; scoped by merchant and mode.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestApp } from '../helpers/app.js'

const create = (ta: TestApp, body: Record<string, unknown>, key = ta.merchant.testKey, headers: Record<string, string> = {}) =>
  ta.request('POST', '/api/v1/payment_links', { key, body, headers })

test('a fixed-amount link is created, read back, and carries its url', async (t) => {
  const ta = await startTestApp(t)
  const res = await create(ta, { amount: 9900, currency: 'CNY', description: 'Tea', metadata: { sku: 'T-1' }, maxPayments: 3 })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  assert.match(res.body.id, /^plink_[0-9A-Za-z]{24}$/)
  assert.equal(res.body.url, `${ta.deps.config.baseUrl}/l/${res.body.id}`)
  assert.deepEqual({ ...res.body, id: undefined, url: undefined, createdAt: undefined, updatedAt: undefined }, {
    id: undefined, url: undefined, createdAt: undefined, updatedAt: undefined,
    active: true, amount: 9900, minAmount: null, maxAmount: null, currency: 'CNY', description: 'Tea', metadata: { sku: 'T-1' },
    providerHints: null, expiresAt: null, maxPayments: 3, paidCount: 0, mode: 'test',
  })
  const read = await ta.request('GET', `/api/v1/payment_links/${res.body.id}`, { key: ta.merchant.testKey })
  assert.equal(read.status, 200)
  assert.deepEqual(read.body, res.body)
})

test('bad amounts and fields are refused in the documented shape, and nothing is made', async (t) => {
  const ta = await startTestApp(t)
  const cases: [Record<string, unknown>, string, string][] = [
    [{ amount: 100, minAmount: 50, maxAmount: 500, currency: 'CNY' }, 'invalid_field', 'amount'],
    [{ currency: 'CNY' }, 'invalid_field', 'amount'],
    [{ minAmount: 500, currency: 'CNY' }, 'invalid_field', 'maxAmount'],
    [{ minAmount: 500, maxAmount: 100, currency: 'CNY' }, 'invalid_field', 'maxAmount'],
    [{ amount: 0, currency: 'CNY' }, 'invalid_field', 'amount'],
    [{ amount: 100, currency: 'XXX' }, 'invalid_field', 'currency'],
    [{ amount: 100, currency: 'CNY', expiresAt: '2000-01-01T00:00:00Z' }, 'invalid_field', 'expiresAt'],
    [{ amount: 100, currency: 'CNY', maxPayments: 0 }, 'invalid_field', 'maxPayments'],
    [{ amount: 100, currency: 'CNY', metadata: { ['k'.repeat(41)]: 'v' } }, 'invalid_field', 'metadata'],
    [{ amount: 100, currency: 'CNY', colour: 'red' }, 'unknown_field', 'colour'],
  ]
  for (const [body, code, param] of cases) {
    const res = await create(ta, body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.equal(res.body.code, code, JSON.stringify(res.body))
    assert.equal(res.body.param, param, JSON.stringify(res.body))
    assert.equal(typeof res.body.error, 'string')
  }
  const list = await ta.request('GET', '/api/v1/payment_links', { key: ta.merchant.testKey })
  assert.deepEqual(list.body, { data: [], hasMore: false })
})

test('live mode refuses a link no provider could take, as a session would be refused', async (t) => {
  const ta = await startTestApp(t)
  const res = await create(ta, { amount: 100, currency: 'CNY' }, ta.merchant.liveKey)
  assert.equal(res.status, 400)
  assert.equal(res.body.code, 'provider_unavailable')
})

test('links are listed newest first by cursor, each merchant and mode seeing only its own', async (t) => {
  const ta = await startTestApp(t)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) {
    ids.unshift((await create(ta, { amount: 100 + i, currency: 'JPY' })).body.id)
    ta.clock.advance(1000)
  }
  const first = await ta.request('GET', '/api/v1/payment_links?limit=2', { key: ta.merchant.testKey })
  assert.equal(first.status, 200)
  assert.deepEqual(first.body.data.map((l: { id: string }) => l.id), ids.slice(0, 2))
  assert.equal(first.body.hasMore, true)
  const rest = await ta.request('GET', `/api/v1/payment_links?limit=10&starting_after=${ids[1]}`, { key: ta.merchant.testKey })
  assert.deepEqual(rest.body.data.map((l: { id: string }) => l.id), ids.slice(2))
  assert.equal(rest.body.hasMore, false)

  const other = await ta.newMerchant('Other')
  for (const key of [other.testKey, ta.merchant.liveKey]) {
    assert.deepEqual((await ta.request('GET', '/api/v1/payment_links', { key })).body, { data: [], hasMore: false })
    const read = await ta.request('GET', `/api/v1/payment_links/${ids[0]}`, { key })
    assert.equal(read.status, 404)
    assert.deepEqual(read.body, { error: 'Not found', code: 'not_found' })
    const update = await ta.request('POST', `/api/v1/payment_links/${ids[0]}`, { key, body: { active: false } })
    assert.equal(update.status, 404)
    const cursor = await ta.request('GET', `/api/v1/payment_links?starting_after=${ids[0]}`, { key })
    assert.equal(cursor.status, 400)
    assert.equal(cursor.body.param, 'starting_after')
  }
  assert.equal((await ta.request('GET', `/api/v1/payment_links/${ids[0]}`, { key: ta.merchant.testKey })).body.active, true)
})

test('an update changes only what it sends; deactivation is a field; the amounts never change', async (t) => {
  const ta = await startTestApp(t)
  const link = (await create(ta, { minAmount: 500, maxAmount: 5000, currency: 'HKD', description: 'Tips', metadata: { a: '1' } })).body
  ta.clock.advance(1000)
  const res = await ta.request('POST', `/api/v1/payment_links/${link.id}`, { key: ta.merchant.testKey, body: { active: false, description: null, maxPayments: 2 } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.deepEqual(res.body, { ...link, active: false, description: null, maxPayments: 2, updatedAt: ta.clock().toISOString() })
  const amount = await ta.request('POST', `/api/v1/payment_links/${link.id}`, { key: ta.merchant.testKey, body: { amount: 1 } })
  assert.equal(amount.status, 400)
  assert.deepEqual([amount.body.code, amount.body.param], ['unknown_field', 'amount'])
})

test('a keyed create answers the same link again instead of making a second', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 100, currency: 'CNY' }
  const a = await create(ta, body, ta.merchant.testKey, { 'Idempotency-Key': 'link-1' })
  const b = await create(ta, body, ta.merchant.testKey, { 'Idempotency-Key': 'link-1' })
  assert.equal(a.status, 201)
  assert.deepEqual(b.body, a.body)
  assert.equal(b.headers.get('idempotent-replayed'), 'true')
  const list = await ta.request('GET', '/api/v1/payment_links', { key: ta.merchant.testKey })
  assert.equal(list.body.data.length, 1)
})
