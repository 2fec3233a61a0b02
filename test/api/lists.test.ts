/**
 * Reading back what a merchant made: GET /api/v1/sessions, /records, /records/{id}, /refunds,
 * /refunds/{id}. Scoped by merchant and mode like every read, newest first, paged by keyset so
 * rows made in the same millisecond are neither skipped nor repeated.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { listSessions } from '../../src/services/lists.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'

async function checkout(ta: TestApp, body: Record<string, unknown> = { amount: 1000, currency: 'CNY' }, key = ta.merchant.testKey) {
  const res = await ta.request('POST', '/api/v1/checkout', { key, body })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body
}

const get = (ta: TestApp, path: string, key = ta.merchant.testKey) => ta.request('GET', path, { key })

/** Every page of a list, following starting_after; the ids in the order they came. */
async function allPages(ta: TestApp, path: string, limit: number, key = ta.merchant.testKey) {
  const ids: string[] = []
  let after: string | undefined
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?'
    const res = await get(ta, `${path}${sep}limit=${limit}${after ? `&starting_after=${after}` : ''}`, key)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'hasMore'])
    assert.ok(res.body.data.length <= limit)
    ids.push(...res.body.data.map((x: { id: string }) => x.id))
    if (!res.body.hasMore) return ids
    after = res.body.data.at(-1).id
  }
  throw new Error('more than 100 pages')
}

test('sessions list newest first; pages of any size give every session once, same-millisecond ones included', async (t) => {
  const ta = await startTestApp(t)
  const made: string[] = []
  // Three groups of sessions, each group in one millisecond (the test clock stands still).
  for (let group = 0; group < 3; group++) {
    for (let i = 0; i < 5; i++) made.push((await checkout(ta)).id)
    ta.clock.advance(1)
  }
  const newestFirst = await allPages(ta, '/api/v1/sessions', 100)
  assert.equal(newestFirst.length, 15)
  assert.deepEqual([...newestFirst].sort(), [...made].sort())
  // Newest millisecond first; within one millisecond a stable order (by id, descending).
  for (let group = 0; group < 3; group++) {
    const slice = newestFirst.slice(group * 5, group * 5 + 5)
    assert.deepEqual([...slice].sort(), made.slice((2 - group) * 5, (2 - group) * 5 + 5).sort())
    assert.deepEqual(slice, [...slice].sort().reverse())
  }
  for (const limit of [1, 2, 4, 7]) {
    assert.deepEqual(await allPages(ta, '/api/v1/sessions', limit), newestFirst, `limit ${limit}`)
  }
  // Default page size 10; hasMore when more remain.
  const first = await get(ta, '/api/v1/sessions')
  assert.equal(first.body.data.length, 10)
  assert.equal(first.body.hasMore, true)
})

test('a listed session is the object GET /sessions/{id} gives, with description, metadata and the record with refundedAmount', async (t) => {
  const ta = await startTestApp(t)
  const plain = await checkout(ta)
  const paid = await paidSession(ta, { amount: 5000, currency: 'USD', description: 'Order 7', metadata: { order: '7' } })
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 1200 } })
  assert.equal(refund.status, 200)
  const list = await get(ta, '/api/v1/sessions')
  assert.equal(list.body.data.length, 2)
  for (const s of list.body.data) assert.deepEqual(s, (await get(ta, `/api/v1/sessions/${s.id}`)).body)
  const listed = list.body.data.find((s: { id: string }) => s.id === paid.id)
  assert.equal(listed.description, 'Order 7')
  assert.deepEqual(listed.metadata, { order: '7' })
  assert.equal(listed.record.refundedAmount, 1200)
  assert.equal(listed.record.status, 'partially_refunded')
  const unpaid = list.body.data.find((s: { id: string }) => s.id === plain.id)
  assert.equal(Object.hasOwn(unpaid, 'record'), false)
})

