/**
 * The hot path's prepared statements (src/store/prepared.ts) behave as the queries they replace:
 * inside a transaction they run on its connection (its locks, its rollback), and rows come back
 * mapped the same way (Dates, JSON, nulls), also those read as plain SQL (tableRows); and the API's
 * hot paths make no more round trips to PostgreSQL than their statements need.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eq } from 'drizzle-orm'
import pg from 'pg'
import { newId } from '../../src/domain/ids.js'
import type { Executor } from '../../src/store/db.js'
import { appendEvent } from '../../src/store/repos/events.js'
import { getProviderConfigUnscoped, insertProviderConfig } from '../../src/store/repos/provider-configs.js'
import { getRecordUnscoped, lockRecord, setRecordRefunds } from '../../src/store/repos/records.js'
import { claimKeyFindingRefund, findRefundByIdempotencyKey, getRefundUnscoped, insertRefund, setProviderPending, setRefundOutcome } from '../../src/store/repos/refunds.js'
import { getSession, getSessionUnscoped, insertSessionRow, setSessionStatus, type SessionRow } from '../../src/store/repos/sessions.js'
import { events, providerConfigs, records, refunds, sessions } from '../../src/store/schema.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { openTestPool } from '../helpers/db.js'

/** A complete session row, as checkout writes it (insertSessionRow), inserted; the row answered. */
async function insertSession(ex: Parameters<typeof insertSessionRow>[0], o: Pick<SessionRow, 'id' | 'merchantId' | 'mode' | 'status' | 'amount' | 'currency' | 'expiresAt'> & Partial<SessionRow>): Promise<SessionRow> {
  const now = new Date()
  const row: SessionRow = {
    description: null, metadata: {}, successUrl: null, cancelUrl: null, locale: null, chosenProvider: null, providerConfigId: null, createdAt: now, updatedAt: now, customerEmail: null, paymentLinkId: null, ...o,
  }
  await insertSessionRow(ex, row)
  return row
}

test('a prepared statement in a transaction runs on its connection: rolled back with it, and its row lock held by it', async (t) => {
  const ta = await startTestApp(t)
  const db = ta.deps.db
  const now = new Date()
  const row = { id: newId('sess'), merchantId: ta.merchant.id, mode: 'test' as const, status: 'pending' as const, amount: 100, currency: 'CNY' as const, expiresAt: now }
  await assert.rejects(db.transaction(async (tx) => {
    await insertSession(tx, row)
    assert.ok(await getSessionUnscoped(tx, row.id), 'visible inside the transaction')
    throw new Error('roll back')
  }), /roll back/)
  assert.equal(await getSessionUnscoped(db, row.id), null, 'gone with the rollback')

  const paid = await paidSession(ta)
  const other = openTestPool(ta.databaseUrl, 1)
  t.after(() => other.close())
  await db.transaction(async (tx) => {
    assert.equal((await getRecordUnscoped(tx, paid.record.id, true))!.id, paid.record.id)
    await assert.rejects(other.pool.query('select id from records where id = $1 for update nowait', [paid.record.id]), (e: { code?: string }) => e.code === '55P03')
  })
  assert.equal((await other.pool.query('select id from records where id = $1 for update nowait', [paid.record.id])).rows.length, 1)
})

test('prepared rows map as Drizzle maps them; a refund\'s omitted columns take the schema defaults; a null timestamp stays null', async (t) => {
  const ta = await startTestApp(t)
  const db = ta.deps.db
  const created = await insertSession(db, { id: newId('sess'), merchantId: ta.merchant.id, mode: 'test', status: 'pending', amount: 250, currency: 'EUR', expiresAt: new Date('2030-01-01T00:00:00.000Z') })
  const [plain] = await db.select().from(sessions).where(eq(sessions.id, created.id))
  const read = (await getSessionUnscoped(db, created.id))!
  assert.deepEqual(read, plain)
  assert.deepEqual([read.metadata, read.description, read.chosenProvider], [{}, null, null])
  assert.ok(read.createdAt instanceof Date && read.expiresAt.toISOString() === '2030-01-01T00:00:00.000Z')

  const paid = await paidSession(ta)
  const refund = await insertRefund(db, { id: newId('ref'), recordId: paid.record.id, merchantId: ta.merchant.id, mode: 'test', amount: 5, status: 'pending', nextCheckAt: null, providerRef: 'ext_1', initiatedBy: 'provider' })
  assert.deepEqual([refund.nextCheckAt, refund.initiatedBy, refund.providerPending, refund.checks, refund.idempotencyKey], [null, 'provider', false, 0, null])
})

test('rows read as plain SQL (tableRows) equal the rows Drizzle maps: a session with metadata, a refund found with its key', async (t) => {
  const ta = await startTestApp(t)
  const db = ta.deps.db
  const scope = { merchantId: ta.merchant.id, mode: 'test' as const }
  const created = await insertSession(db, { ...scope, id: newId('sess'), status: 'pending', amount: 250, currency: 'EUR', metadata: { order: 'A-1', b: '2' }, successUrl: 'https://shop.example.com/ok', expiresAt: new Date('2030-01-01T00:00:00.123Z') })
  assert.deepEqual(await getSession(db, scope, created.id), created)
  assert.equal(await getSession(db, { ...scope, mode: 'live' }, created.id), null)

  const paid = await paidSession(ta)
  const refund = await insertRefund(db, { ...scope, id: newId('ref'), recordId: paid.record.id, amount: 5, status: 'pending', idempotencyKey: 'k-1', nextCheckAt: new Date() })
  assert.deepEqual(await findRefundByIdempotencyKey(db, scope, 'k-1'), refund)
  const claim = (key: string) => ({ ...scope, key, fingerprint: 'f', now: new Date(), lockedUntil: new Date(Date.now() + 60_000) })
  await db.transaction(async (tx) => {
    assert.deepEqual(await claimKeyFindingRefund(tx, claim('k-1'), paid.record.id), { earlier: refund, pending: { sum: 5, count: 1 } })
    assert.deepEqual(await claimKeyFindingRefund(tx, claim('k-2'), paid.record.id), { earlier: null, pending: { sum: 5, count: 1 } })
  })
})

