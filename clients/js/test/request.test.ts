/**
 * Requests, retries and errors against a fault-injecting local server: what a merchant sees when
 * the network or Till misbehaves. Backoff is made tiny (or recorded instead of slept) so nothing
 * here waits for a race to settle.
 */
import assert from 'node:assert/strict'
import { createServer, type AddressInfo } from 'node:net'
import { test } from 'node:test'
import {
  AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, RateLimitError, Till, TillConnectionError, TillError,
} from '../src/index.js'
import { RequestSender } from '../src/request.js'
import { faultServer } from './fault-server.js'

const KEY = 'sk_test_0123456789abcdefghijklmnopqrstuv'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const session = { id: 'sess_1', status: 'pending', url: 'http://x/c/sess_1', amount: 9900, currency: 'CNY', expiresAt: 'x', createdAt: 'x', mode: 'test' }
const fast = (baseUrl: string, extra: Partial<ConstructorParameters<typeof Till>[0]> = {}) =>
  new Till({ apiKey: KEY, baseUrl, retryBaseMs: 1, retryMaxMs: 4, ...extra })

test('a POST answered 503, then reset, then 200 is sent three times with one generated Idempotency-Key', async (t) => {
  const srv = await faultServer(t, (_s, n) => (n === 1 ? { status: 503, body: { error: 'service unavailable', code: 'service_unavailable' } } : n === 2 ? 'reset' : { status: 200, body: session }))
  const result = await fast(srv.baseUrl).createCheckout({ amount: 9900, currency: 'CNY' })
  assert.deepEqual(result, session)
  assert.equal(srv.seen.length, 3)
  const keys = srv.seen.map((s) => s.headers['idempotency-key'])
  assert.match(String(keys[0]), UUID)
  assert.deepEqual(keys, [keys[0], keys[0], keys[0]])
  assert.deepEqual(srv.seen.map((s) => s.body), Array(3).fill('{"amount":9900,"currency":"CNY"}'))
})

test('each call gets its own key; the caller\'s key is sent as given on every attempt', async (t) => {
  const srv = await faultServer(t, (_s, n) => (n === 3 ? { status: 500 } : { status: 200, body: {} }))
  const till = fast(srv.baseUrl)
  await till.refund({ recordId: 'rec_1' })
  await till.refund({ recordId: 'rec_1' })
  assert.notEqual(srv.seen[0].headers['idempotency-key'], srv.seen[1].headers['idempotency-key'])
  await till.refund({ recordId: 'rec_1', amount: 100 }, { idempotencyKey: 'refund-order-42' })
  assert.deepEqual(srv.seen.slice(2).map((s) => s.headers['idempotency-key']), ['refund-order-42', 'refund-order-42'])
})

