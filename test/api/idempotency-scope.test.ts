/**
 * Idempotency keys, continued: a refund key belongs to one mode as well as one merchant, and a 503
 * (the database away: PgBouncer's class 08 included) releases the key, so the retry runs.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp } from '../helpers/app.js'
import { reconTill } from '../helpers/reconciliation.js'
import { refundRows } from '../helpers/store-queries.js'

test('refund keys belong to one mode: the same key in test and live mode makes two refunds, each remembered in its own mode', async (t) => {
  const r = await reconTill(t)
  const { ta } = r
  // Live refunds go to WeChat Pay: this one answers at once, on loopback's behalf.
  const wechat = ta.deps.providers.get('wechat')!
  wechat.refund = async () => ({ status: 'succeeded', currency: 'CNY' })
  const testPaid = await paidSession(ta)
  const livePaid = await r.payment({ paidAt: ta.clock() })
  const refundAs = (key: string, recordId: string) => ta.request('POST', '/api/v1/refunds', { key, body: { recordId, amount: 300 }, headers: { 'idempotency-key': 'shared-key' } })

  const inTest = await refundAs(ta.merchant.testKey, testPaid.record.id)
  const inLive = await refundAs(ta.merchant.liveKey, livePaid.recordId)
  assert.deepEqual([inTest.status, inLive.status], [200, 200], JSON.stringify([inTest.body, inLive.body]))
  assert.equal(inLive.headers.get('idempotent-replayed'), null)
  assert.notEqual(inLive.body.refund.id, inTest.body.refund.id)
  assert.deepEqual((await refundRows(ta, livePaid.recordId)).map((x) => [x.mode, x.amount]), [['live', 300]])
  assert.deepEqual((await refundRows(ta, testPaid.record.id)).map((x) => [x.mode, x.amount]), [['test', 300]])
  // With the stored answers gone, each mode's refund still remembers its own key.
  await ta.database.pool.query('delete from idempotency_keys')
  const liveAgain = await refundAs(ta.merchant.liveKey, livePaid.recordId)
  const testAgain = await refundAs(ta.merchant.testKey, testPaid.record.id)
  assert.deepEqual([liveAgain.status, liveAgain.body.refund.id], [200, inLive.body.refund.id])
  assert.deepEqual([testAgain.status, testAgain.body.refund.id], [200, inTest.body.refund.id])
  assert.equal((await refundRows(ta, livePaid.recordId)).length + (await refundRows(ta, testPaid.record.id)).length, 2)
})

test('a lost server connection (SQLSTATE class 08, as PgBouncer reports it) answers 503, not 500, and releases the key: the retry runs', async (t) => {
  const ta = await startTestApp(t)
  const created = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { amount: 1000, currency: 'CNY' } })
  const pay = () => ta.request('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, { key: ta.merchant.testKey, body: {}, headers: { 'idempotency-key': 'pay-08' } })
  const original = ta.deps.providers.get
  ta.deps.providers.get = () => {
    throw Object.assign(new Error('server conn crashed?'), { code: '08P01', severity: 'FATAL' })
  }
  let lost
  try {
    lost = await pay()
  } finally {
    ta.deps.providers.get = original
  }
  assert.deepEqual([lost.status, lost.body], [503, { error: 'service unavailable', code: 'service_unavailable' }])
  const { rows } = await ta.database.pool.query(`select 1 from idempotency_keys where merchant_id = $1 and key = 'pay-08'`, [ta.merchant.id])
  assert.deepEqual(rows, [], 'the key is released')
  const retried = await pay()
  assert.deepEqual([retried.status, retried.headers.get('idempotent-replayed'), retried.body.status], [200, null, 'paid'])
})
