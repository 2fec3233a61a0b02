/**
 * Refunds (docs/integrate.md#refunds, docs/architecture.md#the-state-machines): reserve under a row lock and commit, call the provider outside
 * any transaction, then store its answer. A crash in between leaves a pending refund that
 * reconciliation settles by asking the provider with the same refund id.
 */
import { BadRequest, IdempotencyMismatch, NotFound } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Currency } from '../domain/money.js'
import { nextRefundCheck } from '../domain/reconcile-backoff.js'
import { recordStatus, refundable, refundAmount } from '../domain/refund-math.js'
import { isLiveProvider, moduleOf } from '../providers/index.js'
import { ProviderError, type RefundState } from '../providers/types.js'
import * as records from '../store/repos/records.js'
import * as refundRepo from '../store/repos/refunds.js'
import type { Deps, RequestContext } from './deps.js'
import { keptOnRow, type KeptRows, type KeyInWork, type RequestKey } from './idempotency.js'
import { configFor, notifyPath } from './attempts.js'
import { recordWithRefund } from './present.js'
import { settleRefund } from './refund-settle.js'

export interface RefundInput {
  recordId: string
  amount?: number
  reason?: string
}

/**
 * The refunds an earlier use of an Idempotency-Key made, found on their own rows (services/idempotency.ts),
 * each lookup with the record's pending refunds, which a new refund reads next.
 */
const keptRefunds = (ctx: RequestContext, recordId: string): KeptRows<refundRepo.RefundRow, { sum: number }> => ({
  claiming: async (tx, claim) => {
    const { earlier, pending } = await refundRepo.claimKeyFindingRefund(tx, claim, recordId)
    return { earlier, also: pending }
  },
  byKey: async (tx, key) => ({
    earlier: key ? await refundRepo.findRefundByIdempotencyKey(tx, ctx, key) : null,
    also: await refundRepo.pendingRefundSum(tx, recordId),
  }),
  forget: (tx, refund) => refundRepo.updateRefund(tx, refund.id, { idempotencyKey: null }),
})

/**
 * Step 1: the reservation. Returns the refund the key made before when it made one. The key is
 * claimed in flight in this same commit: a retry finds it (409) until the answer is stored with the
 * settlement, and never reaches the provider for this reservation again.
 */
async function reserve(deps: Deps, ctx: RequestContext, input: RefundInput, k: KeyInWork) {
  return deps.db.transaction(async (tx) => {
    const record = await records.lockRecord(tx, ctx, input.recordId)
    if (!record) throw new NotFound()
    // After the record's lock: a concurrent use of the same key has committed its refund by then.
    const { earlier, also: pending } = await k.reserve(tx, keptRefunds(ctx, record.id))
    if (earlier) {
      if (earlier.recordId !== record.id || (input.amount !== undefined && input.amount !== earlier.amount)) throw new IdempotencyMismatch()
      return { refund: earlier, record, fresh: false }
    }
    const now = deps.clock()
    const available = refundable(record.amount, record.refundedAmount, pending.sum)
    const amount = refundAmount(input.amount, available, record.refundedAmount >= record.amount)
    // Such a provider refunds everything that is left (Creem's API), which after a refund made in
    // its own dashboard is less than the payment: that is still allowed, any smaller amount is not.
    if (isLiveProvider(record.provider) && !moduleOf(record.provider).capabilities.partialRefunds && amount !== available) {
      throw new BadRequest(`provider ${record.provider} does not support partial refunds`, 'partial_refund_unsupported')
    }
    const refund = await refundRepo.insertRefund(tx, {
      id: newId('ref'),
      recordId: record.id,
      merchantId: record.merchantId,
      mode: record.mode,
      amount,
      status: 'pending',
      reason: input.reason ?? null,
      idempotencyKey: k.key,
      nextCheckAt: nextRefundCheck(now, 0),
      createdAt: now,
      updatedAt: now,
    })
    // In the same commit as the reservation: a crash before the provider answers leaves `refunding`.
    const marked = record.status === 'refunding' ? record : await records.setRecordRefunds(tx, record, record.refundedAmount, recordStatus(record.amount, record.refundedAmount, true))
    return { refund, record: marked, fresh: true }
  })
}

/**
 * With the API's key, the answer is stored by the settlement's event (its last statement), or by a
 * statement of its own in that transaction when it appends none, or alone when there is no
 * settlement; without one, the key is the context's (the console's), kept on the refund's row only.
 */
export function createRefund(deps: Deps, ctx: RequestContext, input: RefundInput, key: RequestKey = keptOnRow(ctx.idempotencyKey, deps.clock)) {
  return key.once(async (k) => {
    const { refund, record, fresh } = await reserve(deps, ctx, input, k)
    if (fresh) {
      const state = await sendRefund(deps, record, refund)
      const settled = await deps.db.transaction(async (tx) => {
        let answered: ReturnType<typeof recordWithRefund> | undefined
        const done = await settleRefund(tx, deps, refund.id, state, refund.recordId, (rec, ref) => k.answering(answered = recordWithRefund(rec, ref)))
        if (!done) return null
        // The settlement's event stored the answer of the record and refund it returns.
        if (answered) return answered
        const view = recordWithRefund(done.record, done.refund)
        await k.answer(tx, view)
        return view
      })
      if (settled) return settled
    }
    const current = (await refundRepo.getRefundUnscoped(deps.db, refund.id))!
    return recordWithRefund((await records.getRecordUnscoped(deps.db, current.recordId))!, current)
  })
}

/**
 * Step 2, outside any transaction (and reconciliation's second try of a refund the provider never
 * received). A refusal fails the refund; no answer (a timeout, a 5xx) is `null`: still pending.
 */
export async function sendRefund(deps: Deps, record: records.RecordRow, refund: refundRepo.RefundRow): Promise<RefundState | null> {
  try {
    const provider = deps.providers.get(record.provider)
    if (!provider) throw new ProviderError('unknown', 'no_adapter', `provider ${record.provider} has no adapter yet`)
    const cfg = await configFor(deps, deps.db, record.provider, record.providerConfigId)
    return await provider.refund(cfg, {
      refundId: refund.id,
      amount: refund.amount,
      totalAmount: record.amount,
      currency: record.currency as Currency,
      reason: refund.reason,
      payment: { attemptId: record.attemptId ?? '', providerRef: record.providerRef, data: record.providerData },
      notifyUrl: deps.config.baseUrl + notifyPath(record.provider, record.providerConfigId),
    })
  } catch (e) {
    if (e instanceof ProviderError && e.outcome === 'rejected') return { status: 'failed', failureReason: `${e.code}: ${e.message}` }
    deps.log.warn({ err: e, refundId: refund.id }, 'refund outcome unknown: left pending for reconciliation')
    return null
  }
}
