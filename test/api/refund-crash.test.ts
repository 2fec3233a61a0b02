/**
 * A refund interrupted between its reservation and the provider's answer (a crash, a provider that
 * hangs) reads `refunding`, and reconciliation catches up with hundreds of unsettled refunds at once.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { drainDue } from '../../src/jobs/reconcile.js'
import { JOBS } from '../../src/jobs/runner.js'
import type { RefundState } from '../../src/providers/types.js'
import { paidSession, startTestApp } from '../helpers/app.js'
import { recordRow } from '../helpers/store-queries.js'
import { within } from '../helpers/wait.js'

test('while the provider has not answered a refund, the record already reads refunding', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' })
  const first = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 100 } })
  assert.equal(first.body.status, 'partially_refunded')

  // The provider call of the next refund never returns on its own: the process could die right here.
  const mock = ta.deps.providers.get('mock')!
  const original = mock.refund
  let called!: () => void
  const inCall = new Promise<void>((r) => (called = r))
  let answer!: (s: RefundState) => void
  mock.refund = async () => {
    called()
    return new Promise<RefundState>((r) => (answer = r))
  }
  t.after(() => {
    mock.refund = original
  })
  const second = ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 200 } })
  // The refund reaches the provider, or answers without doing so: a failure at once, not a wait until the file times out.
  const answeredFirst = second.then((res) => {
    throw new Error(`the refund answered ${res.status} ${res.text} without calling the provider`)
  })
  await within(30_000, Promise.race([inCall, answeredFirst]), 'the refund reaching the provider')
  const during = await recordRow(ta, paid.record.id)
  assert.equal(during.status, 'refunding', 'the reservation itself marks the record')
  assert.equal(during.refunded_amount, 100)
  const view = await ta.request('GET', `/api/v1/sessions/${paid.id}`, { key: ta.merchant.testKey })
  assert.equal(view.body.record.status, 'refunding')

  answer({ status: 'succeeded', providerRefundRef: 'mock_ref_x' })
  assert.equal((await second).body.status, 'partially_refunded')
  assert.equal((await recordRow(ta, paid.record.id)).refunded_amount, 300)
})

test('one reconciliation run settles 300 refunds left pending by a crash', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 100_000, currency: 'CNY' })
  const now = ta.clock()
  const insert = async (n: number) => {
    const ids = Array.from({ length: n }, () => newId('ref'))
    await ta.database.pool.query(
      `insert into refunds (id, record_id, merchant_id, mode, amount, status, next_check_at, created_at, updated_at)
       select id, $2, $3, 'test', 10, 'pending', $4, $5, $5 from unnest($1::text[]) as id`,
      [ids, paid.record.id, ta.merchant.id, new Date(now.getTime() - 1000), now],
    )
    await ta.database.pool.query(`update records set status = 'refunding' where id = $1`, [paid.record.id])
  }
  const pending = async () => (await ta.database.pool.query(`select count(*)::int as n from refunds where status = 'pending'`)).rows[0].n as number
  const job = JOBS.find((j) => j.name === 'reconcile-refunds')!.start(ta.deps)

  await insert(300)
  await job.run()
  assert.equal(await pending(), 0, 'all 300 settled in one run')
  const record = await recordRow(ta, paid.record.id)
  assert.equal(record.refunded_amount, 3000)
  assert.equal(record.status, 'partially_refunded')

})

test('a run is bounded: it stops at its budget, or at the first pass that finds less than it asked for', async () => {
  let due = 1000
  const claimed: number[] = []
  const pass = async (limit: number) => {
    const n = Math.min(limit, due)
    due -= n
    claimed.push(n)
    return n
  }
  assert.equal(await drainDue(pass, { batch: 20, workers: 4, maxPerRun: 400 }), 400)
  assert.equal(due, 600)
  due = 30
  claimed.length = 0
  assert.equal(await drainDue(pass, { batch: 20, workers: 1, maxPerRun: 400 }), 30)
  assert.deepEqual(claimed, [20, 10])
})
