/**
 * Creem refunds, adapter against fake: POST /v1/refunds (full only, pending until refund.created),
 * outcomes, the query through the transaction, dashboard refunds we did not start, and tax.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProviderError, type RefundFact } from '../../src/providers/types.js'
import { setup } from '../helpers/creem.js'

const refundInput = (ref: { attemptId: string; providerRef: string; data: Record<string, unknown> }, amount = 1234) =>
  ({ refundId: 'ref_ours', amount, totalAmount: 1234, currency: 'EUR' as const, reason: null, payment: ref, notifyUrl: 'https://till.example/hooks/creem/pc_test' })

const lastRefundFact = (s: Awaited<ReturnType<typeof setup>>) => s.rx.received.at(-1)!.result.facts[0] as RefundFact

test('a refund names the transaction, answers pending without an id, and refund.created reports it succeeded with its id', async (t) => {
  const s = await setup(t)
  const { a, ref } = await s.paid()
  const state = await s.provider.refund(s.cfg, refundInput(ref))
  assert.deepEqual(state, { status: 'pending', providerRefundRef: undefined })
  const [req] = (await s.ctl.requests()).filter((r) => r.path === '/v1/refunds')
  assert.deepEqual([req.status, req.body], [200, { status: 'pending' }])
  const queryRef = { refundId: 'ref_ours', providerRefundRef: null, amount: 1234, createdAt: s.clock(), payment: ref }
  // Creem cannot look the refund up: pending, never "not found" (which would send it again).
  assert.deepEqual(await s.provider.queryRefund(s.cfg, queryRef), { status: 'pending', providerRefundRef: undefined, currency: 'EUR' })
  await s.ctl.tick()
  const fact = lastRefundFact(s)
  assert.match(fact.providerRefundRef!, /^ref_[0-9A-Za-z]{22}$/)
  assert.deepEqual(fact, {
    kind: 'refund', providerRefundRef: fact.providerRefundRef, attemptId: a.attemptId, status: 'succeeded', amount: 1234, currency: 'EUR', matchUnanswered: true, reason: 'requested_by_customer',
  })
  assert.deepEqual(await s.provider.queryRefund(s.cfg, { ...queryRef, providerRefundRef: fact.providerRefundRef! }), { status: 'succeeded', providerRefundRef: fact.providerRefundRef, currency: 'EUR' })
  // Nothing is left: Creem refuses a second refund.
  await assert.rejects(s.provider.refund(s.cfg, refundInput(ref)), (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.message === 'Creem 400 Bad Request: Transaction has no refundable amount left')
})

test('without the transaction id at hand the adapter reads it from the checkout', async (t) => {
  const s = await setup(t)
  const { ref } = await s.paid()
  const state = await s.provider.refund(s.cfg, refundInput({ ...ref, data: { checkoutId: ref.data.checkoutId } }))
  assert.equal(state.status, 'pending')
  const paths = (await s.ctl.requests()).map((r) => `${r.method} ${r.path.split('?')[0]}`)
  assert.deepEqual(paths.slice(-2), ['GET /v1/checkouts', 'POST /v1/refunds'])
})

test('failed and canceled refunds are reported failed; a synchronous answer is final at once', async (t) => {
  const s = await setup(t)
  const one = await s.paid()
  await s.ctl.refundOutcome({ status: 'failed', delayMs: 60_000 })
  assert.equal((await s.provider.refund(s.cfg, refundInput(one.ref))).status, 'pending')
  await s.ctl.tick()
  assert.equal(s.rx.received.length, 1, 'nothing before the delay')
  s.clock.advance(60_000)
  await s.ctl.tick()
  assert.deepEqual([lastRefundFact(s).status, lastRefundFact(s).failureReason], ['failed', 'failed: the refund was failed by Creem'])
  // A failed refund gives the amount back: the transaction can be refunded again.
  await s.ctl.refundOutcome({ status: 'canceled', sync: true })
  const canceled = await s.provider.refund(s.cfg, refundInput(one.ref))
  assert.deepEqual([canceled.status, canceled.failureReason], ['failed', 'canceled: the refund was canceled by Creem'])
  await s.ctl.refundOutcome({ status: 'succeeded', sync: true })
  assert.equal((await s.provider.refund(s.cfg, refundInput(one.ref))).status, 'succeeded')
})

test('a refund made in the dashboard arrives as refund.created with no refund id of ours, partial or full', async (t) => {
  const s = await setup(t)
  const { a, ref } = await s.paid()
  await s.ctl.dashboardRefund(String(ref.data.transactionId), 500, 'duplicate')
  const first = lastRefundFact(s)
  assert.deepEqual({ ...first, providerRefundRef: undefined }, {
    kind: 'refund', providerRefundRef: undefined, attemptId: a.attemptId, status: 'succeeded', amount: 500, currency: 'EUR', matchUnanswered: true, reason: 'duplicate',
  })
  assert.equal(first.refundId, undefined)
  assert.equal((await s.ctl.transaction(String(ref.data.transactionId))).status, 'partialRefund')
  await s.ctl.dashboardRefund(String(ref.data.transactionId))
  assert.equal(lastRefundFact(s).amount, 734)
  assert.equal((await s.ctl.transaction(String(ref.data.transactionId))).status, 'refunded')
})

test('tax: an inclusive price keeps the amounts the session had; the checked amount is never amount_paid', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  await s.ctl.complete(made.providerRef!, { taxRate: 0.21 })
  const order = (await s.ctl.checkout(made.providerRef!)).order
  assert.deepEqual([order.sub_total, order.tax_amount, order.amount_paid], [1234, 214, 1234])
  const fact = s.rx.received.at(-1)!.result.facts[0]
  assert.equal(fact.kind === 'payment' && fact.amount, 1234)
})

test('a product with exclusive tax: Creem adds it, the fact still carries the pre-tax amount, and refunds convert back', async (t) => {
  const s = await setup(t)
  // A product made in the dashboard with exclusive tax, used for a checkout by hand.
  const res = await fetch(`${s.fake.url}/v1/products`, {
    method: 'POST', headers: { 'x-api-key': s.creds.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Monthly', price: 1000, currency: 'EUR', billing_type: 'onetime', tax_mode: 'exclusive' }),
  })
  const product = (await res.json()) as { id: string }
  await s.products.remember('pc_test', 100, 'EUR', product.id)
  const a = s.attempt({ amount: 1000 })
  const made = await s.provider.createAttempt(s.cfg, a)
  await s.ctl.complete(made.providerRef!, { taxRate: 0.21 })
  const paid = s.rx.received.at(-1)!.result.facts[0]
  assert.deepEqual(paid.kind === 'payment' && [paid.amount, paid.currency], [1000, 'EUR'])
  const transactionId = (await s.ctl.checkout(made.providerRef!)).order.transaction
  assert.deepEqual([(await s.ctl.transaction(transactionId)).amount_paid], [1210])
  await s.ctl.dashboardRefund(transactionId, 605)
  assert.equal(lastRefundFact(s).amount, 500)
  await s.ctl.dashboardRefund(transactionId)
  assert.equal(lastRefundFact(s).amount, 500)
})
