/** WeChat Pay Global wire conversions, including the field readings docs/providers.md lists as unconfirmed. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AttemptInput } from '../types.js'
import { ProviderError } from '../types.js'
import { chargedOf, globalOrderRequest, globalPaymentFact, globalPaymentState, globalRefundFact, globalRefundState, rateText } from './global-wire.js'

const attempt = (over: Partial<AttemptInput> = {}): AttemptInput => ({
  attemptId: 'att_000000000000000000000001', sessionId: 'sess_1', amount: 1500, currency: 'JPY', description: 'Tea set', channel: 'native',
  notifyUrl: 'https://till.example.com/hooks/wechat/pc_1', returnUrl: 'https://till.example.com/c/sess_1/done', checkoutUrl: 'https://till.example.com/c/sess_1',
  expiresAt: new Date('2026-05-20T04:30:00.000Z'), options: {}, ...over,
})
const merchant = { mchId: '1900000109', appId: 'wx8888888888888888', merchantCategoryCode: '5999' }

test('the order: trade_type per channel, the MCC, and the amount in the listed currency\'s minor units (JPY: yen)', () => {
  assert.deepEqual(globalOrderRequest('native', merchant, ['JPY'], attempt()), {
    appid: 'wx8888888888888888', mchid: '1900000109', description: 'Tea set', out_trade_no: 'att_000000000000000000000001',
    time_expire: '2026-05-20T12:30:00+08:00', notify_url: 'https://till.example.com/hooks/wechat/pc_1',
    trade_type: 'NATIVE', merchant_category_code: '5999', amount: { total: 1500, currency: 'JPY' },
  })
  assert.deepEqual(globalOrderRequest('h5', merchant, ['JPY'], attempt({ clientIp: '203.0.113.9' })).scene_info, { payer_client_ip: '203.0.113.9' })
  assert.equal(globalOrderRequest('h5', merchant, ['JPY'], attempt({ clientIp: '203.0.113.9' })).trade_type, 'MWEB')
  assert.deepEqual(globalOrderRequest('jsapi', merchant, ['JPY'], attempt({ payerId: 'oX' })).payer, { openid: 'oX' })
  const refused = (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === 'unsupported_currency'
  assert.throws(() => globalOrderRequest('native', merchant, ['HKD'], attempt()), refused)
  assert.throws(() => globalOrderRequest('native', merchant, [], attempt()), refused)
})

test('charged: payer_total and the USERPAYMENT_RATE; a SETTLEMENT_RATE is not the customer\'s, and nothing when no conversion', () => {
  const amount = { total: 9900, currency: 'HKD', payer_total: 9108, payer_currency: 'CNY' }
  assert.deepEqual(chargedOf({ ...amount, exchange_rate: { type: 'USERPAYMENT_RATE', rate: 92000000 } }), { amount: 9108, currency: 'CNY', rate: '0.92' })
  assert.deepEqual(chargedOf({ ...amount, exchange_rate: { type: 'SETTLEMENT_RATE', rate: 100000000 } }), { amount: 9108, currency: 'CNY' })
  assert.deepEqual(chargedOf(amount), { amount: 9108, currency: 'CNY' })
  assert.equal(chargedOf({ total: 9900, currency: 'CNY', payer_total: 9900, payer_currency: 'CNY' }), undefined)
  assert.equal(chargedOf({ total: 9900, currency: 'HKD' }), undefined)
  assert.equal(chargedOf(undefined), undefined)
  assert.deepEqual([rateText(4812345), rateText(1234567890), rateText(1)], ['0.04812345', '12.3456789', '0.00000001'])
})

test('payments: the order number is read from id (or transaction_id); only a paid order carries the charge', () => {
  const paid = {
    out_trade_no: 'att_1', id: '4200000001', trade_state: 'SUCCESS', success_time: '2026-05-20T12:01:02+08:00',
    amount: { total: 1500, currency: 'JPY', payer_total: 7200, payer_currency: 'CNY', exchange_rate: { type: 'USERPAYMENT_RATE', rate: 4800000 } },
  }
  assert.deepEqual(globalPaymentFact(paid), {
    kind: 'payment', attemptId: 'att_1', status: 'succeeded', providerRef: '4200000001', amount: 1500, currency: 'JPY',
    paidAt: new Date('2026-05-20T04:01:02.000Z'), data: { charged: { amount: 7200, currency: 'CNY', rate: '0.048' } },
  })
  assert.equal(globalPaymentState({ ...paid, id: undefined, transaction_id: '4200000002' }).providerRef, '4200000002')
  assert.deepEqual(globalPaymentState({ out_trade_no: 'att_1', trade_state: 'NOTPAY', amount: { total: 1500, currency: 'JPY' } }), { status: 'pending' })
  assert.deepEqual(globalPaymentState({ trade_state: 'CLOSED' }), { status: 'closed' })
  assert.equal(globalPaymentFact({ out_trade_no: 'att_1', trade_state: 'PAYERROR' }).data, undefined)
})

test('refunds: REFUNDCLOSE is a failure, ABNORMAL stays pending, no status is pending; notification ids read either way', () => {
  assert.equal(globalRefundState('REFUNDCLOSE').status, 'failed')
  assert.equal(globalRefundState('ABNORMAL').status, 'pending')
  assert.deepEqual(globalRefundState(undefined, '5000001'), { status: 'pending', providerRefundRef: '5000001' })
  assert.deepEqual(globalRefundState('SUCCESS', '5000001'), { status: 'succeeded', providerRefundRef: '5000001' })
  assert.deepEqual(globalRefundState('SUCCESS', '5000001', 'JPY'), { status: 'succeeded', providerRefundRef: '5000001', currency: 'JPY' })
  const ours = 'ref_000000000000000000000001'
  // The listed currency as the notice names it; none named is none assumed.
  assert.deepEqual(globalRefundFact({ out_refund_no: ours, refund_id: '50001', out_trade_no: 'att_1', refund_status: 'SUCCESS', amount: { refund: 500, currency: 'JPY', payer_refund: 2400, payer_currency: 'CNY' } }),
    { kind: 'refund', refundId: ours, providerRefundRef: '50001', attemptId: 'att_1', status: 'succeeded', amount: 500, currency: 'JPY' })
  assert.equal(globalRefundFact({ out_refund_no: ours, refund_id: '50001', refund_status: 'SUCCESS', amount: { refund: 500 } }).currency, undefined)
  const byId = globalRefundFact({ out_refund_no: 'merchant-platform-7', id: '50002', out_trade_no: 'att_1', status: 'REFUNDCLOSE', amount: { refund: 200 } })
  assert.deepEqual([byId.refundId, byId.providerRefundRef, byId.status], [undefined, '50002', 'failed'])
})
