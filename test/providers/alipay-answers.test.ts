/**
 * Alipay's answers are believed only for the bytes the signature covers and only about what was
 * asked: a man in the middle between the adapter (or Till) and `till fake alipay` appends a second
 * `…_response`, wraps a genuine copy, replays another call's signed answer or forges a refusal.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { responseParts } from '../../src/providers/alipay/sign.js'
import { ProviderError, type ProviderConfig } from '../../src/providers/types.js'
import { alipayAdapter, alipayTill } from '../helpers/alipay-till.js'
import { alipayMitm, appendMember } from '../helpers/alipay-mitm.js'

const QUERY = 'alipay.trade.query'
const REFUND = 'alipay.trade.refund'
const REFUND_QUERY = 'alipay.trade.fastpay.refund.query'
const isError = (outcome: 'rejected' | 'unknown', code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === outcome && e.code === code
const ref = (attemptId: string) => ({ attemptId, providerRef: null, data: {} })
const refundInput = (refundId: string, attemptId: string, amount: number) => ({
  refundId, amount, totalAmount: 8888, currency: 'CNY' as const, reason: null, payment: ref(attemptId), notifyUrl: 'http://127.0.0.1:9/unused',
})
const refundRef = (refundId: string, attemptId: string, amount: number, createdAt: Date) => ({ refundId, providerRefundRef: null, amount, createdAt, payment: ref(attemptId) })
/** What a forger would write: Alipay's success, paid in full. */
const forgedPaid = (outTradeNo: string) => ({ code: '10000', msg: 'Success', out_trade_no: outTradeNo, trade_no: '2026052022001400000000000001', trade_status: 'TRADE_SUCCESS', total_amount: '88.88' })

/** The adapter against the fake through the man in the middle (`via`), and straight (`s.cfg`). */
async function throughMitm(t: Parameters<typeof alipayAdapter>[0]) {
  const s = await alipayAdapter(t)
  const mitm = await alipayMitm(t)
  mitm.target(s.fake.url)
  const via: ProviderConfig = { ...s.cfg, settings: { apiBase: mitm.url } }
  return { ...s, mitm, via }
}

test('the answer is the signed text: a second …_response appended after it is not read', async (t) => {
  const s = await throughMitm(t)
  const a = s.attempt()
  await s.provider.createAttempt(s.via, a)
  // Never scanned: Alipay's signed ACQ.TRADE_NOT_EXIST, then a forged success under the same key.
  s.mitm.on(QUERY, (text) => appendMember(text, 'alipay_trade_query_response', forgedPaid(a.attemptId)))
  assert.deepEqual(await s.provider.queryPayment(s.via, ref(a.attemptId)), { status: 'pending' })
})

test('the signed …_response is the top-level one: a genuine copy nested elsewhere does not vouch for a forged answer', async (t) => {
  const s = await throughMitm(t)
  const a = s.attempt()
  await s.provider.createAttempt(s.via, a)
  s.mitm.on(QUERY, (text) => {
    const genuine = responseParts(text, QUERY)!
    return `{"wrapper":{"alipay_trade_query_response":${genuine.text}},"alipay_trade_query_response":${JSON.stringify(forgedPaid(a.attemptId))},"sign":"${genuine.sign}"}`
  })
  await assert.rejects(s.provider.queryPayment(s.via, ref(a.attemptId)), isError('unknown', 'invalid_response_signature'))
  // A genuine top-level answer behind an unsigned nested copy is read as Alipay sent it.
  s.mitm.on(QUERY, (text) => `{"wrapper":{"alipay_trade_query_response":{"code":"10000","trade_status":"TRADE_SUCCESS"}},${text.trimStart().slice(1)}`)
  assert.deepEqual(await s.provider.queryPayment(s.via, ref(a.attemptId)), { status: 'pending' })
})

