/**
 * The OpenAPI document lists every answer an operation can give, and the service keeps to it: the
 * property the fuzzer (scripts/fuzz.sh) checks at scale, pinned here with literal cases, including
 * each failure the fuzzer found.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { createEndpoint } from '../helpers/receiver.js'

const METHODS = ['get', 'post', 'patch', 'delete'] as const

test('only the REST API is documented; every operation lists 429 (with Retry-After), 500 and 503', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  const paths = Object.keys(doc.paths)
  assert.ok(paths.length >= 15)
  // The hosted pages answer HTML to customers; they are not part of the merchant API.
  assert.deepEqual(paths.filter((p) => !p.startsWith('/api/v1/')), [])
  for (const path of paths) {
    for (const method of METHODS) {
      const op = doc.paths[path][method]
      if (!op) continue
      const codes = Object.keys(op.responses)
      for (const code of ['401', '429', '500', '503']) assert.ok(codes.includes(code), `${method} ${path} documents ${code}`)
      assert.deepEqual(op.responses['429'].headers['Retry-After'].schema, { type: 'integer', minimum: 1 })
      if (method !== 'get') {
        for (const code of ['400', '413', '415']) assert.ok(codes.includes(code), `${method} ${path} documents ${code}`)
      }
      const idempotency = (op.parameters ?? []).find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key')
      if (method === 'post') assert.deepEqual({ ...idempotency.schema }, { type: 'string', minLength: 1, maxLength: 255 }, `${method} ${path}`)
      else assert.equal(idempotency, undefined, `${method} ${path}`)
    }
  }
})

test('fuzz finding: PATCH of a webhook endpoint with no body at all is a 404 for an unknown id, and a no-op for a known one', async (t) => {
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  // Was a 500 (the handler read a field of a null body).
  const unknown = await ta.request('PATCH', '/api/v1/webhook_endpoints/we_000000000000000000000000', { key })
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown.body, { error: 'Not found', code: 'not_found' })
  const ep = await createEndpoint(ta, 'http://127.0.0.1:9/hooks')
  const same = await ta.request('PATCH', `/api/v1/webhook_endpoints/${ep.id}`, { key })
  assert.equal(same.status, 200)
  assert.equal(same.body.url, 'http://127.0.0.1:9/hooks')
  assert.equal(same.body.enabled, true)
})

test('a body-less POST whose body is optional reads as an empty object', async (t) => {
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  const s = await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 500, currency: 'CNY' } })
  const paid = await ta.request('POST', `/api/v1/test_helpers/sessions/${s.body.id}/pay`, { key })
  assert.equal(paid.status, 200)
  assert.equal(paid.body.status, 'paid')
})

test('every enum says the type of its values (Redoc showed currency as "any"), and every response is named', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  const currency = doc.paths['/api/v1/checkout'].post.requestBody.content['application/json'].schema.properties.currency
  assert.deepEqual(currency, { type: 'string', enum: ['CNY', 'USD', 'EUR', 'HKD', 'JPY'] })
  const untyped: string[] = []
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}[${i}]`))
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>
      if (Array.isArray(o.enum) && o.type !== typeof o.enum[0]) untyped.push(at)
      for (const [k, v] of Object.entries(o)) walk(v, `${at}.${k}`)
    }
  }
  walk(doc, '$')
  assert.deepEqual(untyped, [])
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [status, r] of Object.entries(op.responses)) {
        assert.ok(r.description && r.description !== 'Default Response', `${method} ${p} ${status}: ${r.description}`)
      }
    }
  }
  assert.equal(doc.paths['/api/v1/sessions/{id}'].get.responses['200'].description, 'The session, with its record once paid')
  assert.match(doc.paths['/api/v1/refunds'].post.responses['400'].description, /^Invalid request\. Codes:\n- `invalid_field`/)
})
