/**
 * WeChat Pay signs each answer as a whole, so a man in the middle cannot change one; what he can do
 * is replay another call's genuine signed answer (within the timestamp's five minutes). An answer
 * about another order or refund is unknown, never a state, mainland and cross-border.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newId } from '../../src/domain/ids.js'
import { ProviderError, type ProviderConfig, type RefundInput } from '../../src/providers/types.js'
import { startMitm, type Exchange } from '../helpers/mitm.js'
import { setup } from '../helpers/wechat.js'

const isUnknown = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === code
const ref = (attemptId: string) => ({ attemptId, providerRef: null, data: {} })

for (const crossBorder of [undefined, 'HKD']) {
  test(`${crossBorder ? 'cross-border' : 'mainland'}: another order's or refund's signed answer, replayed, is unknown for the query, the refund and the refund query`, async (t) => {
    const s = await setup(t, { crossBorder })
    const mitm = await startMitm(t)
    mitm.target(s.fake.url)
    const via: ProviderConfig = { ...s.cfg, settings: { ...s.cfg.settings, apiBase: mitm.url } }
    const currency = crossBorder ?? 'CNY'
    const refundInput = (attemptId: string, refundId = newId('ref')): RefundInput => ({
      refundId, amount: 100, totalAmount: 9900, currency: currency as RefundInput['currency'], reason: null, notifyUrl: s.rx.url, payment: ref(attemptId),
    })
    const refundRef = (r: RefundInput) => ({ refundId: r.refundId, providerRefundRef: null, amount: r.amount, createdAt: s.clock(), payment: r.payment })
    const about = (id: string) => (c: Exchange) => c.path.includes(id) || c.requestBody.includes(id)
    /** Calls naming `id` answered with `answer`; the rest passed on. */
    const replay = (id: string, answer: Exchange) => mitm.rewrite((c) => (about(id)(c) ? answer : c))

    // Another order, paid, asked about and refunded through the man in the middle.
    const other = await s.paid({ currency: currency as RefundInput['currency'] })
    await s.provider.queryPayment(via, ref(other.attemptId))
    const otherRefund = refundInput(other.attemptId)
    await s.provider.refund(via, otherRefund)
    await s.provider.queryRefund(via, refundRef(otherRefund))

    const unpaid = s.attempt({ currency: currency as RefundInput['currency'] })
    await s.provider.createAttempt(s.cfg, unpaid)
    replay(unpaid.attemptId, mitm.answerTo((c) => c.method === 'GET' && about(other.attemptId)(c)))
    await assert.rejects(s.provider.queryPayment(via, ref(unpaid.attemptId)), isUnknown('answer_mismatch'))
    await assert.rejects(s.provider.closePayment(via, ref(unpaid.attemptId)), isUnknown('answer_mismatch'))

    const paid = await s.paid({ currency: currency as RefundInput['currency'] })
    const mine = refundInput(paid.attemptId)
    replay(mine.refundId, mitm.answerTo((c) => c.method === 'POST' && about(otherRefund.refundId)(c)))
    await assert.rejects(s.provider.refund(via, mine), isUnknown('answer_mismatch'))
    replay(mine.refundId, mitm.answerTo((c) => c.method === 'GET' && about(otherRefund.refundId)(c)))
    await assert.rejects(s.provider.queryRefund(via, refundRef(mine)), isUnknown('answer_mismatch'))
    // Passed on as sent, the same calls are believed: WeChat made the refund once.
    mitm.rewrite(null)
    assert.equal((await s.provider.queryRefund(via, refundRef(mine))).status, 'pending')
    assert.equal((await s.ctl.order(paid.attemptId)).refunds.length, 1)
  })
}