test('requests carry the key, JSON and pass extra body fields through untouched', async (t) => {
  const srv = await faultServer(t, () => ({ status: 200, body: session }))
  const till = fast(srv.baseUrl + '/')
  const params = { amount: 1500, currency: 'JPY' as const, providerHints: { wechat: 'shop-2' }, futureField: { a: 1 } }
  await till.createCheckout(params)
  const [s] = srv.seen
  assert.equal(s.url, '/api/v1/checkout')
  assert.equal(s.headers.authorization, `Bearer ${KEY}`)
  assert.equal(s.headers['content-type'], 'application/json')
  assert.match(String(s.headers['user-agent']), /^till-node\/0\.1\.0 node\//)
  assert.deepEqual(JSON.parse(s.body), params)
})

test('GET sends no Idempotency-Key and ids are URL-encoded; a missing id throws before any request', async (t) => {
  const srv = await faultServer(t, () => ({ status: 200, body: session }))
  const till = fast(srv.baseUrl)
  await till.getSession('sess_a/../b?c')
  assert.equal(srv.seen[0].method, 'GET')
  assert.equal(srv.seen[0].url, '/api/v1/sessions/sess_a%2F..%2Fb%3Fc')
  assert.equal(srv.seen[0].headers['idempotency-key'], undefined)
  await assert.rejects(till.getSession(undefined as unknown as string), TypeError)
  await assert.rejects(till.testHelpers.sessions.fail(''), /non-empty string/)
  assert.equal(srv.seen.length, 1)
})

test('test helpers POST to their paths, with {} when no params are given', async (t) => {
  const srv = await faultServer(t, () => ({ status: 200, body: {} }))
  const till = fast(srv.baseUrl)
  await till.testHelpers.sessions.pay('sess_1')
  await till.testHelpers.sessions.pay('sess_1', { refundBehavior: 'pending' }, { idempotencyKey: 'k1' })
  await till.testHelpers.sessions.expire('sess_1', { idempotencyKey: 'k2' })
  await till.testHelpers.refunds.succeed('ref_1')
  assert.deepEqual(srv.seen.map((s) => [s.url, s.body]), [
    ['/api/v1/test_helpers/sessions/sess_1/pay', '{}'],
    ['/api/v1/test_helpers/sessions/sess_1/pay', '{"refundBehavior":"pending"}'],
    ['/api/v1/test_helpers/sessions/sess_1/expire', '{}'],
    ['/api/v1/test_helpers/refunds/ref_1/succeed', '{}'],
  ])
  assert.deepEqual(srv.seen.slice(1, 3).map((s) => s.headers['idempotency-key']), ['k1', 'k2'])
})

test('400, 401 and 404 are not retried and map to their classes with status, body and requestId', async (t) => {
  const cases = [
    [400, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 500 }, InvalidRequestError],
    [401, { error: 'invalid API key', code: 'invalid_api_key' }, AuthenticationError],
    [404, { error: 'Not found', code: 'not_found' }, NotFoundError],
  ] as const
  for (const [status, body, Class] of cases) {
    const srv = await faultServer(t, () => ({ status, body, headers: { 'request-id': `req_${status}` } }))
    const err = await fast(srv.baseUrl).refund({ recordId: 'rec_1', amount: 600 }).catch((e: unknown) => e)
    assert.ok(err instanceof Class, `${status} is a ${Class.name}`)
    assert.ok(err instanceof TillError)
    assert.equal(err.name, Class.name)
    assert.equal(err.status, status)
    assert.deepEqual(err.body, body)
    assert.equal(err.message, body.error)
    assert.equal(err.requestId, `req_${status}`)
    assert.equal(err.headers?.get('request-id'), `req_${status}`)
    assert.equal(srv.seen.length, 1, `${status} is sent once`)
  }
})

test('409 (the same key in flight) is retried with the same key until the replay answers', async (t) => {
  const srv = await faultServer(t, (_s, n) => (n < 3 ? { status: 409, body: { error: 'a request with this idempotency key is still in progress', code: 'idempotency_in_flight' } } : { status: 200, body: session }))
  assert.deepEqual(await fast(srv.baseUrl).createCheckout({ amount: 1, currency: 'USD' }), session)
  assert.equal(new Set(srv.seen.map((s) => s.headers['idempotency-key'])).size, 1)
  assert.equal(srv.seen.length, 3)
})

test('after the retries, the last answer is thrown: 5xx as TillError, 409 as ConflictError, 429 as RateLimitError', async (t) => {
  for (const [status, Class] of [[500, TillError], [409, ConflictError], [429, RateLimitError]] as const) {
    const srv = await faultServer(t, () => ({ status, body: { error: `e${status}` }, headers: status === 429 ? { 'retry-after': '0' } : undefined }))
    const err = await fast(srv.baseUrl, { maxRetries: 3 }).createCheckout({ amount: 1, currency: 'EUR' }).catch((e: unknown) => e)
    assert.ok(err instanceof Class)
    assert.equal((err as TillError).status, status)
    assert.equal(srv.seen.length, 4, `${status}: 1 attempt + 3 retries`)
  }
})

test('a 429 waits for Retry-After before the retry (real timer)', async (t) => {
  let firstAt = 0
  let secondAt = 0
  const srv = await faultServer(t, (_s, n) => {
    if (n === 1) {
      firstAt = Date.now()
      return { status: 429, body: { error: 'rate limit exceeded', code: 'rate_limited', retryAfter: 1 }, headers: { 'retry-after': '1' } }
    }
    secondAt = Date.now()
    return { status: 200, body: session }
  })
  await fast(srv.baseUrl).getSession('sess_1')
  assert.ok(secondAt - firstAt >= 990, `waited ${secondAt - firstAt} ms`)
})

