/**
 * Creem refunds end to end through Till: full refunds through the API (pending until refund.created),
 * partial refunds refused with the exact message, refunds made in Creem's dashboard recorded as
 * started by the provider, a notification racing the API's answer, lost answers and lost webhooks.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileRefunds } from '../../src/jobs/reconcile.js'
import { ProviderError } from '../../src/providers/types.js'
import { creemTill } from '../helpers/creem-till.js'
import { recordRow, refundRows } from '../helpers/store-queries.js'

test('a full refund is pending until refund.created, then the record and the session are refunded', async (t) => {
  const c = await creemTill(t)
  const { id, recordId, checkoutId } = await c.paid()
  const res = await c.refund(recordId)
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.deepEqual([res.body.status, res.body.refundedAmount, res.body.refund.status, res.body.refund.amount, res.body.refund.providerRef], ['refunding', 0, 'pending', 1234, null])
  const transaction = (await c.ctl.checkout(checkoutId)).order.transaction
  assert.deepEqual((await c.ctl.transaction(transaction)).refunds.map((r: { status: string }) => r.status), ['pending'])
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending'])

  await c.ctl.tick()
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.eventType, d.status]), [['checkout.completed', 200], ['refund.created', 200]])
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending', 'refund.succeeded'])
  const s = await c.read(id)
  assert.deepEqual([s.status, s.record.status, (await recordRow(c.ta, recordId)).refunded_amount], ['refunded', 'refunded', 1234])
  const [row] = await refundRows(c.ta, recordId)
  assert.deepEqual([row.status, row.initiated_by], ['succeeded', 'merchant'])
  // Creem's answer had no id: refund.created gave it.
  assert.equal(row.provider_ref, (await c.ctl.transaction(transaction)).refunds[0].id)
  // Nothing is left.
  const again = await c.refund(recordId)
  assert.deepEqual([again.status, again.body], [400, { error: 'amount exceeds refundable', code: 'already_refunded', refundable: 0, detail: 'the record is already refunded in full' }])
})

test('a partial refund is refused with the exact message, and nothing is reserved or sent', async (t) => {
  const c = await creemTill(t)
  const { recordId } = await c.paid()
  const res = await c.refund(recordId, 1000)
  assert.deepEqual([res.status, res.body], [400, { error: 'provider creem does not support partial refunds', code: 'partial_refund_unsupported' }])
  assert.deepEqual(await refundRows(c.ta, recordId), [])
  assert.equal((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').length, 0)
  // The full amount, named explicitly, is not partial.
  assert.equal((await c.refund(recordId, 1234)).body.refund.status, 'pending')
})

test('a refund Creem fails is failed with its reason, and the amount can be refunded again', async (t) => {
  const c = await creemTill(t)
  const { id, recordId } = await c.paid()
  await c.ctl.refundOutcome({ status: 'failed', delayMs: 1000 })
  const res = await c.refund(recordId)
  c.ta.clock.advance(1000)
  await c.ctl.tick()
  const [row] = await refundRows(c.ta, recordId)
  assert.deepEqual([row.status, row.failure_reason], ['failed', 'failed: the refund was failed by Creem'])
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending', 'refund.failed'])
  assert.equal((await c.read(id)).record.status, 'paid')
  assert.equal((await c.refund(recordId)).body.refund.amount, 1234)
})

test('refund.created racing the answer to our call settles our refund: no second refund appears', async (t) => {
  const c = await creemTill(t)
  const { recordId } = await c.paid()
  // Creem settles at once and its webhook reaches Till before the answer to POST /v1/refunds does.
  await c.ctl.refundOutcome({ status: 'succeeded', sync: true })
  const res = await c.refund(recordId)
  assert.deepEqual([res.body.status, res.body.refund.status], ['refunded', 'succeeded'])
  const rows = await refundRows(c.ta, recordId)
  assert.deepEqual(rows.map((r) => [r.id, r.initiated_by, r.status, r.amount]), [[res.body.refund.id, 'merchant', 'succeeded', 1234]])
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.succeeded'])
})

test('Creem answers `succeeded` without an id before refund.created: the webhook is the same refund, not a second one', async (t) => {
  const c = await creemTill(t)
  const { id, recordId } = await c.paid()
  await c.ctl.refundOutcome({ status: 'succeeded', sync: true })
  await c.ctl.notifications({ mode: 'delayed', delayMs: 1000 })
  const res = await c.refund(recordId)
  assert.deepEqual([res.body.status, res.body.refund.status, res.body.refund.providerRef], ['refunded', 'succeeded', null])
  c.ta.clock.advance(1000)
  await c.ctl.tick()
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.eventType, d.status]), [['checkout.completed', 200], ['refund.created', 200]])
  const rows = await refundRows(c.ta, recordId)
  assert.deepEqual(rows.map((r) => [r.id, r.initiated_by, r.status]), [[res.body.refund.id, 'merchant', 'succeeded']])
  assert.match(rows[0].provider_ref, /^ref_/)
  assert.equal((await recordRow(c.ta, recordId)).refunded_amount, 1234)
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.succeeded'])
  assert.equal((await c.read(id)).status, 'refunded')
})

test('the answer to our refund call is lost: refund.created finds our pending refund and settles it', async (t) => {
  const c = await creemTill(t)
  const { recordId } = await c.paid()
  await c.ctl.error({ route: 'refund', status: 502, applied: true })
  const res = await c.refund(recordId)
  assert.deepEqual([res.body.refund.status, res.body.refund.providerRef], ['pending', null])
  await c.ctl.tick()
  const rows = await refundRows(c.ta, recordId)
  assert.equal(rows.length, 1)
  assert.deepEqual([rows[0].status, rows[0].initiated_by], ['succeeded', 'merchant'])
  assert.match(rows[0].provider_ref, /^ref_/)
})

test('a lost answer and a lost webhook: reconciliation reads the transaction and settles the refund', async (t) => {
  const c = await creemTill(t)
  const { id, recordId } = await c.paid()
  await c.ctl.notifications({ mode: 'drop' })
  await c.ctl.error({ route: 'refund', status: 500, applied: true })
  const res = await c.refund(recordId)
  await c.ctl.tick()
  c.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(c.ta.deps), 1)
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending', 'refund.succeeded'])
  assert.equal((await c.read(id)).status, 'refunded')
  // Creem was asked once: the transaction showed the refund done, so it was not sent again.
  assert.equal((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').length, 1)
})

test('Creem answers a refund without its id: reconciliation sends nothing again, and refund.created settles it', async (t) => {
  const c = await creemTill(t)
  const { id, recordId } = await c.paid()
  await c.ctl.refundOutcome({ status: 'succeeded', delayMs: 120_000 })
  const res = await c.refund(recordId)
  // The SDK's RefundResponseEntity: `{status}` only.
  const [answer] = (await c.ctl.requests()).filter((r) => r.path === '/v1/refunds')
  assert.deepEqual(answer.body, { status: 'pending' })
  assert.deepEqual([res.body.refund.status, res.body.refund.providerRef], ['pending', null])
  for (const wait of [30_000, 60_000]) {
    c.ta.clock.advance(wait)
    assert.equal(await reconcileRefunds(c.ta.deps), 1)
  }
  assert.equal((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').length, 1)
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending'])
  c.ta.clock.advance(30_000)
  await c.ctl.tick()
  const [row] = await refundRows(c.ta, recordId)
  assert.deepEqual([row.id, row.status, row.initiated_by], [res.body.refund.id, 'succeeded', 'merchant'])
  assert.match(row.provider_ref, /^ref_/)
  assert.equal((await c.read(id)).status, 'refunded')
  assert.equal((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').length, 1)
})

test('reconciliation never sends again a refund the provider has answered, even when a lookup reports it not found', async (t) => {
  const c = await creemTill(t)
  const { recordId } = await c.paid()
  await c.ctl.refundOutcome({ status: 'succeeded', delayMs: 120_000 })
  const res = await c.refund(recordId)
  assert.equal(res.body.refund.status, 'pending')
  // A provider whose lookup cannot see a refund it is still processing.
  t.mock.method(c.ta.deps.providers.get('creem')!, 'queryRefund', async () => {
    throw new ProviderError('unknown', 'not_found', 'no such refund')
  })
  c.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(c.ta.deps), 1)
  assert.equal((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').length, 1)
  assert.deepEqual((await refundRows(c.ta, recordId)).map((r) => r.status), ['pending'])
})

test('a refund whose call Creem may not have received is never sent again; a dashboard refund of it settles it', async (t) => {
  const c = await creemTill(t)
  const { id, recordId, checkoutId } = await c.paid()
  await c.ctl.error({ route: 'refund', status: 503 })
  const res = await c.refund(recordId)
  assert.deepEqual([res.body.refund.status, res.body.refund.providerRef], ['pending', null])
  c.ta.clock.advance(30_000)
  assert.equal(await reconcileRefunds(c.ta.deps), 1)
  // A 503 may or may not have been acted on, and Creem cannot look a refund up: Till waits.
  assert.deepEqual((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').map((r) => r.status), [503])
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending'])
  // The operator refunds it in Creem's dashboard: its refund.created is taken by Till's pending refund.
  await c.ctl.dashboardRefund((await c.ctl.checkout(checkoutId)).order.transaction)
  assert.deepEqual((await refundRows(c.ta, recordId)).map((r) => [r.id, r.status]), [[res.body.refund.id, 'succeeded']])
  assert.equal((await c.read(id)).status, 'refunded')
})

test('a refund whose call and lookup both have no known outcome is never sent again, and stays pending', async (t) => {
  const c = await creemTill(t)
  const { recordId } = await c.paid()
  await c.ctl.error({ route: 'refund', status: 503 })
  const res = await c.refund(recordId)
  await c.ctl.error({ route: 'getTransaction', status: 503, times: 3 })
  for (let i = 0; i < 2; i++) {
    c.ta.clock.advance(3600_000)
    assert.equal(await reconcileRefunds(c.ta.deps), 1)
  }
  assert.deepEqual((await c.ctl.requests()).filter((r) => r.path === '/v1/refunds').map((r) => r.status), [503])
  assert.deepEqual((await refundRows(c.ta, recordId)).map((r) => [r.id, r.status]), [[res.body.refund.id, 'pending']])
})

test('a dropped refund.created: reconciliation settles the pending refund from the transaction', async (t) => {
  const c = await creemTill(t)
  const { recordId } = await c.paid()
  await c.ctl.notifications({ mode: 'drop' })
  const res = await c.refund(recordId)
  await c.ctl.tick()
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending'])
  c.ta.clock.advance(29_000)
  assert.equal(await reconcileRefunds(c.ta.deps), 0)
  c.ta.clock.advance(1_000)
  assert.equal(await reconcileRefunds(c.ta.deps), 1)
  assert.deepEqual(await c.types('refundId', res.body.refund.id), ['refund.pending', 'refund.succeeded'])
})

test('a refund made in Creem\'s dashboard is recorded as one Till did not start; the rest can then be refunded', async (t) => {
  const c = await creemTill(t)
  const { id, recordId, checkoutId } = await c.paid()
  const transaction = (await c.ctl.checkout(checkoutId)).order.transaction
  c.ta.clock.advance(1000)
  await c.ctl.dashboardRefund(transaction, 500, 'requested_by_customer')
  const [dash] = await refundRows(c.ta, recordId)
  assert.deepEqual([dash.initiated_by, dash.status, dash.amount, dash.reason, dash.idempotency_key], ['provider', 'succeeded', 500, 'requested_by_customer', null])
  assert.deepEqual(await c.types('refundId', dash.id), ['refund.succeeded'])
  const s = await c.read(id)
  assert.deepEqual([s.status, s.record.status, (await recordRow(c.ta, recordId)).refunded_amount], ['paid', 'partially_refunded', 500])
  // The same webhook again changes nothing.
  const events = await c.ctl.events()
  await c.ctl.resend(events.at(-1)!.id)
  assert.equal((await refundRows(c.ta, recordId)).length, 1)

  // Less than what is left would be partial; what is left is what Creem's API refunds.
  const partial = await c.refund(recordId, 100)
  assert.deepEqual([partial.status, partial.body], [400, { error: 'provider creem does not support partial refunds', code: 'partial_refund_unsupported' }])
  c.ta.clock.advance(1000)
  const rest = await c.refund(recordId)
  assert.equal(rest.body.refund.amount, 734)
  await c.ctl.tick()
  const after = await c.read(id)
  assert.deepEqual([after.status, after.record.status, (await recordRow(c.ta, recordId)).refunded_amount], ['refunded', 'refunded', 1234])
  assert.deepEqual((await refundRows(c.ta, recordId)).map((r) => [r.initiated_by, r.amount, r.status]), [['provider', 500, 'succeeded'], ['merchant', 734, 'succeeded']])
})

test('a full refund in the dashboard makes the session refunded', async (t) => {
  const c = await creemTill(t)
  const { id, recordId, checkoutId } = await c.paid()
  await c.ctl.dashboardRefund((await c.ctl.checkout(checkoutId)).order.transaction)
  const s = await c.read(id)
  assert.deepEqual([s.status, s.record.status, (await recordRow(c.ta, recordId)).refunded_amount], ['refunded', 'refunded', 1234])
})

test('tax is scaled cumulatively: on 1,000 charged 1,210, dashboard refunds of 2, 2 and 1,206 add up to exactly 1,000', async (t) => {
  const c = await creemTill(t)
  const id = await c.session({ amount: 1000 })
  const { attempt } = await c.start(id)
  // Creem adds 21 % on top (a product with exclusive tax): the customer pays 1,210.
  const checkout = c.fake.store.checkouts.get(attempt.providerRef!)!
  c.fake.store.products.get(checkout.productId)!.taxMode = 'exclusive'
  await c.ctl.complete(attempt.providerRef!, { taxRate: 0.21 })
  const { record } = await c.read(id)
  const transaction = (await c.ctl.checkout(attempt.providerRef!)).order.transaction
  assert.deepEqual([record.amount, (await c.ctl.transaction(transaction)).amount_paid], [1000, 1210])
  for (const amount of [2, 2, undefined]) {
    c.ta.clock.advance(1000)
    await c.ctl.dashboardRefund(transaction, amount)
  }
  // 2 of 1,210 is 1.65 of 1,000: each part is what the running total adds, so nothing is lost or made up.
  assert.deepEqual((await refundRows(c.ta, record.id)).map((r) => [r.initiated_by, r.amount, r.status]), [['provider', 2, 'succeeded'], ['provider', 1, 'succeeded'], ['provider', 997, 'succeeded']])
  const after = await c.read(id)
  assert.deepEqual([after.status, after.record.status, after.record.refundedAmount], ['refunded', 'refunded', 1000])
  assert.deepEqual((await c.ta.admin('GET', '/discrepancies')).body.data, [])
})
