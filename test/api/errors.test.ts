/** Requests, errors and limits as a merchant's HTTP client sees them (docs/integrate.md#errors-idempotency-and-rate-limits, docs/operate.md). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type Api } from '../helpers/app.js'
import { createSession } from '../helpers/store-queries.js'

function assertJson(res: Api) {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
}

function requestId(res: Api): string {
  const id = res.headers.get('request-id')
  assert.ok(id && id.length > 0, `Request-Id missing on a ${res.status}`)
  return id
}

test('an unknown route answers 404 Not found as JSON, under /api/v1 and elsewhere', async (t) => {
  const ta = await startTestApp(t)
  const cases = [
    await ta.request('GET', '/api/v1/nothing-here', { key: ta.merchant.testKey }),
    await ta.request('POST', '/api/v1/nothing-here', { key: ta.merchant.testKey, body: {} }),
    await ta.request('GET', '/api/v1/nothing-here'),
    await ta.request('GET', '/api/v2/checkout', { key: ta.merchant.testKey }),
    await ta.request('GET', '/nothing-here'),
    await ta.request('GET', '/api/v1/sessions/sess_x/nothing', { key: ta.merchant.testKey }),
  ]
  for (const res of cases) {
    assert.equal(res.status, 404)
    assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
    assertJson(res)
    requestId(res)
  }
})

test('every response carries a Request-Id header, each one different', async (t) => {
  const ta = await startTestApp(t)
  const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } })
  const responses = [
    await ta.request('GET', '/healthz'),
    created,
    await ta.request('GET', `/api/v1/sessions/${created.body.id}`, { key: ta.merchant.testKey }),
    await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: -1, currency: 'CNY' } }),
    await ta.request('POST', '/api/v1/checkout', { body: { amount: 1000, currency: 'CNY' } }),
    await ta.request('GET', '/api/v1/sessions/sess_000000000000000000000000', { key: 'sk_test_nottherightkeyatall000000000' }),
    await ta.request('GET', '/api/v1/sessions/sess_000000000000000000000000', { key: ta.merchant.testKey }),
    await ta.request('GET', '/nope'),
  ]
  assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 400, 401, 401, 404, 404])
  const ids = responses.map(requestId)
  assert.equal(new Set(ids).size, ids.length)
})

test('malformed JSON is a 400 with a clear message', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw: '{"amount": 10,' })
  assert.equal(res.status, 400)
  assert.deepEqual(res.body, { error: 'invalid JSON body', code: 'invalid_json' })
  requestId(res)
})

test('/healthz and /readyz answer 200 while the database is reachable', async (t) => {
  const ta = await startTestApp(t)
  const health = await ta.request('GET', '/healthz')
  assert.equal(health.status, 200)
  assertJson(health)
  const ready = await ta.request('GET', '/readyz')
  assert.equal(ready.status, 200)
  assertJson(ready)
})

test('the OpenAPI 3.1 description documents checkout, session lookup and refunds', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.request('GET', '/api/v1/openapi.json')
  assert.equal(res.status, 200)
  assertJson(res)
  const doc = res.body
  assert.equal(doc.openapi, '3.1.0')
  assert.equal(typeof doc.info?.title, 'string')

  const checkout = doc.paths['/api/v1/checkout']?.post
  assert.ok(checkout, 'POST /api/v1/checkout documented')
  const checkoutBody = checkout.requestBody.content['application/json'].schema
  assert.deepEqual([...checkoutBody.required].sort(), ['amount', 'currency'])
  assert.equal(checkoutBody.additionalProperties, false)
  for (const field of ['amount', 'currency', 'description', 'metadata', 'successUrl', 'cancelUrl', 'expiresInSeconds', 'providerHints']) {
    assert.ok(checkoutBody.properties[field], `checkout documents ${field}`)
  }
  assert.equal(checkoutBody.properties.amount.type, 'integer')
  assert.equal(checkoutBody.properties.description.maxLength, 200)
  assert.equal(checkoutBody.properties.expiresInSeconds.maximum, 86400)

  const session = doc.paths['/api/v1/sessions/{id}']?.get
  assert.ok(session, 'GET /api/v1/sessions/{id} documented')
  assert.ok(session.parameters.some((p: { in: string; name: string }) => p.in === 'path' && p.name === 'id'))

  const refunds = doc.paths['/api/v1/refunds']?.post
  assert.ok(refunds, 'POST /api/v1/refunds documented')
  const refundBody = refunds.requestBody.content['application/json'].schema
  assert.deepEqual([...refundBody.required], ['recordId'])
  assert.equal(refundBody.additionalProperties, false)
  assert.deepEqual(Object.keys(refundBody.properties).sort(), ['amount', 'reason', 'recordId'])
  assert.equal(refundBody.properties.reason.maxLength, 80)
})

test('a body over 64 KiB is refused with 413 as JSON', async (t) => {
  const ta = await startTestApp(t)
  const raw = JSON.stringify({ amount: 1000, currency: 'CNY', description: 'x'.repeat(64 * 1024) })
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw })
  assert.equal(res.status, 413)
  assertJson(res)
  assert.equal(typeof res.body.error, 'string')
  requestId(res)
  const { rows } = await ta.database.pool.query('select count(*)::int as n from sessions')
  assert.equal(rows[0].n, 0)
})

test('a body just under 64 KiB is read (and judged on its fields)', async (t) => {
  const ta = await startTestApp(t)
  const raw = JSON.stringify({ amount: 1000, currency: 'CNY', description: 'x'.repeat(60 * 1024) })
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw })
  assert.equal(res.status, 400)
  assert.match(res.body.error, /^description: /)
})

test('a body that is not JSON is refused with 415 as JSON', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.request('POST', '/api/v1/checkout', {
    key: ta.merchant.testKey,
    raw: 'amount=1000&currency=CNY',
    headers: { 'content-type': 'text/plain' },
  })
  assert.equal(res.status, 415)
  assertJson(res)
  assert.equal(typeof res.body.error, 'string')
  requestId(res)

  const form = await ta.request('POST', '/api/v1/checkout', {
    key: ta.merchant.testKey,
    raw: 'amount=1000&currency=CNY',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.equal(form.status, 415)
  assertJson(form)
  const { rows } = await ta.database.pool.query('select count(*)::int as n from sessions')
  assert.equal(rows[0].n, 0)
})

test('a server error answers only "internal error" and the request id, never a stack', async (t) => {
  const ta = await startTestApp(t)
  const created = await createSession(ta)
  const original = ta.deps.providers.get
  ta.deps.providers.get = () => {
    throw new Error('secret internals: provider registry exploded')
  }
  let res: Api
  let text: string
  try {
    const raw = await fetch(`${ta.baseUrl}/api/v1/test_helpers/sessions/${created.id}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ta.merchant.testKey}`, 'content-type': 'application/json' },
      body: '{}',
    })
    text = await raw.text()
    res = { status: raw.status, body: JSON.parse(text), text, headers: raw.headers }
  } finally {
    ta.deps.providers.get = original
  }
  assert.equal(res.status, 500)
  assertJson(res)
  const id = requestId(res)
  assert.deepEqual(res.body, { error: 'internal error', code: 'internal_error', requestId: id })
  assert.doesNotMatch(text, /stack|exploded|\.ts:\d+|at /)
})