/** The row Drizzle reads back, to compare the plain SQL path with. */
async function drizzleRow<T extends typeof records | typeof refunds | typeof events | typeof sessions | typeof providerConfigs>(ex: Executor, table: T, id: string) {
  const [row] = await ex.select().from(table as typeof records).where(eq((table as typeof records).id, id))
  return row as unknown as T['$inferSelect']
}

test('the refund path as plain SQL: rows read equal Drizzle\'s, and each write without RETURNING answers the row it stored', async (t) => {
  const ta = await startTestApp(t)
  const db = ta.deps.db
  const scope = { merchantId: ta.merchant.id, mode: 'test' as const }
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { order: 'A-1' } })
  const at = (ms: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, 0, ms))
  await db.transaction(async (tx) => {
    const record = (await lockRecord(tx, scope, paid.record.id))!
    assert.deepEqual(record, await drizzleRow(tx, records, paid.record.id))
    assert.equal(await lockRecord(tx, { ...scope, mode: 'live' }, paid.record.id), null, 'scoped by mode')
    assert.deepEqual(await getRecordUnscoped(tx, record.id, true), record)
    assert.deepEqual(await setRecordRefunds(tx, record, 0, 'refunding'), await drizzleRow(tx, records, record.id))

    const inserted = await insertRefund(tx, { ...scope, id: newId('ref'), recordId: record.id, amount: 1000, status: 'pending', reason: 'why', idempotencyKey: 'k', nextCheckAt: at(7), createdAt: at(1), updatedAt: at(1) })
    assert.deepEqual(inserted, await drizzleRow(tx, refunds, inserted.id))
    assert.deepEqual(await getRefundUnscoped(tx, inserted.id, true), inserted)
    const pending = await setProviderPending(tx, inserted, 'ext_1', at(2))
    assert.deepEqual(pending, await drizzleRow(tx, refunds, inserted.id))
    const settled = await setRefundOutcome(tx, pending, { status: 'failed', providerRef: null, failureReason: 'no: refused', updatedAt: at(3) })
    assert.deepEqual(settled, await drizzleRow(tx, refunds, inserted.id))
    assert.deepEqual([settled.nextCheckAt, settled.providerPending], [null, true])

    await setSessionStatus(tx, record.sessionId, 'refunded', at(4))
    const session = (await getSessionUnscoped(tx, record.sessionId, true))!
    assert.deepEqual(session, await drizzleRow(tx, sessions, record.sessionId))
    assert.deepEqual([session.status, session.updatedAt, session.metadata], ['refunded', at(4), { order: 'A-1' }])

    const event = await appendEvent(tx, scope, 'refund.failed', { refundId: inserted.id, metadata: { order: 'A-1' }, reason: null, list: [1, 'two'] }, at(5))
    assert.deepEqual(event, await drizzleRow(tx, events, event.id))
  })

  const config = await insertProviderConfig(db, { id: newId('pc'), merchantId: ta.merchant.id, provider: 'wechat', label: 'main', credentialsEnc: 'sealed', settings: { apiBase: 'https://x.example', n: 2 } })
  assert.deepEqual(await getProviderConfigUnscoped(db, config.id), await drizzleRow(db, providerConfigs, config.id))
  assert.equal(await getProviderConfigUnscoped(db, 'pc_none'), null)
})

test('round trips to PostgreSQL per API request: GET of a paid session 2, checkout 1 with a key or without, a refund 15, with a key 15 too', async (t) => {
  // Counted where every statement goes: pg's Client.query, which Till's connections (store/db.ts) bind when made.
  let count = 0
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count++
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
  t.after(() => {
    pg.Client.prototype.query = query
  })
  const ta = await startTestApp(t)
  const key = ta.merchant.testKey
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' })
  let n = 0
  const requests: [string, () => Promise<unknown>, number][] = [
    ['GET', () => ta.request('GET', `/api/v1/sessions/${paid.id}`, { key }), 2], // a paid session: its record too
    ['checkout', () => ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } }), 1],
    ['checkout with a key', () => ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' }, headers: { 'idempotency-key': `c-${n++}` } }), 1],
    // begin, lock the record, pending sum, insert, mark it refunding, commit; begin, lock record and refund, settle, sums, record, session, the event with its deliveries, commit
    ['refund', () => ta.request('POST', '/api/v1/refunds', { key, body: { recordId: paid.record.id, amount: 1 } }), 15],
    // the same: the key claimed by the pending sum's statement (with the lookup of its earlier refund), its answer stored by the event's
    ['refund with a key', () => ta.request('POST', '/api/v1/refunds', { key, body: { recordId: paid.record.id, amount: 1 }, headers: { 'idempotency-key': `r-${n++}` } }), 15],
  ]
  const counted: Record<string, number> = {}
  const expected: Record<string, number> = {}
  for (const [name, send, trips] of requests) {
    await send() // the first of each kind may claim the key's rate-limit tokens
    count = 0
    const res = await send() as { status: number }
    assert.equal(res.status, 200, name)
    counted[name] = count
    expected[name] = trips
  }
  assert.deepEqual(counted, expected)
})
