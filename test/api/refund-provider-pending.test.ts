/**
 * A refund the provider answered `pending` is marked so (provider_pending), and that mark is what
 * keeps reconciliation from sending it again when a later lookup does not find it; a refund whose
 * call had no known outcome is not marked, and is sent again (with the same id) once the provider
 * shows none. Seen through behaviour: how many times the provider is asked to refund.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileRefunds } from '../../src/jobs/reconcile.js'
import { ProviderError, type RefundState } from '../../src/providers/types.js'
import { reconTill } from '../helpers/reconciliation.js'

async function setup(t: Parameters<typeof reconTill>[0], firstAnswer: () => Promise<RefundState>) {
  const r = await reconTill(t)
  const wechat = r.ta.deps.providers.get('wechat')!
  const calls: string[] = []
  let answer = firstAnswer
  wechat.refund = async (_cfg, input) => {
    calls.push(input.refundId)
    return answer()
  }
  // The lookup never finds it (a provider without a refund lookup of that id, or not yet).
  wechat.queryRefund = async (_cfg, ref) => {
    throw new ProviderError('unknown', 'not_found', `no refund ${ref.refundId}`)
  }
  const paid = await r.payment({ paidAt: r.ta.clock() })
  const res = await r.ta.request('POST', '/api/v1/refunds', { key: r.ta.merchant.liveKey, body: { recordId: paid.recordId, amount: 500 } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  answer = async () => ({ status: 'pending' })
  const reconcileLater = async () => {
    r.ta.clock.advance(3600_000)
    await reconcileRefunds(r.ta.deps)
  }
  return { r, calls, refundId: res.body.refund.id as string, reconcileLater }
}

test('a refund the provider answered pending is never sent again, even when a lookup does not find it', async (t) => {
  const s = await setup(t, async () => ({ status: 'pending' }))
  await s.reconcileLater()
  await s.reconcileLater()
  assert.deepEqual(s.calls, [s.refundId])
})

test('a refund whose call had no known outcome is sent again, with the same id, when the provider shows none', async (t) => {
  const s = await setup(t, async () => {
    throw new ProviderError('unknown', 'network', 'the connection was reset')
  })
  await s.reconcileLater()
  assert.deepEqual(s.calls, [s.refundId, s.refundId])
  // Answered pending the second time: from then on it is never sent again.
  await s.reconcileLater()
  assert.deepEqual(s.calls, [s.refundId, s.refundId])
})