test('a signed answer about another trade is unknown, for the query, the order, the close and the refund', async (t) => {
  const s = await throughMitm(t)
  // Another trade of the same amount, paid, asked about and refunded through the man in the middle.
  const other = s.attempt()
  await s.provider.createAttempt(s.via, other)
  await s.ctl.pay({ out_trade_no: other.attemptId })
  await s.provider.queryPayment(s.via, ref(other.attemptId))
  await s.provider.refund(s.via, refundInput('ref_OTHER000000000000000001', other.attemptId, 100))
  const replay = (method: string) => s.mitm.on(method, () => s.mitm.answerTo(method, other.attemptId))

  const a = s.attempt()
  replay('alipay.trade.precreate')
  await assert.rejects(s.provider.createAttempt(s.via, a), isError('unknown', 'answer_mismatch'))
  s.mitm.rewrite(null)
  await s.provider.createAttempt(s.via, a)
  replay(QUERY)
  await assert.rejects(s.provider.queryPayment(s.via, ref(a.attemptId)), isError('unknown', 'answer_mismatch'))
  // The case: the other trade's signed answer, then a forged one about this trade.
  s.mitm.on(QUERY, () => appendMember(s.mitm.answerTo(QUERY, other.attemptId), 'alipay_trade_query_response', forgedPaid(a.attemptId)))
  await assert.rejects(s.provider.queryPayment(s.via, ref(a.attemptId)), isError('unknown', 'answer_mismatch'))

  // A close answered with another trade's close: not closed.
  const closing = s.attempt()
  await s.provider.createAttempt(s.cfg, closing)
  await s.ctl.scan({ out_trade_no: closing.attemptId })
  const spare = s.attempt()
  await s.provider.createAttempt(s.cfg, spare)
  await s.ctl.scan({ out_trade_no: spare.attemptId })
  s.mitm.rewrite(null)
  assert.deepEqual(await s.provider.closePayment(s.via, ref(spare.attemptId)), { closed: true })
  s.mitm.on('alipay.trade.close', () => s.mitm.answerTo('alipay.trade.close', spare.attemptId))
  await assert.rejects(s.provider.closePayment(s.via, ref(closing.attemptId)), isError('unknown', 'answer_mismatch'))

  // A refund answered with the other trade's refund: unknown, though Alipay made it; the query finds it.
  const paid = await s.paid()
  replay(REFUND)
  await assert.rejects(s.provider.refund(s.via, refundInput('ref_THIS0000000000000000001', paid.attemptId, 100)), isError('unknown', 'answer_mismatch'))
  s.mitm.rewrite(null)
  assert.deepEqual(await s.provider.queryRefund(s.via, refundRef('ref_THIS0000000000000000001', paid.attemptId, 100, s.clock())), { status: 'succeeded', currency: 'CNY' })
})

test('a refund query answer naming another out_request_no is not this refund\'s state', async (t) => {
  const s = await throughMitm(t)
  const a = await s.paid()
  await s.provider.refund(s.via, refundInput('ref_DONE00000000000000000001', a.attemptId, 100))
  assert.equal((await s.provider.queryRefund(s.via, refundRef('ref_DONE00000000000000000001', a.attemptId, 100, s.clock()))).status, 'succeeded')
  const done = s.mitm.answerTo(REFUND_QUERY, a.attemptId)
  // A refund never sent, answered with the one that was: neither succeeded nor not_found.
  s.mitm.on(REFUND_QUERY, () => done)
  s.clock.advance(120_000)
  await assert.rejects(s.provider.queryRefund(s.via, refundRef('ref_NEVER0000000000000000001', a.attemptId, 100, new Date(0))), isError('unknown', 'answer_mismatch'))
})

test('a forged refusal (error_response, signature failing) is not believed: the refund Alipay made stays unknown, then found', async (t) => {
  const s = await throughMitm(t)
  const a = await s.paid()
  s.mitm.on(REFUND, (text) => {
    const sign = responseParts(text, REFUND)!.sign
    return `{"error_response":{"code":"40004","msg":"Business Failed","sub_code":"ACQ.SELLER_BALANCE_NOT_ENOUGH","sub_msg":"卖家余额不足"},"sign":"${sign}"}`
  })
  await assert.rejects(s.provider.refund(s.via, refundInput('ref_FORGED000000000000000001', a.attemptId, 100)), isError('unknown', 'invalid_response_signature'))
  s.mitm.rewrite(null)
  assert.deepEqual(await s.provider.queryRefund(s.via, refundRef('ref_FORGED000000000000000001', a.attemptId, 100, s.clock())), { status: 'succeeded', currency: 'CNY' })
  assert.equal((await s.ctl.order(a.attemptId)).refunds.length, 1)
})

test('through Till: another order\'s signed answer followed by a forged paid one does not make a session paid', async (t) => {
  const mitm = await alipayMitm(t)
  const a = await alipayTill(t, { settings: { apiBase: mitm.url } })
  mitm.target(a.fake.url)
  await a.ctl.notifications({ mode: 'drop', persist: true })
  const target = await a.session()
  const { attempt } = await a.start(target)
  const other = await a.session()
  const { attempt: scanned } = await a.start(other)
  await a.ctl.scan({ out_trade_no: scanned.id })
  a.ta.clock.advance(61_000)
  // The first pass asks about both through the man in the middle, who keeps the answers.
  await reconcileAttempts(a.ta.deps)
  mitm.on(QUERY, (text, biz) => (biz.out_trade_no === attempt.id ? appendMember(mitm.answerTo(QUERY, scanned.id), 'alipay_trade_query_response', forgedPaid(attempt.id)) : text))
  a.ta.clock.advance(61_000)
  await reconcileAttempts(a.ta.deps)
  assert.notEqual((await a.read(target)).status, 'paid')
  assert.equal(await a.attemptStatus(attempt.id), 'processing')
  assert.deepEqual(await a.types('sessionId', target), [])
})
