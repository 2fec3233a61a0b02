/**
 * The hot path's prepared statements (src/store/prepared.ts) behave as the queries they replace:
 * inside a transaction they run on its connection (its locks, its rollback), and rows come back
 * mapped the same way (Dates, JSON, nulls).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eq } from 'drizzle-orm'
import { newId } from '../../src/domain/ids.js'
import { getRecordUnscoped } from '../../src/store/repos/records.js'
import { insertRefund } from '../../src/store/repos/refunds.js'
import { getSessionUnscoped, insertSession } from '../../src/store/repos/sessions.js'
import { sessions } from '../../src/store/schema.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { openTestPool } from '../helpers/db.js'

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

test('prepared rows map as Drizzle maps them; omitted columns take the schema defaults; a null timestamp stays null', async (t) => {
  const ta = await startTestApp(t)
  const db = ta.deps.db
  const created = await insertSession(db, { id: newId('sess'), merchantId: ta.merchant.id, mode: 'test', status: 'pending', amount: 250, currency: 'EUR', expiresAt: new Date('2030-01-01T00:00:00.000Z') })
  const [plain] = await db.select().from(sessions).where(eq(sessions.id, created.id))
  assert.deepEqual(await getSessionUnscoped(db, created.id), plain)
  assert.deepEqual([created.metadata, created.description, created.chosenProvider], [{}, null, null])
  assert.ok(created.createdAt instanceof Date && created.expiresAt.toISOString() === '2030-01-01T00:00:00.000Z')

  const paid = await paidSession(ta)
  const refund = await insertRefund(db, { id: newId('ref'), recordId: paid.record.id, merchantId: ta.merchant.id, mode: 'test', amount: 5, status: 'pending', nextCheckAt: null, providerRef: 'ext_1', initiatedBy: 'provider' })
  assert.deepEqual([refund.nextCheckAt, refund.initiatedBy, refund.providerPending, refund.checks, refund.idempotencyKey], [null, 'provider', false, 0, null])
})
