/**
 * Each operation's OpenAPI entry lists the error codes it can answer (issue #27 §4), and this test
 * provokes every one of them on every operation, so no listed code is stale. The other direction
 * (an operation answering a code its entry lacks) fails whichever test provoked it
 * (test/helpers/documented-errors.ts, installed by startTestApp), and the fuzzer at scale.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { createDeps } from '../../src/deps.js'
import type { ErrorCode } from '../../src/domain/errors.js'
import type { Deps } from '../../src/services/deps.js'
import { openPool } from '../../src/store/db.js'
import { paidSession, startTestApp, type Api, type TestApp } from '../helpers/app.js'
import { createSession } from '../helpers/store-queries.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A request as a merchant sends it: the path, the key, a JSON body. */
interface Req {
  path: string
  key: string
  body?: unknown
}
type Send = (method: string, r: Req, o?: { key?: string | null; raw?: string; headers?: Record<string, string>; body?: unknown }) => Promise<Api>

/** What each operation is sent when it should succeed, on objects made for it (a new merchant where limits or filters would interfere). */
function okRequests(ta: TestApp): Record<string, () => Promise<Req>> {
  const key = ta.merchant.testKey
  const merchantWithEndpoint = async () => {
    const m = await ta.newMerchant('Endpoints')
    const ep = await ta.request('POST', '/api/v1/webhook_endpoints', { key: m.testKey, body: { url: 'http://127.0.0.1:9/hooks' } })
    return { key: m.testKey, id: ep.body.id as string }
  }
  const pendingRefund = async () => {
    const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
    return (await ta.request('POST', '/api/v1/refunds', { key, body: { recordId: paid.record.id, amount: 100 } })).body.refund.id as string
  }
  const event = async () => {
    const m = await merchantWithEndpoint()
    const s = await createSession(ta, { amount: 100, currency: 'CNY' }, m.key)
    await ta.request('POST', `/api/v1/test_helpers/sessions/${s.id}/pay`, { key: m.key, body: {} })
    const events = await ta.request('GET', '/api/v1/events?limit=1', { key: m.key })
    return { key: m.key, id: events.body.data[0].id as string }
  }
  const onEndpoint = async (action: string, body?: unknown) => {
    const m = await merchantWithEndpoint()
    return { path: `/api/v1/webhook_endpoints/${m.id}${action}`, key: m.key, body }
  }
  const onEvent = async (action: string, body?: unknown) => {
    const e = await event()
    return { path: `/api/v1/events/${e.id}${action}`, key: e.key, body }
  }
  const onLink = async ({ body }: { body?: unknown }) => {
    const link = await ta.request('POST', '/api/v1/payment_links', { key, body: { amount: 100, currency: 'JPY' } })
    return { path: `/api/v1/payment_links/${link.body.id}`, key, body }
  }
  const session = async (action: string) => ({ path: `/api/v1/test_helpers/sessions/${(await createSession(ta)).id}/${action}`, key, body: {} })
  return {
    'POST /api/v1/checkout': async () => ({ path: '/api/v1/checkout', key, body: { amount: 100, currency: 'CNY' } }),
    'GET /api/v1/sessions': async () => ({ path: '/api/v1/sessions?limit=1', key }),
    'GET /api/v1/sessions/{id}': async () => ({ path: `/api/v1/sessions/${(await createSession(ta)).id}`, key }),
    'POST /api/v1/sessions/{id}/cancel': async () => ({ path: `/api/v1/sessions/${(await createSession(ta)).id}/cancel`, key, body: {} }),
    'POST /api/v1/sessions/{id}/expire': async () => ({ path: `/api/v1/sessions/${(await createSession(ta)).id}/expire`, key, body: {} }),
    'POST /api/v1/refunds': async () => ({ path: '/api/v1/refunds', key, body: { recordId: (await paidSession(ta)).record.id, amount: 10 } }),
    'GET /api/v1/refunds': async () => ({ path: '/api/v1/refunds?limit=1', key }),
    'GET /api/v1/refunds/{id}': async () => ({ path: `/api/v1/refunds/${await pendingRefund()}`, key }),
    'GET /api/v1/records': async () => ({ path: '/api/v1/records?limit=1', key }),
    'GET /api/v1/records/{id}': async () => ({ path: `/api/v1/records/${(await paidSession(ta)).record.id}`, key }),
    'POST /api/v1/test_helpers/sessions/{id}/pay': () => session('pay'),
    'POST /api/v1/test_helpers/sessions/{id}/fail': () => session('fail'),
    'POST /api/v1/test_helpers/sessions/{id}/cancel': () => session('cancel'),
    'POST /api/v1/test_helpers/sessions/{id}/expire': () => session('expire'),
    'POST /api/v1/test_helpers/refunds/{id}/succeed': async () => ({ path: `/api/v1/test_helpers/refunds/${await pendingRefund()}/succeed`, key, body: {} }),
    'POST /api/v1/test_helpers/refunds/{id}/fail': async () => ({ path: `/api/v1/test_helpers/refunds/${await pendingRefund()}/fail`, key, body: {} }),
    'POST /api/v1/webhook_endpoints': async () => ({ path: '/api/v1/webhook_endpoints', key: (await ta.newMerchant('New endpoint')).testKey, body: { url: 'http://127.0.0.1:9/hooks' } }),
    'GET /api/v1/webhook_endpoints': async () => ({ path: '/api/v1/webhook_endpoints', key }),
    'GET /api/v1/webhook_endpoints/{id}': () => onEndpoint(''),
    'PATCH /api/v1/webhook_endpoints/{id}': () => onEndpoint('', { enabled: true }),
    'DELETE /api/v1/webhook_endpoints/{id}': () => onEndpoint(''),
    'POST /api/v1/webhook_endpoints/{id}/rotate_secret': () => onEndpoint('/rotate_secret', {}),
    'POST /api/v1/webhook_endpoints/{id}/expire_previous_secrets': () => onEndpoint('/expire_previous_secrets', {}),
    'GET /api/v1/events': async () => ({ path: '/api/v1/events?limit=1', key }),
    'GET /api/v1/events/{id}': () => onEvent(''),
    'POST /api/v1/events/{id}/redeliver': () => onEvent('/redeliver', {}),
    'POST /api/v1/payment_links': async () => ({ path: '/api/v1/payment_links', key, body: { amount: 100, currency: 'JPY' } }),
    'GET /api/v1/payment_links': async () => ({ path: '/api/v1/payment_links?limit=1', key }),
    'GET /api/v1/payment_links/{id}': () => onLink({}),
    'POST /api/v1/payment_links/{id}': () => onLink({ body: { active: false } }),
  }
}

