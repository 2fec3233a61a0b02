/**
 * Contract tests for WeChat Pay Global (cross-border): the adapter with a `service: cross_border`
 * configuration against the fake's /v3/global API over loopback. Prices listed in HKD or JPY, the
 * payer charged in CNY at the fake's rate, refunds in the listed currency.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProviderError, type PaymentFact, type RefundFact } from '../../src/providers/types.js'
import { rateText } from '../../src/providers/wechat/global-wire.js'
import { validateWechatSettings } from '../../src/providers/wechat/service.js'
import { setup } from '../helpers/wechat.js'

const isRejected = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === code
const facts = (s: Awaited<ReturnType<typeof setup>>) => s.rx.received.flatMap((r) => r.result.facts)

test('HKD by QR: the order lists HK$99.00 with trade_type and MCC; the payment says what the payer paid in CNY and the rate', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  await s.ctl.rates({ HKD: 0.9137 })
  const a = s.attempt({ currency: 'HKD', amount: 9900 })
  const res = await s.provider.createAttempt(s.cfg, a)
  assert.equal(res.action.kind, 'qr')
  assert.deepEqual((await s.ctl.requests()).map((r) => r.path), ['/v3/global/transactions/native'])
  const placed = s.fake.store.order(s.creds.mchId, a.attemptId)!
  assert.deepEqual([placed.tradeType, placed.currency, placed.total, placed.service], ['NATIVE', 'HKD', 9900, 'cross_border'])
  const order = await s.ctl.order(a.attemptId)
  assert.deepEqual(order.amount, { total: 9900, currency: 'HKD' })
  await s.ctl.pay({ out_trade_no: a.attemptId })
  const [fact] = facts(s) as PaymentFact[]
  const paid = await s.ctl.order(a.attemptId)
  // 99.00 × 0.9137 = 90.4563 CNY, rounded to the fen.
  assert.deepEqual(paid.amount, { total: 9900, currency: 'HKD', payer_total: 9046, payer_currency: 'CNY', exchange_rate: { type: 'USERPAYMENT_RATE', rate: 91370000 } })
  assert.deepEqual(
    { ...fact, paidAt: undefined },
    { kind: 'payment', attemptId: a.attemptId, status: 'succeeded', providerRef: paid.id, amount: 9900, currency: 'HKD', paidAt: undefined, data: { charged: { amount: 9046, currency: 'CNY', rate: '0.9137' } } },
  )
  assert.match(paid.id, /^42\d{26}$/)
  assert.equal(paid.transaction_id, undefined, 'the global API names the order number id')
  // Reconciliation reads the same from the query.
  const state = await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: null, data: {} })
  assert.deepEqual(state.data, { charged: { amount: 9046, currency: 'CNY', rate: '0.9137' } })
  assert.equal(state.providerRef, paid.id)
})

test('JPY is zero-decimal: ¥1,500 is total 1500, a ¥500 refund is 500, and the rest stays refundable', async (t) => {
  const s = await setup(t, { crossBorder: 'JPY' })
  const a = await s.paid({ currency: 'JPY', amount: 1500 })
  const paid = await s.ctl.order(a.attemptId)
  assert.deepEqual(paid.amount, { total: 1500, currency: 'JPY', payer_total: 7200, payer_currency: 'CNY', exchange_rate: { type: 'USERPAYMENT_RATE', rate: 4800000 } })
  const refundInput = (refundId: string, amount: number) => ({
    refundId, amount, totalAmount: 1500, currency: 'JPY' as const, reason: 'size', notifyUrl: s.rx.url,
    payment: { attemptId: a.attemptId, providerRef: paid.id, data: {} },
  })
  const first = await s.provider.refund(s.cfg, refundInput('ref_000000000000000000000001', 500))
  assert.equal(first.status, 'pending', 'the documented create answer has no status: accepted, result to follow')
  assert.match(first.providerRefundRef!, /^50\d{27}$/)
  await s.fake.runDue()
  const refund = await s.ctl.refund('ref_000000000000000000000001')
  assert.deepEqual([refund.status, refund.amount.refund, refund.amount.currency, refund.amount.payer_refund], ['SUCCESS', 500, 'JPY', 2400])
  const notified = facts(s).filter((f) => f.kind === 'refund') as RefundFact[]
  assert.deepEqual(notified.map((f) => [f.refundId, f.status, f.amount, f.currency, f.providerRefundRef]), [['ref_000000000000000000000001', 'succeeded', 500, 'JPY', first.providerRefundRef]])
  assert.deepEqual(await s.provider.queryRefund(s.cfg, { refundId: 'ref_000000000000000000000001', providerRefundRef: null, amount: 500, createdAt: s.clock(), payment: refundInput('x', 1).payment }), { status: 'succeeded', providerRefundRef: first.providerRefundRef, currency: 'JPY' })
  // ¥1,001 more would exceed ¥1,500: WeChat refuses, definitively.
  await assert.rejects(s.provider.refund(s.cfg, refundInput('ref_000000000000000000000002', 1001)), isRejected('INVALID_REQUEST'))
  await s.ctl.refundOutcome({ status: 'CLOSED' })
  await s.provider.refund(s.cfg, refundInput('ref_000000000000000000000003', 1000))
  await s.fake.runDue()
  assert.equal((await s.ctl.refund('ref_000000000000000000000003')).status, 'REFUNDCLOSE')
  const closed = await s.provider.queryRefund(s.cfg, { refundId: 'ref_000000000000000000000003', providerRefundRef: null, amount: 1000, createdAt: s.clock(), payment: refundInput('x', 1).payment })
  assert.equal(closed.status, 'failed')
  assert.equal((facts(s).at(-1) as RefundFact).status, 'failed')
  assert.deepEqual((await s.ctl.requests()).filter((r) => r.method === 'POST').map((r) => r.path), ['/v3/global/transactions/native', '/v3/global/refunds', '/v3/global/refunds', '/v3/global/refunds'])
})

test('H5 goes to mweb_url with our return address; JSAPI gets a prepay_id and a paySign the bridge accepts', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  const h5 = s.attempt({ currency: 'HKD', channel: 'h5', clientIp: '203.0.113.9' })
  const res = await s.provider.createAttempt(s.cfg, h5)
  assert.equal(res.action.kind, 'redirect')
  const url = (res.action as { url: string }).url
  assert.ok(url.startsWith(`${s.fake.url}/__fake/h5/checkmweb?prepay_id=`))
  assert.ok(url.endsWith(`&redirect_url=${encodeURIComponent(h5.returnUrl)}`))
  assert.match(await (await fetch(url)).text(), /HKD 99\.00/)
  const js = s.attempt({ currency: 'HKD', channel: 'jsapi', payerId: 'oPayer123' })
  const jsRes = await s.provider.createAttempt(s.cfg, js)
  assert.equal(jsRes.action.kind, 'in_app')
  assert.deepEqual(await s.ctl.jsapiCheck((jsRes.action as { params: Record<string, string> }).params, true), { ok: true, err_msg: 'get_brand_wcpay_request:ok' })
  assert.equal((facts(s)[0] as PaymentFact).status, 'succeeded')
  assert.deepEqual((await s.ctl.requests()).map((r) => r.path), ['/v3/global/transactions/mweb', '/v3/global/transactions/jsapi'])
})

test('a currency the configuration cannot list is refused before any call; the fake refuses a currency other than the settlement one', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ currency: 'JPY', amount: 1500 })), isRejected('unsupported_currency'))
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ currency: 'CNY' })), isRejected('unsupported_currency'))
  assert.deepEqual(await s.ctl.requests(), [])
  // A configuration claiming JPY for an HKD merchant: WeChat refuses the order.
  const wrong = { ...s.cfg, settings: { ...s.cfg.settings, settlementCurrency: 'JPY' } }
  await assert.rejects(s.provider.createAttempt(wrong, s.attempt({ currency: 'JPY', amount: 1500 })), isRejected('PARAM_ERROR'))
})

test('a mainland configuration of a cross-border merchant is refused by WeChat, and the other way round', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  const asMainland = { ...s.cfg, settings: { apiBase: s.fake.url } }
  await assert.rejects(s.provider.createAttempt(asMainland, s.attempt()), isRejected('INVALID_REQUEST'))
  const m = await setup(t)
  const asGlobal = { ...m.cfg, settings: { ...m.cfg.settings, service: 'cross_border', settlementCurrency: 'HKD', merchantCategoryCode: '5999' } }
  await assert.rejects(m.provider.createAttempt(asGlobal, m.attempt({ currency: 'HKD' })), isRejected('NO_AUTH'))
})

test('notifications: a probe is refused, the genuine one accepted; close answers 204, and a paid order closes as already paid with its charge', async (t) => {
  const s = await setup(t, { crossBorder: 'HKD' })
  await s.ctl.probe()
  const a = await s.paid({ currency: 'HKD' })
  assert.deepEqual((await s.ctl.deliveries()).map((d) => [d.probe, d.status]), [[true, 401], [false, 204]])
  const open = s.attempt({ currency: 'HKD' })
  await s.provider.createAttempt(s.cfg, open)
  assert.deepEqual(await s.provider.closePayment(s.cfg, { attemptId: open.attemptId, providerRef: null, data: {} }), { closed: true })
  assert.equal((await s.ctl.order(open.attemptId)).trade_state, 'CLOSED')
  const late = s.attempt({ currency: 'HKD' })
  await s.provider.createAttempt(s.cfg, late)
  await s.ctl.pay({ out_trade_no: late.attemptId }, { at: 'close' })
  const res = await s.provider.closePayment(s.cfg, { attemptId: late.attemptId, providerRef: null, data: {} })
  assert.ok('alreadyPaid' in res)
  assert.deepEqual(res.alreadyPaid.data, { charged: { amount: 9108, currency: 'CNY', rate: '0.92' } })
  assert.equal(a.currency, 'HKD')
})

test('platform-certificate mode reads the certificates from /v3/global/certificates', async (t) => {
  const s = await setup(t, { crossBorder: 'USD', mode: 'platformCert' })
  await s.paid({ currency: 'USD', amount: 1250 })
  const paths = (await s.ctl.requests()).map((r) => r.path)
  assert.ok(paths.includes('/v3/global/certificates'), paths.join(' '))
  assert.equal((facts(s)[0] as PaymentFact).currency, 'USD')
})

test('settings: the service decides; cross-border needs its settlement currency and MCC; rates read as decimals', () => {
  validateWechatSettings({}, false)
  validateWechatSettings({ service: 'mainland' }, false)
  validateWechatSettings({ service: 'cross_border', settlementCurrency: 'JPY', merchantCategoryCode: '5999' }, false)
  const bad = (s: Record<string, unknown>, field: string) => assert.throws(() => validateWechatSettings(s, false), (e: Error & { field?: string }) => e.message.includes(field))
  bad({ service: 'global' }, 'settings.service')
  bad({ service: 'cross_border', merchantCategoryCode: '5999' }, 'settings.settlementCurrency')
  bad({ service: 'cross_border', settlementCurrency: 'CNY', merchantCategoryCode: '5999' }, 'settings.settlementCurrency')
  bad({ service: 'cross_border', settlementCurrency: 'HKD' }, 'settings.merchantCategoryCode')
  bad({ settlementCurrency: 'HKD' }, 'settings.settlementCurrency')
  bad({ service: 'cross_border', settlementCurrency: 'HKD', merchantCategoryCode: '5999', subMchId: '1' }, 'settings.subMchId')
  assert.deepEqual([rateText(92000000), rateText(4800000), rateText(720000000), rateText(100000000)], ['0.92', '0.048', '7.2', '1'])
})
