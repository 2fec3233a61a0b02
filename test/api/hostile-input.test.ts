/** Bodies a careless or hostile client sends: too deep, ill-formed UTF-16, reordered keys. Each is a 400 or a replay, never a 500. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'

async function count(ta: TestApp, table: string) {
  const { rows } = await ta.database.pool.query(`select count(*)::int as n from ${table}`)
  return rows[0].n as number
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)

test('a body nested thousands deep is a 400 before the idempotency fingerprint, and nothing is stored', async (t) => {
  const ta = await startTestApp(t)
  const raw = `{"amount":1000,"currency":"CNY","metadata":{"x":${deep(5000)}}}`
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw, headers: { 'idempotency-key': 'deep-1' } })
  assert.equal(res.status, 400)
  assert.equal(res.body.error, 'request body nested too deeply')
  assert.equal(await count(ta, 'sessions'), 0)
  assert.equal(await count(ta, 'idempotency_keys'), 0)
})

test('an admin body nested deep is a 400', async (t) => {
  const ta = await startTestApp(t)
  const raw = `{"provider":"wechat","label":"x","credentials":{"a":${deep(5000)}}}`
  const res = await ta.request('POST', `/admin/v1/merchants/${ta.merchant.id}/provider_configs`, { key: 'test-admin-token', raw })
  assert.equal(res.status, 400)
  assert.equal(res.body.error, 'request body nested too deeply')
  assert.equal(await count(ta, 'provider_configs'), 0)
})

test('a provider notification nested deep is a 400', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.request('POST', '/hooks/mock', { raw: `{"facts":${deep(5000)}}` })
  assert.equal(res.status, 400)
})

test('ordinary nesting (metadata, credentials) is accepted', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY', metadata: { a: 'b' } } })
  assert.equal(res.status, 200)
})

const LONE = '\udfff'

test('an unpaired surrogate in any string field is a 400 naming the field, and nothing is stored', async (t) => {
  const ta = await startTestApp(t)
  const cases: Array<[unknown, string]> = [
    [{ amount: 1000, currency: 'CNY', metadata: { [`k${LONE}`]: 'v' } }, 'metadata'],
    [{ amount: 1000, currency: 'CNY', metadata: { k: `v${LONE}` } }, 'metadata.k'],
    [{ amount: 1000, currency: 'CNY', description: `tea ${LONE}` }, 'description'],
  ]
  for (const [body, field] of cases) {
    const res = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body })
    assert.equal(res.status, 400, JSON.stringify(res.body))
    assert.equal(res.body.error, `${field}: must be well-formed Unicode (no unpaired surrogates)`)
  }
  assert.equal(await count(ta, 'sessions'), 0)

  const paid = await paidSession(ta)
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, reason: `oops ${LONE}` } })
  assert.equal(refund.status, 400)
  assert.equal(refund.body.error, 'reason: must be well-formed Unicode (no unpaired surrogates)')
  assert.equal(await count(ta, 'refunds'), 0)

  const merchant = await ta.admin('POST', '/merchants', { name: `Shop ${LONE}` })
  assert.equal(merchant.status, 400)
  assert.equal(merchant.body.error, 'name: must be well-formed Unicode (no unpaired surrogates)')

  // A well-formed pair (an emoji) is fine.
  const ok = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY', description: 'tea \u{1F375}', metadata: { '\u{1F375}': '\u{1F375}' } } })
  assert.equal(ok.status, 200, JSON.stringify(ok.body))
})

test('a PostgreSQL error never prints the request parameters at error level', async () => {
  const logged: unknown[] = []
  // The error handler is what prints (through the request's logger): exercised on its own, with a
  // failed query shaped as Drizzle and pg shape it.
  const { registerJsonErrors } = await import('../../src/api/plugins/errors.js')
  const Fastify = (await import('fastify')).default
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(line) } } })
  registerJsonErrors(app)
  app.post('/x', async () => {
    const err = new Error('Failed query: insert into sessions ... \nparams: secret-metadata-value') as Error & { cause?: unknown; params?: unknown[]; query?: string }
    err.params = ['secret-metadata-value']
    err.query = 'insert into sessions'
    err.cause = Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05', detail: 'secret-metadata-value', where: 'JSON data, line 1: {"secret-metadata-value' })
    throw err
  })
  const res = await app.inject({ method: 'POST', url: '/x', payload: {} })
  assert.equal(res.statusCode, 500)
  assert.equal(logged.length, 1)
  assert.doesNotMatch(String(logged[0]), /secret-metadata-value/)
  assert.match(String(logged[0]), /22P05/)
  await app.close()
})

test('the idempotency fingerprint does not depend on the order of JSON keys', async (t) => {
  const ta = await startTestApp(t)
  const headers = { 'idempotency-key': 'order-1' }
  const first = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw: '{"amount":1000,"currency":"CNY","metadata":{"a":"1","b":"2"}}', headers })
  assert.equal(first.status, 200)
  const again = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw: '{"metadata":{"b":"2","a":"1"},"currency":"CNY","amount":1000}', headers })
  assert.equal(again.status, 200, JSON.stringify(again.body))
  assert.equal(again.headers.get('idempotent-replayed'), 'true')
  assert.equal(again.body.id, first.body.id)
  // A different value is still a different request.
  const other = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw: '{"metadata":{"b":"2","a":"3"},"currency":"CNY","amount":1000}', headers })
  assert.equal(other.status, 400)
})