test('sessions filter by status as a reader sees it, by creation time and by metadata', async (t) => {
  const ta = await startTestApp(t)
  const start = ta.clock()
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { order: 'A-1', shop: 'north' } })
  ta.clock.advance(1000)
  const lapsing = await checkout(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 60, metadata: { order: 'A-2', shop: 'north' } })
  const canceled = await checkout(ta, { amount: 1000, currency: 'CNY', metadata: { order: 'A-3', shop: 'south' } })
  assert.equal((await ta.request('POST', `/api/v1/test_helpers/sessions/${canceled.id}/cancel`, { key: ta.merchant.testKey })).status, 200)
  const expiredByHelper = await checkout(ta)
  assert.equal((await ta.request('POST', `/api/v1/test_helpers/sessions/${expiredByHelper.id}/expire`, { key: ta.merchant.testKey })).status, 200)
  ta.clock.advance(1000)
  const open = await checkout(ta, { amount: 1000, currency: 'CNY', expiresInSeconds: 3600 })
  // Past the first one's expiry: it reads as expired though no sweep stored that (jobs are off here).
  ta.clock.advance(61_000)

  const ids = async (q: string) => (await get(ta, `/api/v1/sessions?${q}`)).body.data.map((s: { id: string }) => s.id)
  assert.deepEqual(await ids('status=paid'), [paid.id])
  assert.deepEqual(await ids('status=pending'), [open.id])
  assert.deepEqual(await ids('status=canceled'), [canceled.id])
  assert.deepEqual((await ids('status=expired')).sort(), [expiredByHelper.id, lapsing.id].sort())
  const expired = await get(ta, '/api/v1/sessions?status=expired')
  assert.ok(expired.body.data.every((s: { status: string }) => s.status === 'expired'))
  // Paging through a status that spans stored rows of several statuses.
  assert.deepEqual((await allPages(ta, '/api/v1/sessions?status=expired', 1)).sort(), [expiredByHelper.id, lapsing.id].sort())
  assert.deepEqual(await ids('status=refunded'), [])

  const t1 = new Date(start.getTime() + 1000).toISOString()
  const t2 = new Date(start.getTime() + 2000).toISOString()
  assert.deepEqual(await ids(`created_lt=${t1}`), [paid.id])
  assert.deepEqual((await ids(`created_gte=${t1}&created_lt=${t2}`)).sort(), [lapsing.id, canceled.id, expiredByHelper.id].sort())
  assert.deepEqual(await ids(`created_gte=${t2}`), [open.id])
  assert.deepEqual(await ids(`created_gte=${encodeURIComponent(t2.replace('Z', '+00:00'))}`), [open.id])

  assert.deepEqual(await ids('metadata[order]=A-2'), [lapsing.id])
  assert.deepEqual((await ids('metadata[shop]=north')).sort(), [paid.id, lapsing.id].sort())
  assert.deepEqual(await ids('metadata[shop]=north&metadata[order]=A-1'), [paid.id])
  assert.deepEqual(await ids('metadata[shop]=north&status=expired'), [lapsing.id])
  assert.deepEqual(await ids('metadata[shop]=west'), [])
  assert.deepEqual(await ids(`metadata[${encodeURIComponent('no such key')}]=north`), [])
})

test('lists and reads are scoped: another merchant or the other mode sees none of it, and its ids are 404', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 100 } })
  assert.equal(refund.status, 200)
  const refundId = refund.body.refund.id
  const other = await ta.newMerchant('Other')
  await paidSession({ ...ta, merchant: other })

  for (const key of [other.testKey, other.liveKey, ta.merchant.liveKey]) {
    for (const path of [`/api/v1/sessions/${paid.id}`, `/api/v1/records/${paid.record.id}`, `/api/v1/refunds/${refundId}`]) {
      const res = await get(ta, path, key)
      assert.equal(res.status, 404, path)
      assert.equal(res.body.error, 'Not found')
    }
    for (const path of ['/api/v1/sessions', '/api/v1/records', '/api/v1/refunds']) {
      const ids = (await get(ta, path, key)).body.data.map((x: { id: string }) => x.id)
      assert.ok(!ids.includes(paid.id) && !ids.includes(paid.record.id) && !ids.includes(refundId), `${path} leaks`)
    }
    // Filters naming another scope's objects find nothing.
    assert.deepEqual((await get(ta, `/api/v1/records?session_id=${paid.id}`, key)).body.data, [])
    assert.deepEqual((await get(ta, `/api/v1/refunds?record_id=${paid.record.id}`, key)).body.data, [])
    // Nor can a page start after another scope's object.
    for (const [path, id, noun] of [['sessions', paid.id, 'session'], ['records', paid.record.id, 'record'], ['refunds', refundId, 'refund']]) {
      const res = await get(ta, `/api/v1/${path}?starting_after=${id}`, key)
      assert.equal(res.status, 400)
      assert.equal(res.body.error, `starting_after: no such ${noun}`)
    }
  }
  // The other merchant sees exactly its own.
  assert.equal((await get(ta, '/api/v1/sessions', other.testKey)).body.data.length, 1)
  assert.equal((await get(ta, '/api/v1/records', other.testKey)).body.data.length, 1)
  assert.equal((await get(ta, '/api/v1/sessions', other.liveKey)).body.data.length, 0)
})

