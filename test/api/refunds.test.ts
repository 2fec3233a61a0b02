/** POST /api/v1/refunds (docs/integrate.md#refunds, docs/architecture.md#the-state-machines), driven over HTTP like a merchant's server. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { getSession, refund } from '../helpers/merchant-api.js'
import { eventsWhere, ISO_MS, recordRow, refundRows, sessionRow } from '../helpers/store-queries.js'

const settle = (ta: TestApp, refundId: string, outcome: 'succeed' | 'fail') =>
  ta.request('POST', `/api/v1/test_helpers/refunds/${refundId}/${outcome}`, { key: ta.merchant.testKey })

const RECORD_KEYS = ['amount', 'createdAt', 'currency', 'id', 'mode', 'paidAt', 'provider', 'providerRef', 'refund', 'refundedAmount', 'sessionId', 'status']
const REFUND_KEYS = ['amount', 'createdAt', 'id', 'providerRef', 'reason', 'status']

test('a full refund without an amount refunds everything and the session reads refunded', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata: { orderId: 'A-1' } })
  const res = await refund(ta, { recordId: paid.record.id, reason: 'customer asked' })
  assert.equal(res.status, 200)
  assert.deepEqual(Object.keys(res.body).sort(), RECORD_KEYS)
  assert.equal(res.body.id, paid.record.id)
  assert.equal(res.body.sessionId, paid.id)
  assert.equal(res.body.status, 'refunded')
  assert.equal(res.body.amount, 1000)
  assert.equal(res.body.refundedAmount, 1000)
  assert.equal(res.body.currency, 'CNY')
  assert.equal(res.body.mode, 'test')
  assert.equal(res.body.provider, 'mock')
  assert.equal(res.body.providerRef, paid.record.providerRef)
  assert.match(res.body.paidAt, ISO_MS)
  assert.match(res.body.createdAt, ISO_MS)

  const r = res.body.refund
  assert.deepEqual(Object.keys(r).sort(), REFUND_KEYS)
  assert.match(r.id, /^ref_[0-9A-Za-z]{24}$/)
  assert.equal(r.amount, 1000)
  assert.equal(r.status, 'succeeded')
  assert.equal(typeof r.providerRef, 'string')
  assert.ok(r.providerRef.length > 0)
  assert.equal(r.reason, 'customer asked')
  assert.match(r.createdAt, ISO_MS)

  const s = await getSession(ta, paid.id)
  assert.equal(s.status, 200)
  assert.equal(s.body.status, 'refunded')
  assert.equal(s.body.record.id, paid.record.id)
  assert.equal(s.body.record.status, 'refunded')
})

test('a partial refund leaves the record partially_refunded and the session paid', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const res = await refund(ta, { recordId: paid.record.id, amount: 300 })
  assert.equal(res.status, 200)
  assert.equal(res.body.status, 'partially_refunded')
  assert.equal(res.body.refundedAmount, 300)
  assert.equal(res.body.amount, 1000)
  assert.equal(res.body.refund.amount, 300)
  assert.equal(res.body.refund.status, 'succeeded')
  assert.equal(res.body.refund.reason, null)

  const second = await refund(ta, { recordId: paid.record.id, amount: 200 })
  assert.equal(second.status, 200)
  assert.equal(second.body.refundedAmount, 500)
  assert.equal(second.body.status, 'partially_refunded')
  assert.notEqual(second.body.refund.id, res.body.refund.id)

  const s = await getSession(ta, paid.id)
  assert.equal(s.body.status, 'paid')
  assert.equal(s.body.record.status, 'partially_refunded')
})

test('refunding more than what remains is refused with the remaining amount', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  assert.equal((await refund(ta, { recordId: paid.record.id, amount: 600 })).status, 200)
  const over = await refund(ta, { recordId: paid.record.id, amount: 500 })
  assert.equal(over.status, 400)
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 400 })

  // A refusal changes nothing: exactly the remainder still goes through.
  const rest = await refund(ta, { recordId: paid.record.id, amount: 400 })
  assert.equal(rest.status, 200)
  assert.equal(rest.body.status, 'refunded')
  assert.equal(rest.body.refundedAmount, 1000)
  assert.equal((await refundRows(ta, paid.record.id)).length, 2)
})

test('a single refund above the original amount is refused with the whole amount refundable', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const over = await refund(ta, { recordId: paid.record.id, amount: 1001 })
  assert.equal(over.status, 400)
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 1000 })
})

test('refunding a fully refunded record again says it is refunded in full (code already_refunded, refundable 0)', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  assert.equal((await refund(ta, { recordId: paid.record.id })).status, 200)
  const again = await refund(ta, { recordId: paid.record.id })
  assert.equal(again.status, 400)
  assert.deepEqual(again.body, { error: 'amount exceeds refundable', code: 'already_refunded', refundable: 0, detail: 'the record is already refunded in full' })
  const withAmount = await refund(ta, { recordId: paid.record.id, amount: 1 })
  assert.deepEqual(withAmount.body, { error: 'amount exceeds refundable', code: 'already_refunded', refundable: 0, detail: 'the record is already refunded in full' })
  assert.equal((await refundRows(ta, paid.record.id)).length, 1)
})

test('a reason of 80 characters is accepted and 81 is refused', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const tooLong = await refund(ta, { recordId: paid.record.id, amount: 100, reason: 'x'.repeat(81) })
  assert.equal(tooLong.status, 400)
  assert.deepEqual(tooLong.body, { error: 'reason: must be at most 80 characters', code: 'invalid_field', param: 'reason' })
  assert.equal((await refundRows(ta, paid.record.id)).length, 0)

  const ok = await refund(ta, { recordId: paid.record.id, amount: 100, reason: 'y'.repeat(80) })
  assert.equal(ok.status, 200)
  assert.equal(ok.body.refund.reason, 'y'.repeat(80))
})

test('an amount that is not a whole number of minor units from 1 to 99999999 is refused with its exact error and changes nothing', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  // Partly refunded first, so "unchanged" covers refundedAmount and status too, not just zeros.
  assert.equal((await refund(ta, { recordId: paid.record.id, amount: 300 })).status, 200)
  const record = await recordRow(ta, paid.record.id)
  const session = await sessionRow(ta, paid.id)
  const refunds = await refundRows(ta, paid.record.id)
  const events = await eventsWhere(ta, 'recordId', paid.record.id)
  const cases: [unknown, string][] = [
    [1.5, 'amount: must be an integer'],
    ['100', 'amount: must be an integer'],
    [true, 'amount: must be an integer'],
    [null, 'amount: must be an integer'],
    [0, 'amount: must be at least 1'],
    [-1, 'amount: must be at least 1'],
    [100_000_000, 'amount: must be at most 99999999'],
  ]
  for (const [amount, error] of cases) {
    await t.test(JSON.stringify(amount), async () => {
      const res = await refund(ta, { recordId: paid.record.id, amount })
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.deepEqual(res.body, { error, code: 'invalid_field', param: 'amount' })
      assert.deepEqual(await refundRows(ta, paid.record.id), refunds, 'no refund row')
      assert.deepEqual(await recordRow(ta, paid.record.id), record, 'the record unchanged')
      assert.deepEqual(await sessionRow(ta, paid.id), session, 'the session unchanged')
      assert.deepEqual(await eventsWhere(ta, 'recordId', paid.record.id), events, 'no event')
    })
  }
  const read = await getSession(ta, paid.id)
  assert.equal(read.body.record.refundedAmount, 300)
  assert.equal(read.body.record.status, 'partially_refunded')
})

test('a record that does not exist or belongs elsewhere is Not found', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const other = await ta.newMerchant('Other')

  const unknown = await refund(ta, { recordId: 'rec_000000000000000000000000' })
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown.body, { error: 'Not found', code: 'not_found' })

  const otherMerchant = await refund(ta, { recordId: paid.record.id }, other.testKey)
  assert.equal(otherMerchant.status, 404)
  assert.deepEqual(otherMerchant.body, { error: 'Not found', code: 'not_found' })

  const liveKey = await refund(ta, { recordId: paid.record.id }, ta.merchant.liveKey)
  assert.equal(liveKey.status, 404)
  assert.deepEqual(liveKey.body, { error: 'Not found', code: 'not_found' })

  // None of those touched the money.
  assert.equal((await refundRows(ta, paid.record.id)).length, 0)
  const s = await getSession(ta, paid.id)
  assert.equal(s.body.status, 'paid')
  assert.equal(s.body.record.status, 'paid')
})

test('a JPY payment of 1500 yen refunds 1500 with no scaling', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1500, currency: 'JPY' })
  assert.equal(paid.record.amount, 1500)
  const res = await refund(ta, { recordId: paid.record.id })
  assert.equal(res.status, 200)
  assert.equal(res.body.currency, 'JPY')
  assert.equal(res.body.amount, 1500)
  assert.equal(res.body.refundedAmount, 1500)
  assert.equal(res.body.refund.amount, 1500)
  assert.equal(res.body.status, 'refunded')
  const [ev] = await eventsWhere(ta, 'refundId', res.body.refund.id)
  assert.equal(ev.data.amount, 1500)
  assert.equal(ev.data.currency, 'JPY')
})

test('a pending refund leaves the record refunding until the provider confirms it', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id, amount: 400 })
  assert.equal(res.status, 200)
  assert.equal(res.body.refund.status, 'pending')
  assert.equal(res.body.status, 'refunding')
  assert.equal(res.body.refundedAmount, 0)

  const done = await settle(ta, res.body.refund.id, 'succeed')
  assert.equal(done.status, 200)
  assert.deepEqual(Object.keys(done.body).sort(), RECORD_KEYS)
  assert.deepEqual(Object.keys(done.body.refund).sort(), REFUND_KEYS)
  assert.equal(done.body.id, paid.record.id)
  assert.equal(done.body.status, 'partially_refunded')
  assert.equal(done.body.refundedAmount, 400)
  assert.equal(done.body.refund.id, res.body.refund.id)
  assert.equal(done.body.refund.status, 'succeeded')
  assert.equal(done.body.refund.amount, 400)

  const s = await getSession(ta, paid.id)
  assert.equal(s.body.status, 'paid')
  assert.equal(s.body.record.status, 'partially_refunded')
})

test('a pending full refund confirmed later makes the record and the session refunded', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id })
  assert.equal(res.body.refund.status, 'pending')
  assert.equal(res.body.status, 'refunding')
  assert.equal((await getSession(ta, paid.id)).body.status, 'paid')

  const done = await settle(ta, res.body.refund.id, 'succeed')
  assert.equal(done.status, 200)
  assert.equal(done.body.status, 'refunded')
  assert.equal(done.body.refundedAmount, 1000)
  const s = await getSession(ta, paid.id)
  assert.equal(s.body.status, 'refunded')
  assert.equal(s.body.record.status, 'refunded')
})

test('a pending refund that fails puts the record back to paid with nothing refunded', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id, amount: 400 })
  assert.equal(res.body.status, 'refunding')

  const failed = await settle(ta, res.body.refund.id, 'fail')
  assert.equal(failed.status, 200)
  assert.equal(failed.body.refund.id, res.body.refund.id)
  assert.equal(failed.body.refund.status, 'failed')
  assert.equal(failed.body.status, 'paid')
  assert.equal(failed.body.refundedAmount, 0)

  // The failed reservation no longer holds anything back.
  const over = await refund(ta, { recordId: paid.record.id, amount: 1001 })
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 1000 })
})

test('settling a refund that is already settled is refused with its status', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const first = await refund(ta, { recordId: paid.record.id, amount: 100 })
  assert.equal((await settle(ta, first.body.refund.id, 'succeed')).status, 200)
  for (const outcome of ['succeed', 'fail'] as const) {
    const again = await settle(ta, first.body.refund.id, outcome)
    assert.equal(again.status, 400)
    assert.deepEqual(again.body, { error: 'refund is succeeded', code: 'refund_not_pending' })
  }

  const second = await refund(ta, { recordId: paid.record.id, amount: 100 })
  assert.equal((await settle(ta, second.body.refund.id, 'fail')).status, 200)
  const again = await settle(ta, second.body.refund.id, 'succeed')
  assert.equal(again.status, 400)
  assert.deepEqual(again.body, { error: 'refund is failed', code: 'refund_not_pending' })

  // The refusals changed nothing.
  const over = await refund(ta, { recordId: paid.record.id, amount: 901 })
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 900 })

  // A refund made synchronously (succeed behaviour) cannot be settled either.
  const sync = await paidSession(ta)
  const syncRefund = await refund(ta, { recordId: sync.record.id, amount: 100 })
  assert.equal(syncRefund.body.refund.status, 'succeeded')
  const late = await settle(ta, syncRefund.body.refund.id, 'fail')
  assert.equal(late.status, 400)
  assert.deepEqual(late.body, { error: 'refund is succeeded', code: 'refund_not_pending' })
})

test('the refund test helpers do not find refunds of another merchant or an unknown id', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const res = await refund(ta, { recordId: paid.record.id, amount: 100 })
  const other = await ta.newMerchant('Other')
  const foreign = await ta.request('POST', `/api/v1/test_helpers/refunds/${res.body.refund.id}/succeed`, { key: other.testKey })
  assert.equal(foreign.status, 404)
  assert.deepEqual(foreign.body, { error: 'Not found', code: 'not_found' })
  const unknown = await settle(ta, 'ref_000000000000000000000000', 'succeed')
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown.body, { error: 'Not found', code: 'not_found' })
  assert.equal((await refundRows(ta, paid.record.id))[0].status, 'pending')
})

test('a refund the provider refuses answers 200 with refund failed and the record unchanged', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'fail')
  const res = await refund(ta, { recordId: paid.record.id, amount: 300, reason: 'broken item' })
  assert.equal(res.status, 200)
  assert.equal(res.body.refund.status, 'failed')
  assert.equal(res.body.refund.amount, 300)
  assert.equal(res.body.refund.reason, 'broken item')
  assert.equal(res.body.status, 'paid')
  assert.equal(res.body.refundedAmount, 0)

  const s = await getSession(ta, paid.id)
  assert.equal(s.body.status, 'paid')
  assert.equal(s.body.record.status, 'paid')
  const over = await refund(ta, { recordId: paid.record.id, amount: 1001 })
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 1000 })
})

test('a pending refund counts against what can still be refunded', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY' }, 'pending')
  const first = await refund(ta, { recordId: paid.record.id, amount: 400 })
  assert.equal(first.body.refund.status, 'pending')

  const over = await refund(ta, { recordId: paid.record.id, amount: 601 })
  assert.equal(over.status, 400)
  assert.deepEqual(over.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 600 })

  const rest = await refund(ta, { recordId: paid.record.id })
  assert.equal(rest.status, 200)
  assert.equal(rest.body.refund.amount, 600)
  assert.equal(rest.body.status, 'refunding')

  const none = await refund(ta, { recordId: paid.record.id })
  assert.deepEqual(none.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 0 })

  // The record stays refunding while one refund is unsettled, then is recomputed.
  const one = await settle(ta, first.body.refund.id, 'succeed')
  assert.equal(one.body.status, 'refunding')
  assert.equal(one.body.refundedAmount, 400)
  const two = await settle(ta, rest.body.refund.id, 'succeed')
  assert.equal(two.body.status, 'refunded')
  assert.equal(two.body.refundedAmount, 1000)
  assert.equal((await getSession(ta, paid.id)).body.status, 'refunded')
})

test('twenty concurrent refunds of 100 on a payment of 1000: exactly ten go through', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${ta.baseUrl}/api/v1/refunds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ta.merchant.testKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ recordId: paid.record.id, amount: 100 }),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    ),
  )
  const ok = results.filter((r) => r.status === 200)
  const refused = results.filter((r) => r.status === 400)
  assert.equal(ok.length, 10, JSON.stringify(results.map((r) => r.status)))
  assert.equal(refused.length, 10)
  // Refused while others were reserved (amount_exceeds_refundable) or once all had succeeded (already_refunded).
  for (const r of refused) {
    assert.equal(r.body.error, 'amount exceeds refundable')
    assert.equal(r.body.refundable, 0)
    assert.ok(['amount_exceeds_refundable', 'already_refunded'].includes(r.body.code), r.body.code)
  }
  for (const r of ok) {
    assert.equal(r.body.refund.amount, 100)
    assert.equal(r.body.refund.status, 'succeeded')
  }
  assert.equal(new Set(ok.map((r) => r.body.refund.id)).size, 10)
  assert.deepEqual(ok.map((r) => r.body.refundedAmount).sort((a, b) => a - b), [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])

  const s = await getSession(ta, paid.id)
  assert.equal(s.body.status, 'refunded')
  const { rows: [record] } = await ta.database.pool.query('select refunded_amount, status from records where id = $1', [paid.record.id])
  assert.equal(record.refunded_amount, 1000)
  assert.equal(record.status, 'refunded')
  const rows = await refundRows(ta, paid.record.id)
  assert.equal(rows.length, 10)
  assert.ok(rows.every((r) => r.status === 'succeeded' && r.amount === 100))
})

test('every refund tells the merchant through an event carrying the amount and the order metadata', async (t) => {
  const ta = await startTestApp(t)
  const metadata = { orderId: 'order-77', customer: 'c-9' }
  const sync = await paidSession(ta, { amount: 1000, currency: 'CNY', metadata })
  const pending = await paidSession(ta, { amount: 2000, currency: 'USD', metadata }, 'pending')
  const failing = await paidSession(ta, { amount: 500, currency: 'EUR', metadata }, 'fail')

  const a = await refund(ta, { recordId: sync.record.id, amount: 250, reason: 'r1' })
  let evs = await eventsWhere(ta, 'refundId', a.body.refund.id)
  assert.deepEqual(evs.map((e) => e.type), ['refund.succeeded'])
  assert.deepEqual(evs[0].data, {
    refundId: a.body.refund.id,
    recordId: sync.record.id,
    sessionId: sync.id,
    amount: 250,
    refundedAmount: 250,
    recordStatus: 'partially_refunded',
    currency: 'CNY',
    status: 'succeeded',
    reason: 'r1',
    metadata,
  })
  assert.ok(Number.isInteger(evs[0].data.amount))

  const b = await refund(ta, { recordId: pending.record.id })
  evs = await eventsWhere(ta, 'refundId', b.body.refund.id)
  assert.deepEqual(evs.map((e) => e.type), ['refund.pending'])
  assert.equal(evs[0].data.amount, 2000)
  assert.ok(Number.isInteger(evs[0].data.amount))
  assert.deepEqual(evs[0].data.metadata, metadata)
  assert.equal(evs[0].data.refundedAmount, 0)
  assert.equal(evs[0].data.recordStatus, 'refunding')
  assert.equal(evs[0].data.status, 'pending')
  assert.equal(evs[0].data.reason, null)

  await settle(ta, b.body.refund.id, 'succeed')
  evs = await eventsWhere(ta, 'refundId', b.body.refund.id)
  assert.deepEqual(evs.map((e) => e.type).sort(), ['refund.pending', 'refund.succeeded'])
  const confirmed = evs.find((e) => e.type === 'refund.succeeded')!
  assert.equal(confirmed.data.amount, 2000)
  assert.equal(confirmed.data.refundedAmount, 2000)
  assert.equal(confirmed.data.recordStatus, 'refunded')
  assert.equal(confirmed.data.currency, 'USD')
  assert.deepEqual(confirmed.data.metadata, metadata)

  const c = await refund(ta, { recordId: failing.record.id, amount: 100 })
  evs = await eventsWhere(ta, 'refundId', c.body.refund.id)
  assert.deepEqual(evs.map((e) => e.type), ['refund.failed'])
  assert.equal(evs[0].data.amount, 100)
  assert.equal(evs[0].data.refundedAmount, 0)
  assert.equal(evs[0].data.recordStatus, 'paid')
  assert.equal(evs[0].data.status, 'failed')
  assert.deepEqual(evs[0].data.metadata, metadata)

  // A refused request writes no event.
  await refund(ta, { recordId: sync.record.id, amount: 5000 })
  const { rows } = await ta.database.pool.query("select count(*)::int as n from events where type like 'refund.%'")
  assert.equal(rows[0].n, 4)
})

test('a session created without metadata sends an empty metadata object in refund events', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const res = await refund(ta, { recordId: paid.record.id })
  const [ev] = await eventsWhere(ta, 'refundId', res.body.refund.id)
  assert.equal(ev.type, 'refund.succeeded')
  assert.deepEqual(ev.data.metadata, {})
  assert.equal(ev.data.refundedAmount, 1000)
  assert.equal(ev.data.recordStatus, 'refunded')
})
