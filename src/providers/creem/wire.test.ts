/** wire.ts: Creem's shapes into Till's facts, table by table. Pure, no I/O. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AttemptInput } from '../types.js'
import { ProviderError } from '../types.js'
import {
  checkoutRequest, creemTime, errorFrom, idOf, orderAmount, paymentFact, paymentState, productRequest, refundFact, refundState,
  refundStateFromTransaction, tillRefundAmount, type Refund,
} from './wire.js'

test('one product per currency, one-time and tax inclusive; each checkout sets its amount with custom_price', () => {
  assert.deepEqual(productRequest('EUR'), {
    name: 'Payment', description: 'A one-time payment through Till; each checkout sets its amount', price: 100, currency: 'EUR', billing_type: 'onetime', tax_mode: 'inclusive',
  })
  assert.throws(() => productRequest('JPY'), (e: unknown) => e instanceof ProviderError && e.code === 'unsupported_currency')
})

test('the checkout names the product, the amount as custom_price, our attempt as request_id, and the relay without a query of our own', () => {
  const a = { attemptId: 'att_1', sessionId: 'sess_1', returnUrl: 'https://till.example/c/sess_1/done', amount: 1234, currency: 'EUR' } as AttemptInput
  assert.deepEqual(checkoutRequest(a, 'prod_9'), {
    product_id: 'prod_9', request_id: 'att_1', custom_price: 1234, success_url: 'https://till.example/c/sess_1/done', metadata: { sessionId: 'sess_1', attemptId: 'att_1' },
  })
  for (const [amount, currency, code] of [[99, 'EUR', 'amount_below_minimum'], [100_000_000, 'USD', 'amount_above_maximum'], [1000, 'CNY', 'unsupported_currency'], [1000, 'JPY', 'unsupported_currency']] as const) {
    assert.throws(() => checkoutRequest({ ...a, amount, currency }, 'prod_9'), (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === code)
  }
})

const paidOrder = { id: 'ord_1', amount: 1000, sub_total: 1000, tax_amount: 210, amount_paid: 1210, currency: 'EUR', status: 'paid', transaction: 'tran_1', created_at: '2026-05-20T04:00:00.000Z' }

test('checkout status to attempt status: completed and paid is money, expired is closed, the rest pending', () => {
  const rows: Array<[string, object, object]> = [
    ['completed, paid order', { id: 'ch_1', status: 'completed', order: paidOrder }, { status: 'succeeded', providerRef: 'ord_1', amount: 1000, currency: 'EUR', paidAt: new Date('2026-05-20T04:00:00.000Z') }],
    ['completed, order unpaid', { id: 'ch_1', status: 'completed', order: { ...paidOrder, status: 'pending' } }, { status: 'pending' }],
    ['expired', { id: 'ch_1', status: 'expired' }, { status: 'closed' }],
    ['pending', { id: 'ch_1', status: 'pending' }, { status: 'pending' }],
    ['processing', { id: 'ch_1', status: 'processing' }, { status: 'pending' }],
    ['something new', { id: 'ch_1', status: 'on_hold' }, { status: 'pending' }],
  ]
  for (const [name, checkout, expected] of rows) assert.deepEqual(paymentState(checkout), expected, name)
})

test('the amount checked is before tax and after discounts, never amount_paid', () => {
  assert.equal(orderAmount({ sub_total: 1000, amount: 1000, amount_paid: 1210 }), 1000)
  assert.equal(orderAmount({ sub_total: 1000, discount_amount: 200, amount: 800 }), 800)
  assert.equal(orderAmount({ amount: 1000 }), 1000)
})

test('checkout.completed as a fact: attempt from request_id, order id as reference, transaction id kept for refunds', () => {
  assert.deepEqual(paymentFact({ id: 'ch_1', status: 'completed', request_id: 'att_1', order: paidOrder }), {
    kind: 'payment', attemptId: 'att_1', status: 'succeeded', providerRef: 'ord_1', amount: 1000, currency: 'EUR',
    paidAt: new Date('2026-05-20T04:00:00.000Z'), data: { checkoutId: 'ch_1', orderId: 'ord_1', transactionId: 'tran_1' },
  })
  // Ids may come expanded (§2.8 C4).
  const expanded = paymentFact({ id: 'ch_1', status: 'completed', request_id: 'att_1', order: { ...paidOrder, transaction: { id: 'tran_2' } } })
  assert.deepEqual(expanded.data, { checkoutId: 'ch_1', orderId: 'ord_1', transactionId: 'tran_2' })
  assert.equal(paymentFact({ id: 'ch_1', status: 'completed', order: paidOrder }).attemptId, '')
})

test('refund status to Till: pending and requiresAction wait, failed and canceled give the amount back', () => {
  assert.deepEqual(refundState('succeeded', 'ref_1'), { status: 'succeeded', providerRefundRef: 'ref_1' })
  assert.deepEqual(refundState('pending', 'ref_1'), { status: 'pending', providerRefundRef: 'ref_1' })
  assert.deepEqual(refundState('requiresAction', 'ref_1'), { status: 'pending', providerRefundRef: 'ref_1' })
  assert.deepEqual(refundState('failed', 'ref_1'), { status: 'failed', providerRefundRef: 'ref_1', failureReason: 'failed: the refund was failed by Creem' })
  assert.deepEqual(refundState('canceled', 'ref_1'), { status: 'failed', providerRefundRef: 'ref_1', failureReason: 'canceled: the refund was canceled by Creem' })
  assert.deepEqual(refundState(undefined), { status: 'pending', providerRefundRef: undefined })
})

const refundOf = (refund_amount: number, t: { amount: number; amount_paid: number; refunded_amount?: number }): Refund => ({ id: 'ref_1', status: 'succeeded', refund_amount, transaction: { id: 'tran_1', ...t } })

test("Creem's tax-inclusive refund amounts in Till's terms, adding up exactly to the payment", () => {
  assert.equal(tillRefundAmount(refundOf(1000, { amount: 1000, amount_paid: 1000, refunded_amount: 1000 })), 1000)
  // The docs' sample: 1210 refunded on 1000 plus 210 tax.
  assert.equal(tillRefundAmount(refundOf(1210, { amount: 1000, amount_paid: 1210, refunded_amount: 1210 })), 1000)
  // Three dashboard refunds of 333 + 333 + 544 on 1210: Till's parts add up to 1000.
  const parts = [[333, 333], [333, 666], [544, 1210]].map(([r, after]) => tillRefundAmount(refundOf(r, { amount: 1000, amount_paid: 1210, refunded_amount: after }))!)
  assert.deepEqual(parts, [275, 275, 450])
  assert.equal(parts.reduce((s, x) => s + x, 0), 1000)
  // 2, 2 and 1206 of 1210: scaled one by one they would make 2 + 2 + 997 = 1001.
  const small = [[2, 2], [2, 4], [1206, 1210]].map(([r, after]) => tillRefundAmount(refundOf(r, { amount: 1000, amount_paid: 1210, refunded_amount: after }))!)
  assert.deepEqual(small, [2, 1, 997])
  // A transaction snapshot taken before this refund counted: scaled on its own.
  assert.equal(tillRefundAmount(refundOf(605, { amount: 1000, amount_paid: 1210, refunded_amount: 0 })), 500)
  assert.equal(tillRefundAmount({ id: 'ref_1', refund_amount: 700 }), 700)
  assert.equal(tillRefundAmount({ id: 'ref_1' }), undefined)
})

test('refund.created as a fact: Creem\'s refund id, our attempt from the checkout, no refund id of ours', () => {
  const sample: Refund = {
    id: 'ref_3DB9NQFvk18TJwSqd0N6bd', status: 'succeeded', refund_amount: 1210, refund_currency: 'EUR', reason: 'requested_by_customer',
    transaction: { id: 'tran_5yMaWzAl3jxuGJMCOrYWwk', amount: 1000, amount_paid: 1210, status: 'refunded', refunded_amount: 1210 },
    checkout: { id: 'ch_4l0N34kxo16AhRKUHFUuXr', request_id: 'my-request-id' }, created_at: 1728734351525,
  }
  assert.deepEqual(refundFact(sample), {
    kind: 'refund', providerRefundRef: 'ref_3DB9NQFvk18TJwSqd0N6bd', attemptId: 'my-request-id', status: 'succeeded', amount: 1000, currency: 'EUR',
    matchUnanswered: true, reason: 'requested_by_customer',
  })
  assert.equal(refundFact({ ...sample, checkout: 'ch_4l0N34kxo16AhRKUHFUuXr' }).attemptId, undefined)
})

test('a refund of ours read from its transaction: refunded is done; anything else is pending, never not found', () => {
  assert.deepEqual(refundStateFromTransaction({ status: 'refunded', refunded_amount: 1000 }, 'ref_1'), { status: 'succeeded', providerRefundRef: 'ref_1' })
  // The transaction's currency rides along, for the core to check against the record's.
  assert.deepEqual(refundStateFromTransaction({ status: 'refunded', refunded_amount: 1000, currency: 'USD' }, 'ref_1'), { status: 'succeeded', providerRefundRef: 'ref_1', currency: 'USD' })
  assert.deepEqual(refundStateFromTransaction({ status: 'refunded', refunded_amount: 1000 }, null), { status: 'succeeded', providerRefundRef: undefined })
  assert.deepEqual(refundStateFromTransaction({ status: 'paid', refunded_amount: 0 }, 'ref_1'), { status: 'pending', providerRefundRef: 'ref_1' })
  assert.deepEqual(refundStateFromTransaction({ status: 'partialRefund', refunded_amount: 300 }, 'ref_1'), { status: 'pending', providerRefundRef: 'ref_1' })
  // A refund Creem is processing looks like one it never received, and asking again could refund twice.
  assert.deepEqual(refundStateFromTransaction({ status: 'paid', refunded_amount: 0 }, null), { status: 'pending', providerRefundRef: undefined })
  assert.deepEqual(refundStateFromTransaction({ status: 'partialRefund', refunded_amount: 300 }, null), { status: 'pending', providerRefundRef: undefined })
})

test('errors: 4xx is a refusal (401/403 unauthorized, 404 not_found), 429 and 5xx are unknown outcomes', () => {
  const rows: Array<[number, object | null, string, string, string]> = [
    [400, { status: 400, error: 'Bad Request', message: ['price must be an integer', 'currency must be EUR'] }, 'rejected', 'HTTP_400', 'Creem 400 Bad Request: price must be an integer; currency must be EUR'],
    [403, { status: 403, error: 'Forbidden' }, 'rejected', 'unauthorized', 'Creem 403 Forbidden'],
    [401, null, 'rejected', 'unauthorized', 'Creem 401'],
    [404, { error: 'Not Found', message: ['Product not found'] }, 'rejected', 'not_found', 'Creem 404 Not Found: Product not found'],
    [429, { error: 'Too Many Requests' }, 'unknown', 'HTTP_429', 'Creem 429 Too Many Requests'],
    [502, null, 'unknown', 'HTTP_502', 'Creem 502'],
  ]
  for (const [status, body, outcome, code, message] of rows) {
    const e = errorFrom(status, body)
    assert.deepEqual([e.outcome, e.code, e.message, e.retryable], [outcome, code, message, outcome === 'unknown'], String(status))
  }
})

test('mixed time formats and ids that may be objects', () => {
  assert.equal(creemTime(1728734351525)?.toISOString(), '2024-10-12T11:59:11.525Z')
  assert.equal(creemTime('2024-10-12T11:58:33.097Z')?.toISOString(), '2024-10-12T11:58:33.097Z')
  assert.equal(creemTime('not a time'), undefined)
  assert.deepEqual([idOf('ord_1'), idOf({ id: 'ord_2' }), idOf(null), idOf(undefined)], ['ord_1', 'ord_2', undefined, undefined])
})