test('a record reads back with its refunds, newest first; records list and filter by session and status', async (t) => {
  const ta = await startTestApp(t)
  const a = await paidSession(ta, { amount: 1000, currency: 'CNY' })
  ta.clock.advance(5)
  const b = await paidSession(ta, { amount: 2000, currency: 'EUR' })
  ta.clock.advance(5)
  const refundIds: string[] = []
  for (const amount of [100, 200]) {
    const res = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: a.record.id, amount, reason: `r${amount}` } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    refundIds.push(res.body.refund.id)
  }

  const rec = await get(ta, `/api/v1/records/${a.record.id}`)
  assert.equal(rec.status, 200)
  assert.deepEqual(Object.keys(rec.body).sort(),
    ['amount', 'createdAt', 'currency', 'id', 'mode', 'paidAt', 'provider', 'providerRef', 'refundedAmount', 'refunds', 'sessionId', 'status'])
  assert.equal(rec.body.sessionId, a.id)
  assert.equal(rec.body.refundedAmount, 300)
  assert.equal(rec.body.status, 'partially_refunded')
  // Same millisecond: newest first means by id, descending.
  assert.deepEqual(rec.body.refunds.map((f: { id: string }) => f.id), [...refundIds].sort().reverse())
  for (const f of rec.body.refunds) {
    assert.deepEqual(Object.keys(f).sort(), ['amount', 'createdAt', 'id', 'providerRef', 'reason', 'recordId', 'status'])
    assert.equal(f.recordId, a.record.id)
    assert.equal(f.status, 'succeeded')
    assert.deepEqual((await get(ta, `/api/v1/refunds/${f.id}`)).body, f)
  }

  const all = await get(ta, '/api/v1/records')
  assert.deepEqual(all.body.data.map((r: { id: string }) => r.id), [b.record.id, a.record.id])
  assert.deepEqual(all.body.data[1], rec.body)
  assert.deepEqual(all.body.data[0].refunds, [])
  assert.deepEqual((await get(ta, `/api/v1/records?session_id=${b.id}`)).body.data.map((r: { id: string }) => r.id), [b.record.id])
  assert.deepEqual((await get(ta, '/api/v1/records?status=partially_refunded')).body.data.map((r: { id: string }) => r.id), [a.record.id])
  assert.deepEqual((await get(ta, '/api/v1/records?status=paid')).body.data.map((r: { id: string }) => r.id), [b.record.id])
  assert.deepEqual(await allPages(ta, '/api/v1/records', 1), [b.record.id, a.record.id])

  const refunds = await get(ta, '/api/v1/refunds')
  assert.deepEqual(refunds.body.data, rec.body.refunds)
  assert.deepEqual((await get(ta, `/api/v1/refunds?record_id=${b.record.id}`)).body.data, [])
  assert.deepEqual(await allPages(ta, `/api/v1/refunds?record_id=${a.record.id}`, 1), rec.body.refunds.map((f: { id: string }) => f.id))
})

test('unknown record and refund ids are 404 Not found', async (t) => {
  const ta = await startTestApp(t)
  for (const path of ['/api/v1/records/rec_nope', '/api/v1/refunds/ref_nope', `/api/v1/records/${'x'.repeat(65)}`]) {
    const res = await get(ta, path)
    assert.equal(res.status, 404, path)
    assert.equal(res.body.error, 'Not found')
  }
})

test('bad list parameters are a field-level 400', async (t) => {
  const ta = await startTestApp(t)
  const cases: [string, string][] = [
    ['/api/v1/sessions?limit=0', 'limit: must be at least 1'],
    ['/api/v1/sessions?limit=101', 'limit: must be at most 100'],
    ['/api/v1/sessions?limit=ten', 'limit: must be an integer'],
    ['/api/v1/sessions?status=open', 'status: must be one of pending, processing, paid, refunded, failed, canceled, expired'],
    ['/api/v1/sessions?created_gte=yesterday', 'created_gte: must be a valid date-time'],
    ['/api/v1/sessions?created_lt=2026-11-21', 'created_lt: must be a valid date-time'],
    ['/api/v1/sessions?starting_after=sess_nope', 'starting_after: no such session'],
    ['/api/v1/sessions?colour=red', 'unknown field: colour'],
    ['/api/v1/sessions?metadata=x', 'metadata: must be an object'],
    [`/api/v1/sessions?metadata[k]=${'v'.repeat(501)}`, 'metadata.k: must be at most 500 characters'],
    ['/api/v1/records?status=open', 'status: must be one of paid, partially_refunded, refunded, refunding'],
    ['/api/v1/records?starting_after=rec_nope', 'starting_after: no such record'],
    ['/api/v1/records?limit=101', 'limit: must be at most 100'],
    ['/api/v1/refunds?starting_after=ref_nope', 'starting_after: no such refund'],
    ['/api/v1/refunds?status=succeeded', 'unknown field: status'],
    ['/api/v1/refunds?created_gte=soon', 'created_gte: must be a valid date-time'],
  ]
  for (const [path, error] of cases) {
    const res = await get(ta, path)
    assert.equal(res.status, 400, path)
    assert.equal(res.body.error, error, path)
  }
})