/** The codes of an operation's own rules, each provoked as a merchant would meet it. */
function ownCodes(ta: TestApp, ok: Record<string, () => Promise<Req>>, send: Send): Partial<Record<string, () => Promise<Api>>> {
  const key = ta.merchant.testKey
  const helper = (op: string) => async () => send('POST', await ok[op](), { key: ta.merchant.liveKey })
  const terminal = (op: string) => async () => {
    const paid = await paidSession(ta)
    return send('POST', { path: `/api/v1/test_helpers/sessions/${paid.id}/${op.split('/').at(-1)}`, key, body: {} })
  }
  const settled = (op: string) => async () => {
    const paid = await paidSession(ta)
    const refund = await ta.request('POST', '/api/v1/refunds', { key, body: { recordId: paid.record.id, amount: 10 } })
    return send('POST', { path: `/api/v1/test_helpers/refunds/${refund.body.refund.id}/${op.split('/').at(-1)}`, key, body: {} })
  }
  const own: Partial<Record<string, () => Promise<Api>>> = {
    'POST /api/v1/payment_links provider_unavailable': () => send('POST', { path: '/api/v1/payment_links', key: ta.merchant.liveKey, body: { amount: 100, currency: 'CNY' } }),
    'POST /api/v1/checkout provider_unavailable': () => send('POST', { path: '/api/v1/checkout', key: ta.merchant.liveKey, body: { amount: 100, currency: 'CNY' } }),
    'POST /api/v1/refunds not_found': () => send('POST', { path: '/api/v1/refunds', key, body: { recordId: 'rec_000000000000000000000000' } }),
    'POST /api/v1/refunds amount_exceeds_refundable': async () => send('POST', { path: '/api/v1/refunds', key, body: { recordId: (await paidSession(ta)).record.id, amount: 100_000 } }),
    'POST /api/v1/refunds already_refunded': async () => {
      const paid = await paidSession(ta)
      await ta.request('POST', '/api/v1/refunds', { key, body: { recordId: paid.record.id } })
      return send('POST', { path: '/api/v1/refunds', key, body: { recordId: paid.record.id } })
    },
    'POST /api/v1/webhook_endpoints limit_reached': async () => {
      const m = await ta.newMerchant('Full')
      for (let i = 0; i < 16; i++) await ta.request('POST', '/api/v1/webhook_endpoints', { key: m.testKey, body: { url: `http://127.0.0.1:9/${i}` } })
      return send('POST', { path: '/api/v1/webhook_endpoints', key: m.testKey, body: { url: 'http://127.0.0.1:9/17' } })
    },
    'POST /api/v1/webhook_endpoints/{id}/rotate_secret limit_reached': async () => {
      const r = await ok['POST /api/v1/webhook_endpoints/{id}/rotate_secret']()
      for (let i = 0; i < 4; i++) await ta.request('POST', r.path, { key: r.key })
      return send('POST', r)
    },
    'POST /api/v1/events/{id}/redeliver webhook_endpoint_unavailable': async () => {
      const r = await ok['POST /api/v1/events/{id}/redeliver']()
      const endpoints = await ta.request('GET', '/api/v1/webhook_endpoints', { key: r.key })
      for (const e of endpoints.body.data) await ta.request('PATCH', `/api/v1/webhook_endpoints/${e.id}`, { key: r.key, body: { enabled: false } })
      return send('POST', r)
    },
  }
  for (const action of ['pay', 'fail', 'cancel', 'expire']) {
    const op = `POST /api/v1/test_helpers/sessions/{id}/${action}`
    own[`${op} test_mode_only`] = helper(op)
    own[`${op} session_terminal`] = terminal(op)
  }
  for (const action of ['cancel', 'expire']) {
    own[`POST /api/v1/sessions/{id}/${action} session_terminal`] = async () =>
      send('POST', { path: `/api/v1/sessions/${(await paidSession(ta)).id}/${action}`, key, body: {} })
  }
  for (const action of ['succeed', 'fail']) {
    const op = `POST /api/v1/test_helpers/refunds/{id}/${action}`
    own[`${op} test_mode_only`] = helper(op)
    own[`${op} refund_not_pending`] = settled(op)
  }
  return own
}

