/**
 * Errors a program can branch on: every error body keeps the spec's `error` and adds a stable
 * `code` (and `param` for a field), from one table (src/domain/errors.ts) that the OpenAPI document
 * and docs/errors.md both list. A known path with a wrong method is 405 with Allow; a key can be
 * sent as HTTP Basic's user name too.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { toTillError } from '../../src/api/plugins/errors.js'
import { ERROR_CODES, type ErrorCode } from '../../src/domain/errors.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CODES = Object.keys(ERROR_CODES) as ErrorCode[]

const post = (ta: TestApp, p: string, body?: unknown, key: string | null = ta.merchant.testKey, headers?: Record<string, string>) =>
  ta.request('POST', p, { key, body, headers })

test('each code has the status its table gives, and the body carries error, code and (for a field) param', async (t) => {
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  const paid = await paidSession(ta)
  const full = await paidSession(ta)
  assert.equal((await post(ta, '/api/v1/refunds', { recordId: full.record.id })).status, 200)
  const settled = await post(ta, '/api/v1/refunds', { recordId: paid.record.id, amount: 10 })
  await post(ta, '/api/v1/checkout', { amount: 100, currency: 'CNY' }, key, { 'Idempotency-Key': 'k1' })

  const seen = new Map<ErrorCode, Record<string, unknown>>()
  const expect = async (code: ErrorCode, send: Promise<{ status: number; body: any; headers: Headers }>, body: Record<string, unknown>) => {
    const res = await send
    assert.equal(res.status, ERROR_CODES[code].status, `${code}: ${JSON.stringify(res.body)}`)
    assert.deepEqual(res.body, { ...body, code }, code)
    seen.set(code, res.body)
    return res
  }
  await expect('invalid_field', post(ta, '/api/v1/checkout', { amount: 1.5, currency: 'CNY' }), { error: 'amount: must be an integer', param: 'amount' })
  await expect('invalid_field', post(ta, '/api/v1/checkout', { amount: 100, currency: 'CNY', metadata: { order: 7 } }), { error: 'metadata.order: must be a string', param: 'metadata.order' })
  await expect('invalid_field', ta.request('GET', '/api/v1/sessions?limit=0', { key }), { error: 'limit: must be at least 1', param: 'limit' })
  await expect('invalid_field', post(ta, '/api/v1/checkout', { amount: 100, currency: 'CNY' }, key, { 'Idempotency-Key': 'x'.repeat(256) }),
    { error: 'Idempotency-Key: must be 1 to 255 characters', param: 'Idempotency-Key' })
  await expect('unknown_field', post(ta, '/api/v1/checkout', { amount: 100, currency: 'CNY', colour: 'red' }), { error: 'unknown field: colour', param: 'colour' })
  await expect('unknown_field', ta.request('GET', '/api/v1/records?colour=red', { key }), { error: 'unknown field: colour', param: 'colour' })
  await expect('invalid_json', ta.request('POST', '/api/v1/checkout', { key, raw: '{' }), { error: 'invalid JSON body' })
  await expect('headers_too_large', ta.request('GET', `/api/v1/sessions?metadata[order]=${'x'.repeat(20_000)}`, { key }), { error: 'request headers too large' })
  await expect('body_too_deep', ta.request('POST', '/api/v1/checkout', { key, raw: `{"metadata":${'['.repeat(40)}${']'.repeat(40)}}` }), { error: 'request body nested too deeply' })
  await expect('amount_exceeds_refundable', post(ta, '/api/v1/refunds', { recordId: paid.record.id, amount: 100_000 }), { error: 'amount exceeds refundable', refundable: 990 })
  await expect('already_refunded', post(ta, '/api/v1/refunds', { recordId: full.record.id }),
    { error: 'amount exceeds refundable', refundable: 0, detail: 'the record is already refunded in full' })
  await expect('session_terminal', post(ta, `/api/v1/test_helpers/sessions/${paid.id}/cancel`), { error: 'session is paid' })
  await expect('refund_not_pending', post(ta, `/api/v1/test_helpers/refunds/${settled.body.refund.id}/succeed`), { error: 'refund is succeeded' })
  await expect('provider_unavailable', post(ta, '/api/v1/checkout', { amount: 100, currency: 'CNY' }, ta.merchant.liveKey), { error: 'no provider available for CNY in live mode: add an enabled configuration of alipay or stripe or wechat that lists CNY' })
  await expect('idempotency_mismatch', post(ta, '/api/v1/checkout', { amount: 200, currency: 'CNY' }, key, { 'Idempotency-Key': 'k1' }),
    { error: 'idempotency key reused with a different request' })
  await expect('email_in_use', ta.admin('POST', '/merchants', { name: 'A', email: 'a@shop.example' }).then(() => ta.admin('POST', '/merchants', { name: 'B', email: 'A@shop.example' })),
    { error: 'email is already in use' })
  await expect('missing_api_key', ta.request('GET', '/api/v1/sessions', { key: null }), { error: 'missing API key: send Authorization: Bearer <secret key>' })
  await expect('invalid_api_key', ta.request('GET', '/api/v1/sessions', { key: 'sk_test_nope' }), { error: 'invalid API key' })
  await expect('test_mode_only', post(ta, `/api/v1/test_helpers/sessions/${paid.id}/pay`, {}, ta.merchant.liveKey), { error: 'test helpers need a test key (sk_test_…)' })
  await expect('not_found', ta.request('GET', '/api/v1/records/rec_nope', { key }), { error: 'Not found' })
  await expect('not_found', ta.request('GET', '/api/v1/nothing', { key }), { error: 'Not found' })
  const wrong = await expect('method_not_allowed', ta.request('DELETE', '/api/v1/checkout', { key }), { error: 'method not allowed' })
  assert.equal(wrong.headers.get('allow'), 'POST')
  await expect('body_too_large', ta.request('POST', '/api/v1/checkout', { key, raw: JSON.stringify({ description: 'x'.repeat(70_000) }) }), { error: 'request body too large' })
  await expect('unsupported_media_type', ta.request('POST', '/api/v1/checkout', { key, raw: 'amount=1', headers: { 'content-type': 'text/plain' } }),
    { error: 'Content-Type must be application/json' })

  // Codes whose situations need more staging are each pinned by the test named here.
  const elsewhere: Partial<Record<ErrorCode, string>> = {
    partial_refund_unsupported: 'test/providers/creem-till-refunds.test.ts',
    already_exists: 'test/api/admin.test.ts',
    limit_reached: 'test/webhooks/endpoints.test.ts',
    webhook_endpoint_unavailable: 'test/webhooks/events-api.test.ts',
    idempotency_in_flight: 'test/api/idempotency.test.ts',
    rate_limited: 'test/api/rate-limit.test.ts',
    service_unavailable: 'test/api/rate-limit.test.ts',
    internal_error: 'test/api/errors.test.ts',
  }
  for (const [code, file] of Object.entries(elsewhere)) {
    assert.match(readFileSync(path.join(ROOT, file), 'utf8'), new RegExp(`code: '${code}'`), `${file} asserts ${code}`)
  }
  // The fallbacks: a framework 4xx without a code of its own, and a 409 that is not about idempotency.
  assert.equal(toTillError(Object.assign(new Error('odd'), { statusCode: 400 }))?.code, 'invalid_request')
  assert.equal(toTillError(Object.assign(new Error('odd'), { statusCode: 409 }))?.code, 'conflict')
  const covered = new Set([...seen.keys(), ...Object.keys(elsewhere), 'invalid_request', 'conflict'])
  assert.deepEqual(CODES.filter((c) => !covered.has(c)), [], 'every code is exercised')
})

test('a known path with a method it does not take is 405 with Allow; an unknown path stays 404', async (t) => {
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  const cases: [string, string, string][] = [
    ['DELETE', '/api/v1/checkout', 'POST'],
    ['PUT', '/api/v1/sessions/sess_abc', 'GET, HEAD'],
    ['POST', '/api/v1/sessions', 'GET, HEAD'],
    ['DELETE', '/api/v1/refunds', 'GET, HEAD, POST'],
    ['GET', '/api/v1/test_helpers/sessions/sess_abc/pay', 'POST'],
    ['PUT', '/api/v1/webhook_endpoints/we_abc', 'DELETE, GET, HEAD, PATCH'],
  ]
  for (const [method, p, allow] of cases) {
    const res = await ta.request(method, p, { key })
    assert.equal(res.status, 405, `${method} ${p}`)
    assert.equal(res.headers.get('allow'), allow, `${method} ${p}`)
    assert.deepEqual(res.body, { error: 'method not allowed', code: 'method_not_allowed' })
    assert.ok(res.headers.get('request-id'))
  }
  for (const p of ['/api/v1/sessions/sess_abc/extra', '/api/v1/nothing']) {
    assert.equal((await ta.request('DELETE', p, { key })).status, 404, p)
  }
})

test('HTTP Basic with the key as user name authenticates like Bearer; a bad one is 401', async (t) => {
  const ta = await startTestApp(t)
  const basic = (user: string, pass = '') => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`
  const created = await ta.request('POST', '/api/v1/checkout', { body: { amount: 100, currency: 'CNY' }, headers: { authorization: basic(ta.merchant.testKey) } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal(created.body.mode, 'test')
  const read = await ta.request('GET', `/api/v1/sessions/${created.body.id}`, { headers: { authorization: basic(ta.merchant.testKey) } })
  assert.equal(read.status, 200)
  // The key selects the mode as with Bearer: the live key does not see the test session.
  assert.equal((await ta.request('GET', `/api/v1/sessions/${created.body.id}`, { headers: { authorization: basic(ta.merchant.liveKey) } })).status, 404)
  // curl -u key (no colon) sends the same; a password is ignored.
  const noColon = `Basic ${Buffer.from(ta.merchant.testKey).toString('base64')}`
  assert.equal((await ta.request('GET', `/api/v1/sessions/${created.body.id}`, { headers: { authorization: noColon } })).status, 200)
  assert.equal((await ta.request('GET', `/api/v1/sessions/${created.body.id}`, { headers: { authorization: basic(ta.merchant.testKey, 'x') } })).status, 200)
  for (const authorization of [basic('sk_test_nope'), basic(''), 'Basic !!!', basic(`${ta.merchant.testKey}x`)]) {
    const res = await ta.request('GET', '/api/v1/sessions', { headers: { authorization } })
    assert.equal(res.status, 401, authorization)
    assert.deepEqual(res.body, { error: 'invalid API key', code: 'invalid_api_key' })
  }
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  assert.deepEqual(doc.components.securitySchemes.secretKeyBasic.scheme, 'basic')
  assert.deepEqual(doc.security, [{ secretKey: [] }, { secretKeyBasic: [] }])
})

test('the OpenAPI document and docs/errors.md list every code, each with its status', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  assert.deepEqual(doc.components.schemas.Error.properties.code.enum, CODES)
  // Each error response lists the codes of its status.
  const refund400 = doc.paths['/api/v1/refunds'].post.responses['400'].content['application/json'].schema
  assert.ok(refund400.properties.code.enum.includes('amount_exceeds_refundable'))
  assert.ok(refund400.properties.code.enum.every((c: ErrorCode) => ERROR_CODES[c].status === 400))
  const docs = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8')
  for (const code of CODES) {
    assert.match(docs, new RegExp(`^\\| \`${code}\` \\| ${ERROR_CODES[code].status} \\|`, 'm'), `docs/errors.md lists ${code}`)
  }
  const listed = [...docs.matchAll(/^\| `([a-z_]+)` \| \d{3} \|/gm)].map((m) => m[1])
  assert.deepEqual(listed.filter((c) => !CODES.includes(c as ErrorCode)), [], 'docs/errors.md lists no code the service lacks')
})
