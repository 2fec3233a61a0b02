import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AttemptInput } from '../types.js'
import { ProviderError } from '../types.js'
import { answerError, beijingTime, orderContent, orderSubject, parseBeijingTime, paymentFactFromNotice, paymentState } from './wire.js'

const attempt = (o: Partial<AttemptInput> = {}): AttemptInput => ({
  attemptId: 'att_AAAAAAAAAAAAAAAAAAAAAAAA', sessionId: 'sess_BBBBBBBBBBBBBBBBBBBBBBBB', amount: 8888, currency: 'CNY', description: 'Order #42',
  channel: 'precreate', notifyUrl: 'https://till.example/hooks/alipay/pc_1', returnUrl: 'https://till.example/c/sess_B/done', checkoutUrl: 'https://till.example/c/sess_B',
  expiresAt: new Date('2025-03-01T04:05:06.789Z'), options: {}, ...o,
})

test('times are Beijing time, whole seconds rounded down, and read back', () => {
  assert.equal(beijingTime(new Date('2025-03-01T16:05:06.999Z')), '2025-03-02 00:05:06')
  assert.equal(parseBeijingTime('2025-03-02 00:05:06')?.toISOString(), '2025-03-01T16:05:06.000Z')
  for (const bad of [undefined, '', '2025-03-02T00:05:06', '2025-13-02 00:05:06 ']) assert.equal(parseBeijingTime(bad), undefined)
})

test('the order: exact yuan, the channel\'s product code, the session\'s expiry as time_expire', () => {
  assert.deepEqual(orderContent('precreate', attempt()), {
    out_trade_no: 'att_AAAAAAAAAAAAAAAAAAAAAAAA', total_amount: '88.88', subject: 'Order #42', product_code: 'FACE_TO_FACE_PAYMENT', time_expire: '2025-03-01 12:05:06',
  })
  assert.equal(orderContent('page', attempt()).product_code, 'FAST_INSTANT_TRADE_PAY')
  assert.equal(orderContent('wap', attempt()).product_code, 'QUICK_WAP_WAY')
  assert.equal(orderContent('wap', attempt()).quit_url, 'https://till.example/c/sess_B')
  assert.equal(orderContent('page', attempt()).quit_url, undefined)
  // Amounts that floating point gets wrong: 0.1 + 0.2, 1.15 × 100, the largest amount.
  assert.equal(orderContent('page', attempt({ amount: 30 })).total_amount, '0.30')
  assert.equal(orderContent('page', attempt({ amount: 115 })).total_amount, '1.15')
  assert.equal(orderContent('page', attempt({ amount: 1 })).total_amount, '0.01')
  assert.equal(orderContent('page', attempt({ amount: 99_999_999 })).total_amount, '999999.99')
  const refused = (o: Partial<AttemptInput>, code: string) =>
    assert.throws(() => orderContent('precreate', attempt(o)), (e) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === code)
  refused({ currency: 'USD' }, 'unsupported_currency')
  refused({ attemptId: 'att-with-dash' }, 'invalid_out_trade_no')
})

test('the subject: no /, = or & (Alipay refuses them), at most 256 characters, a fallback naming the session', () => {
  assert.equal(orderSubject('A/B=C&D  e', 's'), 'A B C D e')
  assert.equal(orderSubject(null, 'sess_1'), 'Payment sess_1')
  assert.equal(orderSubject(' / ', 'sess_1'), 'Payment sess_1')
  assert.equal(Array.from(orderSubject('订'.repeat(300), 's')).length, 256)
})

test('trade_status: SUCCESS and FINISHED paid with the exact amount, CLOSED closed, the rest pending', () => {
  const paid = { trade_status: 'TRADE_SUCCESS', trade_no: '2025030122001', total_amount: '88.88', send_pay_date: '2025-03-01 12:00:00' }
  assert.deepEqual(paymentState(paid), { status: 'succeeded', providerRef: '2025030122001', amount: 8888, currency: 'CNY', paidAt: new Date('2025-03-01T04:00:00Z') })
  assert.equal(paymentState({ ...paid, trade_status: 'TRADE_FINISHED' }).status, 'succeeded')
  // An amount that is not exact yuan is unknown, which the core never takes as paid.
  assert.equal(paymentState({ ...paid, total_amount: '88.888' }).amount, undefined)
  assert.equal(paymentState({ ...paid, total_amount: '8.888e1' }).amount, undefined)
  assert.equal(paymentState({ ...paid, trans_currency: 'USD' }).currency, 'USD')
  assert.deepEqual(paymentState({ trade_status: 'TRADE_CLOSED' }), { status: 'closed' })
  assert.deepEqual(paymentState({ trade_status: 'WAIT_BUYER_PAY' }), { status: 'pending' })
  assert.deepEqual(paymentState({}), { status: 'pending' })
})

test('a notification is a payment only when it says TRADE_SUCCESS or TRADE_FINISHED', () => {
  const n = { notify_type: 'trade_status_sync', out_trade_no: 'att_1', trade_no: 'T1', trade_status: 'TRADE_SUCCESS', total_amount: '0.10', gmt_payment: '2025-03-01 12:00:01' }
  assert.deepEqual(paymentFactFromNotice(n), { kind: 'payment', attemptId: 'att_1', status: 'succeeded', providerRef: 'T1', amount: 10, currency: 'CNY', paidAt: new Date('2025-03-01T04:00:01Z') })
  assert.equal(paymentFactFromNotice({ ...n, trade_status: 'TRADE_FINISHED' })?.status, 'succeeded')
  for (const status of ['TRADE_CLOSED', 'WAIT_BUYER_PAY', undefined]) assert.equal(paymentFactFromNotice({ ...n, trade_status: status }), null)
  assert.equal(paymentFactFromNotice({ ...n, out_trade_no: undefined }), null)
})

test('answers: business refusals are rejected with Alipay\'s sub_code; unavailability and system errors are unknown', () => {
  const e = answerError('alipay.trade.refund', { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.SELLER_BALANCE_NOT_ENOUGH', sub_msg: '卖家余额不足' })
  assert.deepEqual([e.outcome, e.code, e.retryable], ['rejected', 'ACQ.SELLER_BALANCE_NOT_ENOUGH', false])
  assert.match(e.message, /alipay\.trade\.refund 40004 Business Failed: ACQ\.SELLER_BALANCE_NOT_ENOUGH 卖家余额不足/)
  assert.equal(answerError('m', { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-signature' }).outcome, 'rejected')
  for (const a of [{ code: '20000', msg: 'Service Currently Unavailable', sub_code: 'isp.unknow-error' }, { code: '40004', sub_code: 'ACQ.SYSTEM_ERROR' }, { code: '40004', sub_code: 'aop.ACQ.SYSTEM_ERROR' }, {}]) {
    assert.equal(answerError('m', a).outcome, 'unknown', JSON.stringify(a))
  }
})
