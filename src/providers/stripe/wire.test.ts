import assert from 'node:assert/strict'
import { test } from 'node:test'
import { balanceLine } from './statements.js'
import { errorFrom, expiresAtSec, formEncode, paymentState, refundFact, refundState } from './wire.js'

test('form encoding: nested objects and arrays with brackets, undefined left out', () => {
  assert.equal(decodeURIComponent(formEncode({ a: 1, b: { c: 'x y', d: undefined }, e: [{ f: 2 }] })), 'a=1&b[c]=x+y&e[0][f]=2')
})

test('expires_at: Till\'s expiry kept 31 min to 23 h 59 min ahead', () => {
  const now = new Date('2026-05-20T00:00:00Z')
  const s = now.getTime() / 1000
  assert.equal(expiresAtSec(new Date(now.getTime() + 60_000), now), s + 31 * 60)
  assert.equal(expiresAtSec(new Date(now.getTime() + 2 * 3600_000), now), s + 7200)
  assert.equal(expiresAtSec(new Date(now.getTime() + 48 * 3600_000), now), s + 24 * 3600 - 60)
})

test('a session\'s state: money only when complete and paid; expired closed; a canceled payment failed; the rest pending', () => {
  assert.deepEqual(paymentState({ id: 'cs_1', status: 'complete', payment_status: 'paid', amount_total: 1500, currency: 'jpy', payment_intent: 'pi_1' }), {
    status: 'succeeded', providerRef: 'pi_1', amount: 1500, currency: 'JPY', data: { checkoutSessionId: 'cs_1', paymentIntentId: 'pi_1' },
  })
  assert.deepEqual(paymentState({ status: 'complete', payment_status: 'unpaid', payment_intent: { id: 'pi_1', status: 'processing' } }), { status: 'pending' })
  assert.deepEqual(paymentState({ status: 'complete', payment_status: 'unpaid', payment_intent: { id: 'pi_1', status: 'canceled' } }), { status: 'failed' })
  assert.deepEqual(paymentState({ status: 'expired', payment_status: 'unpaid' }), { status: 'closed' })
  assert.deepEqual(paymentState({ status: 'open', payment_status: 'unpaid' }), { status: 'pending' })
})

test('refund states: each of Stripe\'s five mapped', () => {
  const st = (status: string) => refundState({ id: 're_1', status, currency: 'hkd', failure_reason: status === 'failed' ? 'lost_or_stolen_card' : null })
  assert.deepEqual(['pending', 'requires_action', 'succeeded', 'failed', 'canceled'].map((x) => st(x).status), ['pending', 'pending', 'succeeded', 'failed', 'failed'])
  assert.equal(st('failed').failureReason, 'failed: lost_or_stolen_card')
  assert.equal(st('succeeded').currency, 'HKD')
})

test('a refund fact names Till\'s refund and attempt from its metadata, or the attempt from its PaymentIntent\'s (a Dashboard refund)', () => {
  assert.deepEqual(refundFact({ id: 're_1', amount: 5, currency: 'usd', status: 'succeeded', metadata: { till_refund_id: 'rf_1', till_attempt_id: 'att_1' } }), {
    kind: 'refund', refundId: 'rf_1', providerRefundRef: 're_1', attemptId: 'att_1', status: 'succeeded', amount: 5, currency: 'USD',
  })
  const dashboard = refundFact({ id: 're_2', amount: 5, currency: 'usd', status: 'pending', metadata: {}, payment_intent: { id: 'pi_1', metadata: { till_attempt_id: 'att_1' } } })
  assert.deepEqual([dashboard.refundId, dashboard.attemptId, dashboard.status], [undefined, 'att_1', 'pending'])
})

test('errors: a 4xx is a refusal; 409, 429 and 5xx may have been acted on', () => {
  const e = errorFrom(400, { error: { type: 'invalid_request_error', code: 'amount_too_large', message: 'too much' } })
  assert.deepEqual([e.outcome, e.code, e.message], ['rejected', 'amount_too_large', 'Stripe 400 invalid_request_error (amount_too_large): too much'])
  assert.deepEqual([errorFrom(401, null).code, errorFrom(404, null).code], ['unauthorized', 'not_found'])
  assert.deepEqual([409, 429, 500, 503].map((s) => errorFrom(s, null).outcome), ['unknown', 'unknown', 'unknown', 'unknown'])
})

test('balance transactions: a charge is a payment line, a refund a refund line, in the source\'s currency, with the fee only when in that currency; others make no line', () => {
  const charge = { id: 'ch_1', object: 'charge', amount: 1234, currency: 'hkd', payment_intent: 'pi_1', metadata: { till_attempt_id: 'att_1' } }
  const pay = balanceLine({ id: 'txn_1', type: 'charge', amount: 1234, currency: 'hkd', fee: 44, created: 1_780_000_000, source: charge }, 'balance-1', 1)!
  assert.deepEqual({ ...pay, source: undefined }, { kind: 'payment', tillRef: 'att_1', providerRef: 'pi_1', status: 'succeeded', amount: 1234, currency: 'HKD', fee: 44, at: new Date(1_780_000_000_000), source: undefined })
  // Settled in USD: the amount is still the HKD the buyer paid, and the USD fee is left out.
  assert.deepEqual([balanceLine({ type: 'charge', amount: 158, currency: 'usd', fee: 10, created: 1, source: charge }, 'f', 2)!.amount, balanceLine({ type: 'charge', amount: 158, currency: 'usd', fee: 10, created: 1, source: charge }, 'f', 2)!.fee], [1234, null])
  const refund = balanceLine({ type: 'refund', amount: -234, currency: 'hkd', fee: 0, created: 1, source: { id: 're_1', object: 'refund', amount: 234, currency: 'hkd', status: 'succeeded', payment_intent: 'pi_1', metadata: { till_refund_id: 'rf_1', till_attempt_id: 'att_1' } } }, 'f', 3)!
  assert.deepEqual([refund.kind, refund.tillRef, refund.providerRef, refund.paymentTillRef, refund.paymentProviderRef, refund.amount, refund.status], ['refund', 'rf_1', 're_1', 'att_1', 'pi_1', 234, 'succeeded'])
  assert.equal(balanceLine({ type: 'payout', amount: -1000, currency: 'hkd', created: 1, source: 'po_1' }, 'f', 4), null)
  assert.throws(() => balanceLine({ type: 'charge', amount: 1, currency: 'hkd', created: 1, source: 'ch_1' }, 'f', 5), /expand/)
})
