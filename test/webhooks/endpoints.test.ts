/**
 * /api/v1/webhook_endpoints and the admin route: the secret shown once, the field messages, https in
 * live mode, the filter, enable/disable, delete, rotation with every replaced secret signing for 24 h,
 * expiring them at once, and scoping.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createOutbox, deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { createEndpoint, deliveryRows, startReceiver, verifySignature } from '../helpers/receiver.js'
import { ISO_MS } from '../helpers/store-queries.js'
import { errorBody } from '../helpers/errors.js'

const api = (ta: TestApp, method: string, path: string, body?: unknown, key = ta.merchant.testKey) =>
  ta.request(method, `/api/v1/webhook_endpoints${path}`, { key, body })
const HOUR = 3600_000

test('creating an endpoint answers 201 with its whsec_ secret, which no later answer shows', async (t) => {
  const ta = await startTestApp(t)
  const res = await api(ta, 'POST', '', { url: 'https://shop.example.com/till' })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'enabled', 'events', 'health', 'id', 'mode', 'previousSecretExpiresAt', 'secret', 'updatedAt', 'url'])
  assert.match(res.body.id, /^we_[0-9A-Za-z]{24}$/)
  assert.match(res.body.secret, /^whsec_[0-9A-Za-z]{32}$/)
  assert.equal(res.body.url, 'https://shop.example.com/till')
  assert.equal(res.body.mode, 'test')
  assert.equal(res.body.events, null)
  assert.equal(res.body.enabled, true)
  assert.equal(res.body.previousSecretExpiresAt, null)
  assert.match(res.body.createdAt, ISO_MS)

  const { secret, ...view } = res.body
  const got = await api(ta, 'GET', `/${res.body.id}`)
  assert.equal(got.status, 200)
  assert.deepEqual(got.body, view)
  const list = await api(ta, 'GET', '')
  assert.deepEqual(list.body, { data: [view] })
  assert.ok(!JSON.stringify(list.body).includes(secret))
  // Sealed at rest: the database holds no plaintext secret.
  const { rows } = await ta.database.pool.query('select * from webhook_endpoints')
  assert.ok(!JSON.stringify(rows).includes(secret))
})

test('field messages: url, live-mode https, events filter, unknown fields', async (t) => {
  const ta = await startTestApp(t)
  const cases: [unknown, string, string?][] = [
    [{}, 'url: is required'],
    [{ url: 'shop.example.com/hook' }, 'url: must be an absolute http or https URL'],
    [{ url: 'ftp://shop.example.com/hook' }, 'url: must be an absolute http or https URL'],
    [{ url: 'https://user:pw@shop.example.com/hook' }, 'url: must not contain a user name or password'],
    [{ url: 'https://x.example/' + 'a'.repeat(2048) }, 'url: must be at most 2048 characters'],
    [{ url: 42 }, 'url: must be a string'],
    [{ url: 'https://x.example', events: [] }, 'events: must not be empty'],
    [{ url: 'https://x.example', events: ['payment.succeeded', 'payment.succeeded'] }, 'events: must not repeat an item'],
    [{ url: 'https://x.example', events: ['payment.success'] }, 'events.0: must be one of payment.succeeded, payment.failed, session.canceled, session.expired, refund.pending, refund.succeeded, refund.failed, reconciliation.mismatches_found, payment.disputed, payment.dispute_closed'],
    [{ url: 'https://x.example', enabled: 'yes' }, 'enabled: must be a boolean'],
    [{ url: 'https://x.example', secret: 'whsec_mine' }, 'unknown field: secret'],
    [{ url: 'http://shop.example.com/hook' }, 'url: must use https in live mode', ta.merchant.liveKey],
  ]
  for (const [body, error, key] of cases) {
    const res = await api(ta, 'POST', '', body, key)
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.deepEqual(res.body, errorBody(error), JSON.stringify(body))
  }
  // Test mode takes http, to any host (a developer's machine); live mode https.
  assert.equal((await api(ta, 'POST', '', { url: 'http://localhost:3000/hook' })).status, 201)
  const live = await api(ta, 'POST', '', { url: 'https://shop.example.com/hook' }, ta.merchant.liveKey)
  assert.equal(live.status, 201)
  assert.equal(live.body.mode, 'live')
  // The same rule when changing the URL.
  const patched = await api(ta, 'PATCH', `/${live.body.id}`, { url: 'http://shop.example.com/hook' }, ta.merchant.liveKey)
  assert.deepEqual([patched.status, patched.body], [400, { error: 'url: must use https in live mode', code: 'invalid_field', param: 'url' }])
})

test('at most 16 endpoints per mode; a deleted one frees its place', async (t) => {
  const ta = await startTestApp(t)
  const ids = []
  for (let i = 0; i < 16; i++) ids.push((await createEndpoint(ta, `https://x.example/${i}`)).id)
  const over = await api(ta, 'POST', '', { url: 'https://x.example/17' })
  assert.deepEqual([over.status, over.body], [400, { error: 'at most 16 webhook endpoints per mode', code: 'limit_reached' }])
  // The other mode has its own 16.
  assert.equal((await api(ta, 'POST', '', { url: 'https://x.example/live' }, ta.merchant.liveKey)).status, 201)
  assert.equal((await api(ta, 'DELETE', `/${ids[0]}`)).status, 200)
  assert.equal((await api(ta, 'POST', '', { url: 'https://x.example/17' })).status, 201)
})

test('another merchant or the other mode sees 404 Not found for every endpoint route', async (t) => {
  const ta = await startTestApp(t)
  const ep = await createEndpoint(ta, 'https://x.example/a')
  const other = await ta.newMerchant('Other')
  for (const key of [other.testKey, other.liveKey, ta.merchant.liveKey]) {
    for (const [method, path, body] of [['GET', ''], ['PATCH', '', { enabled: false }], ['POST', '/rotate_secret'], ['DELETE', '']] as const) {
      const res = await api(ta, method, `/${ep.id}${path}`, body, key)
      assert.deepEqual([res.status, res.body], [404, { error: 'Not found', code: 'not_found' }], `${method} ${path}`)
    }
    assert.deepEqual((await api(ta, 'GET', '', undefined, key)).body, { data: [] })
  }
  assert.equal((await api(ta, 'GET', `/${ep.id}`)).body.enabled, true, 'untouched')
  assert.deepEqual((await api(ta, 'GET', '/we_doesnotexist')).status, 404)
  assert.deepEqual((await ta.request('GET', '/api/v1/webhook_endpoints', { key: null })).status, 401)
})

test('the filter picks event types; disabling pauses an endpoint; enabling resumes what waited', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  const refundsOnly = await createEndpoint(ta, rx.url + '/refunds', { events: ['refund.succeeded'] })
  const all = await createEndpoint(ta, rx.url + '/all')
  const paid = await paidSession(ta)
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 100 } })
  await deliverDue(ta.deps)
  const got = rx.requests.map((r) => `${r.url} ${r.json.type}`).sort()
  assert.deepEqual(got, ['/hooks/all payment.succeeded', '/hooks/all refund.succeeded', '/hooks/refunds refund.succeeded'])

  // Disabled: an event while disabled is kept for it and sent once it is enabled again.
  const off = await api(ta, 'PATCH', `/${all.id}`, { enabled: false })
  assert.equal(off.status, 200)
  assert.equal(off.body.enabled, false)
  const changed = await api(ta, 'PATCH', `/${refundsOnly.id}`, { events: null })
  assert.equal(changed.body.events, null)
  await paidSession(ta)
  assert.equal((await deliverDue(ta.deps)).length, 1)
  assert.equal(rx.requests.at(-1)!.url, '/hooks/refunds')
  assert.equal(rx.requests.length, 4)

  // Events while disabled are not fanned out to it; the filter change took effect for the other one.
  assert.equal((await deliveryRows(ta, 'd.endpoint_id = $1', [all.id])).length, 2)
  await api(ta, 'PATCH', `/${all.id}`, { enabled: true })
  assert.deepEqual(await deliverDue(ta.deps), [])
})

test('deleting an endpoint stops its deliveries at once, scheduled retries included', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t, () => ({ status: 500 }))
  const ep = await createEndpoint(ta, rx.url)
  await paidSession(ta)
  assert.equal((await deliverDue(ta.deps)).length, 1)
  const del = await api(ta, 'DELETE', `/${ep.id}`)
  assert.deepEqual([del.status, del.body], [200, { id: ep.id, deleted: true }])
  assert.equal((await api(ta, 'GET', `/${ep.id}`)).status, 404)
  assert.equal((await api(ta, 'DELETE', `/${ep.id}`)).status, 404)
  await paidSession(ta)
  ta.clock.advance(HOUR)
  assert.deepEqual(await deliverDue(ta.deps), [])
  assert.equal(rx.requests.length, 1)
  const [row] = await deliveryRows(ta)
  assert.equal(row.status, 'canceled')
})

test('rotating the secret: the new one is shown once; for 24 h both sign, comma-separated; then only the new one', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  const ep = await createEndpoint(ta, rx.url)
  // One long-lived worker throughout, as in production: the secrets it keeps opened must follow each rotation.
  const worker = createOutbox(ta.deps)
  t.after(() => worker.stop())
  await paidSession(ta)
  await worker.runOnce()
  const [before] = await rx.received(1)
  assert.ok(verifySignature(ep.secret, before.body, before.headers['x-service-signature']))

  const rotated = await api(ta, 'POST', `/${ep.id}/rotate_secret`)
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body))
  assert.match(rotated.body.secret, /^whsec_[0-9A-Za-z]{32}$/)
  assert.notEqual(rotated.body.secret, ep.secret)
  assert.equal(rotated.body.previousSecretExpiresAt, new Date(ta.clock().getTime() + 24 * HOUR).toISOString())
  assert.equal((await api(ta, 'GET', `/${ep.id}`)).body.previousSecretExpiresAt, rotated.body.previousSecretExpiresAt)

  await paidSession(ta)
  await worker.runOnce()
  const [, during] = await rx.received(2)
  const [sigNew, sigOld, ...rest] = String(during.headers['x-service-signature']).split(',')
  assert.deepEqual(rest, [])
  assert.ok(verifySignature(rotated.body.secret, during.body, sigNew), 'first: the new secret')
  assert.ok(verifySignature(ep.secret, during.body, sigOld), 'second: the old secret')
  // A receiver still configured with the old secret accepts it: no downtime.
  assert.ok(verifySignature(ep.secret, during.body, during.headers['x-service-signature']))

  ta.clock.advance(24 * HOUR)
  await paidSession(ta)
  await worker.runOnce()
  const after = rx.requests[2]
  assert.match(String(after.headers['x-service-signature']), /^[0-9a-f]{64}$/)
  assert.ok(verifySignature(rotated.body.secret, after.body, after.headers['x-service-signature']))
  assert.equal(verifySignature(ep.secret, after.body, after.headers['x-service-signature']), false)

  // Two rotations in a row drop nothing: every replaced secret signs, newest first, until its own expiry.
  const again = await api(ta, 'POST', `/${ep.id}/rotate_secret`)
  ta.clock.advance(HOUR)
  const third = await api(ta, 'POST', `/${ep.id}/rotate_secret`)
  assert.equal(third.body.previousSecretExpiresAt, new Date(ta.clock().getTime() + 24 * HOUR).toISOString(), 'the last of them to expire')
  await paidSession(ta)
  await worker.runOnce()
  const last = rx.requests[3]
  const sigs = String(last.headers['x-service-signature']).split(',')
  assert.equal(sigs.length, 3)
  assert.ok(verifySignature(third.body.secret, last.body, sigs[0]))
  assert.ok(verifySignature(again.body.secret, last.body, sigs[1]))
  assert.ok(verifySignature(rotated.body.secret, last.body, sigs[2]), 'the secret before both rotations still verifies')
  // 24 h after the first of the two rotations, its secret stops; the other signs one hour more.
  ta.clock.advance(23 * HOUR)
  await paidSession(ta)
  await worker.runOnce()
  const later = rx.requests[4]
  assert.equal(String(later.headers['x-service-signature']).split(',').length, 2)
  assert.equal(verifySignature(rotated.body.secret, later.body, later.headers['x-service-signature']), false)
  assert.ok(verifySignature(again.body.secret, later.body, later.headers['x-service-signature']))
})

test('expiring the previous secrets at once: from then on deliveries carry only the current secret\'s signature', async (t) => {
  const ta = await startTestApp(t)
  const rx = await startReceiver(t)
  const ep = await createEndpoint(ta, rx.url)
  const worker = createOutbox(ta.deps)
  t.after(() => worker.stop())
  await api(ta, 'POST', `/${ep.id}/rotate_secret`)
  const current = await api(ta, 'POST', `/${ep.id}/rotate_secret`)

  const expired = await api(ta, 'POST', `/${ep.id}/expire_previous_secrets`)
  assert.equal(expired.status, 200, JSON.stringify(expired.body))
  const { secret, ...view } = current.body
  assert.deepEqual(expired.body, { ...view, previousSecretExpiresAt: null, updatedAt: expired.body.updatedAt })
  assert.deepEqual((await api(ta, 'GET', `/${ep.id}`)).body, expired.body)
  await paidSession(ta)
  await worker.runOnce()
  const [delivered] = await rx.received(1)
  assert.match(String(delivered.headers['x-service-signature']), /^[0-9a-f]{64}$/)
  assert.ok(verifySignature(secret, delivered.body, delivered.headers['x-service-signature']))
  assert.equal(verifySignature(ep.secret, delivered.body, delivered.headers['x-service-signature']), false)

  // Nothing left to expire: the same answer. Another mode's key, or an unknown id: 404.
  assert.deepEqual((await api(ta, 'POST', `/${ep.id}/expire_previous_secrets`)).body.previousSecretExpiresAt, null)
  assert.equal((await api(ta, 'POST', `/${ep.id}/expire_previous_secrets`, undefined, ta.merchant.liveKey)).status, 404)
  assert.equal((await api(ta, 'POST', '/we_nope/expire_previous_secrets')).status, 404)
})

test('at most 4 previous secrets sign beside the current one: a fifth rotation inside their overlap is refused, not silently dropping one', async (t) => {
  const ta = await startTestApp(t)
  const ep = await createEndpoint(ta, 'https://shop.example.com/hook')
  for (let i = 0; i < 4; i++) assert.equal((await api(ta, 'POST', `/${ep.id}/rotate_secret`)).status, 200)
  const refused = await api(ta, 'POST', `/${ep.id}/rotate_secret`)
  assert.deepEqual([refused.status, refused.body], [400, { error: 'at most 4 previous secrets sign beside the current one: expire them first', code: 'limit_reached' }])
  assert.equal((await api(ta, 'POST', `/${ep.id}/expire_previous_secrets`)).status, 200)
  assert.equal((await api(ta, 'POST', `/${ep.id}/rotate_secret`)).status, 200)
})

test('admin: POST /admin/v1/merchants/{id}/webhook_endpoints registers one in either mode', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/webhook_endpoints`, { mode: 'live', url: 'https://shop.example.com/hook', events: ['payment.succeeded'] })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  assert.match(res.body.id, /^we_/)
  assert.equal(res.body.mode, 'live')
  assert.equal(res.body.url, 'https://shop.example.com/hook')
  assert.deepEqual(res.body.events, ['payment.succeeded'])
  assert.match(res.body.secret, /^whsec_[0-9A-Za-z]{32}$/)
  // The merchant sees it with a live key, not with a test key.
  assert.equal((await api(ta, 'GET', `/${res.body.id}`, undefined, ta.merchant.liveKey)).status, 200)
  assert.equal((await api(ta, 'GET', `/${res.body.id}`)).status, 404)

  const bad = await ta.admin('POST', `/merchants/${ta.merchant.id}/webhook_endpoints`, { mode: 'live', url: 'http://shop.example.com/hook' })
  assert.deepEqual([bad.status, bad.body], [400, { error: 'url: must use https in live mode', code: 'invalid_field', param: 'url' }])
  const noMode = await ta.admin('POST', `/merchants/${ta.merchant.id}/webhook_endpoints`, { url: 'https://x.example' })
  assert.deepEqual([noMode.status, noMode.body], [400, { error: 'mode: is required', code: 'invalid_field', param: 'mode' }])
  const unknown = await ta.admin('POST', '/merchants/mer_nobody/webhook_endpoints', { mode: 'test', url: 'https://x.example' })
  assert.deepEqual([unknown.status, unknown.body], [404, { error: 'Not found', code: 'not_found' }])
  const noToken = await ta.request('POST', `/admin/v1/merchants/${ta.merchant.id}/webhook_endpoints`, { key: ta.merchant.testKey, body: { mode: 'test', url: 'https://x.example' } })
  assert.equal(noToken.status, 401)
})

test('the OpenAPI document describes the endpoint and event routes', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  for (const path of ['/api/v1/webhook_endpoints', '/api/v1/webhook_endpoints/{id}', '/api/v1/webhook_endpoints/{id}/rotate_secret', '/api/v1/webhook_endpoints/{id}/expire_previous_secrets', '/api/v1/events', '/api/v1/events/{id}', '/api/v1/events/{id}/redeliver']) {
    assert.ok(doc.paths[path], path)
  }
  assert.deepEqual(Object.keys(doc.paths['/api/v1/webhook_endpoints/{id}']).sort(), ['delete', 'get', 'patch'])
  assert.ok(doc.paths['/api/v1/webhook_endpoints'].post.responses['201'])
  assert.ok(!JSON.stringify(doc).includes('/admin/v1'))
})

test('an Idempotency-Key replay answers the same secret, which is kept sealed, never in plain text', async (t) => {
  const ta = await startTestApp(t)
  const create = () => ta.request('POST', '/api/v1/webhook_endpoints', { key: ta.merchant.testKey, body: { url: 'https://x.example/h' }, headers: { 'idempotency-key': 'ep-1' } })
  const first = await create()
  const again = await create()
  assert.equal(again.status, 201)
  assert.equal(again.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(again.body, first.body)
  assert.equal((await api(ta, 'GET', '')).body.data.length, 1)

  const rotate = () => ta.request('POST', `/api/v1/webhook_endpoints/${first.body.id}/rotate_secret`, { key: ta.merchant.testKey, headers: { 'idempotency-key': 'rot-1' } })
  const r1 = await rotate()
  const r2 = await rotate()
  assert.equal(r2.headers.get('idempotent-replayed'), 'true')
  assert.equal(r2.body.secret, r1.body.secret)

  const { rows } = await ta.database.pool.query('select response_body from idempotency_keys')
  assert.equal(rows.length, 2)
  for (const secret of [first.body.secret, r1.body.secret]) assert.ok(!JSON.stringify(rows).includes(secret))
  assert.ok(rows.every((r) => /^v1:/.test(r.response_body)))
})