test('fuzz finding: a creation bound whose offset takes it out of years 1 to 9999 is no bound, not a 500', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 10 } })
  for (const list of ['sessions', 'records', 'refunds']) {
    // 0001-01-01T00:00:00+00:52 is 0000-12-31T23:08Z, a year PostgreSQL does not have (it was a 500).
    const early = await get(ta, `/api/v1/${list}?created_gte=${encodeURIComponent('0001-01-01T00:00:00+00:52')}`)
    assert.equal(early.status, 200, `${list}: ${JSON.stringify(early.body)}`)
    assert.equal(early.body.data.length, 1, list)
    const late = await get(ta, `/api/v1/${list}?created_lt=${encodeURIComponent('9999-12-31T23:59:59-23:59')}`)
    assert.equal(late.status, 200, `${list}: ${JSON.stringify(late.body)}`)
    assert.equal(late.body.data.length, 1, list)
  }
})

test('lists need a key', async (t) => {
  const ta = await startTestApp(t)
  for (const path of ['/api/v1/sessions', '/api/v1/records', '/api/v1/refunds', '/api/v1/records/rec_x', '/api/v1/refunds/ref_x']) {
    assert.equal((await ta.request('GET', path, { key: null })).status, 401, path)
  }
})

test('the OpenAPI document lists the read-back operations, and metadata as a deepObject query parameter', async (t) => {
  const ta = await startTestApp(t)
  const doc = (await ta.request('GET', '/api/v1/openapi.json')).body
  for (const path of ['/api/v1/sessions', '/api/v1/records', '/api/v1/records/{id}', '/api/v1/refunds', '/api/v1/refunds/{id}']) {
    assert.ok(doc.paths[path]?.get, `GET ${path}`)
  }
  const metadata = doc.paths['/api/v1/sessions'].get.parameters.find((p: { name: string }) => p.name === 'metadata')
  assert.equal(metadata.style, 'deepObject')
  assert.equal(metadata.explode, true)
})

test('the console\'s search finds a session by its id, its record\'s id, a refund\'s id, or a metadata value under any key', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { order: 'A-77', customer: 'c-9' } })
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 10 } })
  const other = await checkout(ta, { amount: 500, currency: 'CNY', metadata: { note: 'A-77' } })
  await checkout(ta, { amount: 500, currency: 'CNY', metadata: { note: 'A-78' } })
  const scope = { merchantId: ta.merchant.id, mode: 'test' as const }
  const search = async (text: string, mode: 'test' | 'live' = 'test') =>
    (await listSessions(ta.deps, { ...scope, mode }, { search: text }, {})).data.map((s) => s.id)
  assert.deepEqual(await search(paid.id), [paid.id])
  assert.deepEqual(await search(paid.record.id), [paid.id])
  assert.deepEqual(await search(refund.body.refund.id), [paid.id])
  assert.deepEqual((await search('A-77')).sort(), [paid.id, other.id].sort())
  assert.deepEqual(await search('c-9'), [paid.id])
  assert.deepEqual(await search('A-7'), [])
  assert.deepEqual(await search('rec_nope'), [])
  assert.deepEqual(await search('say "hi" \\ there'), [])
  // Scoped like everything else: the live mode finds none of it.
  for (const text of [paid.id, paid.record.id, refund.body.refund.id, 'A-77']) assert.deepEqual(await search(text, 'live'), [])
  // Search combines with the other filters.
  const paidOnly = await listSessions(ta.deps, scope, { search: 'A-77', status: 'paid' }, {})
  assert.deepEqual(paidOnly.data.map((s) => s.id), [paid.id])
})
