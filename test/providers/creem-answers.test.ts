/**
 * Creem's API answers are not signed (only TLS vouches for them), but each names what it is about:
 * another transaction's or checkout's answer (replayed, misrouted) is unknown, never this one's state.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProviderError, type ProviderConfig } from '../../src/providers/types.js'
import { setup } from '../helpers/creem.js'
import { startMitm } from '../helpers/mitm.js'

const isUnknown = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === code

test('another transaction\'s answer, refunded, does not settle this refund; another checkout\'s answer is not this attempt\'s', async (t) => {
  const s = await setup(t)
  const mitm = await startMitm(t)
  mitm.target(s.fake.url)
  const via: ProviderConfig = { ...s.cfg, settings: { apiBase: mitm.url } }
  const refundOf = (ref: Awaited<ReturnType<typeof s.paid>>['ref'], refundId: string) => ({ refundId, amount: 1234, totalAmount: 1234, currency: 'EUR' as const, reason: null, payment: ref, notifyUrl: 'https://till.example/hooks/creem/pc_test' })
  const queryRef = (r: ReturnType<typeof refundOf>) => ({ refundId: r.refundId, providerRefundRef: null, amount: r.amount, createdAt: s.clock(), payment: r.payment })

  // Another payment, refunded in full, its transaction read through the man in the middle.
  const other = await s.paid()
  const otherRefund = refundOf(other.ref, 'ref_other')
  await s.provider.refund(s.cfg, otherRefund)
  await s.ctl.tick()
  assert.equal((await s.provider.queryRefund(via, queryRef(otherRefund))).status, 'succeeded')
  const refunded = mitm.answerTo((c) => c.path.includes(String(other.ref.data.transactionId)))

  const mine = await s.paid()
  const myRefund = refundOf(mine.ref, 'ref_mine')
  await s.ctl.refundOutcome({ status: 'succeeded', delayMs: 60_000 })
  assert.equal((await s.provider.refund(s.cfg, myRefund)).status, 'pending')
  mitm.rewrite((c) => (c.path.includes(String(mine.ref.data.transactionId)) ? refunded : c))
  await assert.rejects(s.provider.queryRefund(via, queryRef(myRefund)), isUnknown('answer_mismatch'))
  mitm.rewrite(null)
  assert.equal((await s.provider.queryRefund(via, queryRef(myRefund))).status, 'pending')

  // A checkout answer naming another checkout (one made in Creem's dashboard carries no request_id).
  const open = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, open)
  mitm.rewrite((c) => (c.path.includes(made.providerRef!) ? { ...c, text: JSON.stringify({ ...JSON.parse(c.text), id: other.made.providerRef, request_id: null, status: 'completed' }) } : c))
  await assert.rejects(s.provider.queryPayment(via, { attemptId: open.attemptId, providerRef: made.providerRef!, data: made.data! }), isUnknown('answer_mismatch'))
})