function recordingSender(baseUrl: string, over: Partial<ConstructorParameters<typeof RequestSender>[0]> = {}) {
  const sleeps: number[] = []
  /** When each sleep was asked for (Date.now()). */
  const sleptAt: number[] = []
  const sender = new RequestSender({
    apiKey: KEY, baseUrl, timeoutMs: 5000, maxRetries: 3, retryBaseMs: 100, retryMaxMs: 300, maxRetryAfterMs: 60_000,
    fetch, sleep: async (ms) => void (sleeps.push(ms), sleptAt.push(Date.now())), ...over,
  })
  return { sender, sleeps, sleptAt }
}

test('Retry-After (seconds or HTTP date) sets the wait; without it, backoff doubles with jitter up to the cap', async (t) => {
  // The date is made as the answer is sent; the wait must run up to it from the moment the client read it.
  let sentAt = 0
  let date = 0
  const srv = await faultServer(t, (_s, n) => {
    if (n !== 2) return n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200, body: {} }
    sentAt = Date.now()
    date = Math.floor((sentAt + 30_000) / 1000) * 1000 // an HTTP date holds whole seconds
    return { status: 503, headers: { 'retry-after': new Date(date).toUTCString() } }
  })
  const { sender, sleeps, sleptAt } = recordingSender(srv.baseUrl)
  await sender.request('POST', '/api/v1/refunds', { body: {} })
  assert.equal(sleeps[0], 2000)
  assert.ok(sleeps[1] >= date - sleptAt[1] && sleeps[1] <= date - sentAt, `HTTP date ${date - sentAt} ms ahead when sent → ${sleeps[1]} ms, read ${sleptAt[1] - sentAt} ms later`)

  const srv2 = await faultServer(t, () => ({ status: 502 }))
  const rec = recordingSender(srv2.baseUrl, { maxRetries: 4 })
  await assert.rejects(rec.sender.request('GET', '/x', {}), TillError)
  const [a, b, c, d] = rec.sleeps
  assert.equal(rec.sleeps.length, 4)
  assert.ok(a >= 50 && a <= 100, `1st ${a}`)
  assert.ok(b >= 100 && b <= 200, `2nd ${b}`)
  assert.ok(c >= 150 && c <= 300 && d >= 150 && d <= 300, `capped ${c} ${d}`)
})

test('a Retry-After beyond maxRetryAfterMs is not waited for: the RateLimitError is thrown at once', async (t) => {
  const srv = await faultServer(t, () => ({ status: 429, body: { error: 'rate limit exceeded', code: 'rate_limited' }, headers: { 'retry-after': '3600' } }))
  const { sender, sleeps } = recordingSender(srv.baseUrl)
  const err = await sender.request('GET', '/x', {}).catch((e: unknown) => e)
  assert.ok(err instanceof RateLimitError)
  assert.equal(err.retryAfter, 3600)
  assert.deepEqual(sleeps, [])
  assert.equal(srv.seen.length, 1)
})

test('a server that never answers times out per attempt; the same key is used; TillConnectionError says so', async (t) => {
  const srv = await faultServer(t, () => 'hang')
  const err = await fast(srv.baseUrl, { timeoutMs: 100, maxRetries: 2 }).refund({ recordId: 'rec_1' }).catch((e: unknown) => e)
  assert.ok(err instanceof TillConnectionError)
  assert.ok(err instanceof TillError)
  assert.equal(err.timedOut, true)
  assert.equal(err.status, 0)
  assert.match(err.message, /^POST \/api\/v1\/refunds timed out after 100 ms \(3 attempts\)$/)
  assert.equal(srv.seen.length, 3)
  assert.equal(new Set(srv.seen.map((s) => s.headers['idempotency-key'])).size, 1)
})

test('a refused connection is a TillConnectionError naming the cause; per-call maxRetries applies', async (t) => {
  // A port that was just listening and no longer is: nothing accepts there.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  const err = await fast(`http://127.0.0.1:${port}`).getSession('sess_1', { maxRetries: 0 }).catch((e: unknown) => e)
  assert.ok(err instanceof TillConnectionError)
  assert.equal(err.timedOut, false)
  assert.match(err.message, /^GET \/api\/v1\/sessions\/sess_1 failed: ECONNREFUSED \(1 attempt\)$/)
})

test('the configuration is checked when the client is made', () => {
  assert.throws(() => new Till({} as never), /apiKey is required/)
  assert.throws(() => new Till({ apiKey: KEY, baseUrl: 'localhost:8080' }), /http\(s\)/)
  assert.throws(() => new Till({ apiKey: KEY, baseUrl: 'not a url' }), TypeError)
})