/** Codes whose situation needs a provider configuration: pinned by the test named. */
const ELSEWHERE: Record<string, string> = {
  'POST /api/v1/refunds partial_refund_unsupported': 'test/providers/creem-till-refunds.test.ts',
}

const nested = `{"metadata":${'['.repeat(40)}${']'.repeat(40)}}`
/** The id of a path made to name nothing, in the same shape. */
const nothing = (p: string) => p.replace(/\/(sess|rec|ref|we|evt|plink)_[0-9A-Za-z]+/, '/$1_000000000000000000000000')

test('every operation lists the error codes it can answer, and each one is provoked on it', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  const send: Send = (method, r, o = {}) => ta.request(method, r.path, {
    key: o.key === undefined ? r.key : o.key,
    ...(o.raw !== undefined ? { raw: o.raw } : { body: 'body' in o ? o.body : r.body }),
    headers: o.headers,
  })
  const ok = okRequests(ta)
  const own = ownCodes(ta, ok, send)

  // The same app on three stand-ins: a key already over its rate, a database that cannot be
  // reached, and one that fails in a way that is no outage.
  const variant = async (patch: Partial<Deps>) => {
    const app = await buildApp({ ...ta.deps, ...patch })
    t.after(() => app.close())
    return app
  }
  // Its own deps: the key buckets hold tokens claimed ahead in process memory.
  const limited = await buildApp(createDeps({ ...ta.deps.config, rateLimitPerSecond: 1 }, ta.deps.db, randomBytes(32), ta.deps.log, ta.clock))
  t.after(() => limited.close())
  const down = openPool('postgresql://till@127.0.0.1:1/till', 1)
  t.after(() => down.close())
  const unreachable = await variant({ db: down.db })
  const broken = await variant({ db: new Proxy({}, { get: () => { throw new Error('the store failed') } }) as Deps['db'] })
  const inject = async (app: FastifyInstance, method: string, r: Req): Promise<Api> => {
    const res = await app.inject({ method: method as 'GET', url: r.path, headers: { authorization: `Bearer ${r.key}` }, ...(method === 'GET' ? {} : { payload: r.body ?? {} }) })
    return { status: res.statusCode, body: res.json(), text: res.body, headers: new Headers(res.headers as Record<string, string>) }
  }

  /** A request that must leave its key in flight: its row is put back as a request still working would hold it. */
  const inFlight = async (m: string, r: Req, key: string) => {
    await send(m, r, { headers: { 'Idempotency-Key': key } })
    await ta.database.pool.query('update idempotency_keys set response_status = null, response_body = null, locked_until = $2 where key = $1',
      [key, new Date(ta.clock().getTime() + 60_000)])
    return send(m, r, { headers: { 'Idempotency-Key': key } })
  }
  // The changed request must still pass validation on routes that claim their key with the work (checkout, refunds).
  const changed = (r: Req) => (r.path.endsWith('/checkout') || r.path.endsWith('/refunds')
    ? { ...(r.body as object), description: 'changed', reason: 'changed' }
    : { ...(r.body as object | undefined), changed: true })

  const shape: Partial<Record<ErrorCode, (method: string, r: Req, i: number) => Promise<Api>>> = {
    missing_api_key: (m, r) => send(m, r, { key: null }),
    invalid_api_key: (m, r) => send(m, r, { key: `sk_test_${'0'.repeat(32)}` }),
    rate_limited: async (m, r) => {
      // A key's first request of the second may pass.
      const first = await inject(limited, m, r)
      return first.status === 429 ? first : inject(limited, m, r)
    },
    service_unavailable: (m, r) => inject(unreachable, m, r),
    internal_error: (m, r) => inject(broken, m, r),
    headers_too_large: (m, r) => send(m, r, { headers: { 'x-padding': 'x'.repeat(20_000) } }),
    not_found: (m, r) => send(m, { ...r, path: nothing(r.path) }),
    invalid_field: (m, r) => (m === 'POST'
      ? send(m, r, { headers: { 'Idempotency-Key': 'k'.repeat(256) } })
      : m === 'GET' ? send(m, { ...r, path: `${r.path.split('?')[0]}?limit=0` }) : send(m, r, { body: { url: 42 } })),
    unknown_field: (m, r) => (m === 'GET' ? send(m, { ...r, path: `${r.path.split('?')[0]}?colour=red` }) : send(m, r, { body: { ...(r.body as object), colour: 'red' } })),
    invalid_json: (m, r) => send(m, r, { raw: '{' }),
    body_too_deep: (m, r) => send(m, r, { raw: nested }),
    body_too_large: (m, r) => send(m, r, { raw: JSON.stringify({ description: 'x'.repeat(70_000) }) }),
    unsupported_media_type: (m, r) => send(m, r, { raw: 'a=1', headers: { 'content-type': 'text/plain' } }),
    idempotency_mismatch: async (m, r, i) => {
      await send(m, r, { headers: { 'Idempotency-Key': `mismatch-${i}` } })
      return send(m, r, { headers: { 'Idempotency-Key': `mismatch-${i}` }, body: changed(r) })
    },
    idempotency_in_flight: (m, r, i) => inFlight(m, r, `busy-${i}`),
  }

  const listed: string[] = []
  const provocations: { name: string; code: ErrorCode; status: number; provoke: () => Promise<Api> }[] = []
  const failures: string[] = []
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, any> }>>)) {
    for (const [verb, op] of Object.entries(ops)) {
      const name = `${verb.toUpperCase()} ${p}`
      assert.ok(ok[name], `${name}: an operation this test does not know yet (add its request to okRequests)`)
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        for (const code of response.content['application/json'].schema.properties.code.enum as ErrorCode[]) {
          listed.push(`${name} ${code}`)
          if (ELSEWHERE[`${name} ${code}`]) continue
          const i = provocations.length
          const generic = shape[code]
          const provoke = own[`${name} ${code}`] ?? (generic && (async () => generic(verb.toUpperCase(), await ok[name](), i)))
          if (provoke) provocations.push({ name, code, status: Number(status), provoke })
          else failures.push(`${name} ${code}: listed, and nothing here provokes it`)
        }
      }
    }
  }
  // Six at a time: a key in flight is waited on for 2 s before the 409.
  for (let next = 0; next < provocations.length; next += 6) {
    await Promise.all(provocations.slice(next, next + 6).map(async ({ name, code, status, provoke }) => {
      const res = await provoke()
      if (res.status !== status || res.body?.code !== code) failures.push(`${name} ${code}: answered ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`)
    }))
  }
  assert.deepEqual(failures, [])
  // Every own provocation is of a listed code (a code a route stopped answering must leave its list).
  assert.deepEqual(Object.keys(own).filter((k) => !listed.includes(k)), [])
  for (const [k, file] of Object.entries(ELSEWHERE)) {
    assert.ok(listed.includes(k), k)
    assert.match(readFileSync(path.join(ROOT, file), 'utf8'), new RegExp(`code: '${k.split(' ').at(-1)}'`), `${file} asserts ${k}`)
  }
  // Each status's description names it; none is left as "Default Response".
  for (const ops of Object.values(doc.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>)) {
    for (const op of Object.values(ops)) {
      for (const [status, r] of Object.entries(op.responses)) assert.doesNotMatch(r.description, /Default Response/, status)
    }
  }
})
