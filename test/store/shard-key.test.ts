/**
 * Reads that can name the merchant do (docs/scaling.md, "Sharding by merchant"): the session's record
 * looked up with the session's (merchant, mode) finds it, and a scope that is not the session's finds
 * nothing, so the scoped statement really filters by the shard key.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { getRecordBySession } from '../../src/store/repos/records.js'
import { freshPool } from '../helpers/db.js'

test('the record of a session, looked up with its merchant and mode', async (t) => {
  const database = await freshPool(t)
  const pool = database.pool
  await pool.query(`insert into merchants (id, name) values ('mer_a', 'A'), ('mer_b', 'B')`)
  await pool.query(`insert into sessions (id, merchant_id, mode, status, amount, currency, expires_at)
    values ('sess_1', 'mer_a', 'test', 'paid', 100, 'CNY', now() + interval '1 hour')`)
  await pool.query(`insert into records (id, session_id, merchant_id, mode, provider, provider_ref, amount, currency, status, paid_at)
    values ('rec_1', 'sess_1', 'mer_a', 'test', 'mock', 'ref', 100, 'CNY', 'paid', now())`)

  assert.equal((await getRecordBySession(database.db, { merchantId: 'mer_a', mode: 'test' }, 'sess_1'))?.id, 'rec_1')
  assert.equal(await getRecordBySession(database.db, { merchantId: 'mer_b', mode: 'test' }, 'sess_1'), null)
  assert.equal(await getRecordBySession(database.db, { merchantId: 'mer_a', mode: 'live' }, 'sess_1'), null)
})
