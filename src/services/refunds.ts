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
import { isLiveProvider, LIVE_PROVIDERS } from '../providers/registry.js'
import { ProviderError, type RefundState } from '../providers/types.js'
import type { Executor } from '../store/db.js'
import { saveResponse } from '../store/repos/idempotency.js'
import * as records from '../store/repos/records.js'
import * as refundRepo from '../store/repos/refunds.js'
import type { Deps, KeyWithWork, RequestContext } from './deps.js'
import { configFor, notifyPath } from './payments.js'
import { recordWithRefund } from './present.js'
import { settleRefund } from './refund-settle.js'

const KEY_RETENTION_MS = 24 * 3600_000

export interface RefundInput {
  recordId: string
  amount?: number
  reason?: string
}

/**
 * Step 1: the reservation. Returns an existing refund when the idempotency key already made one. An
 * API key (`once`) is claimed in flight in this same commit: a retry finds it (409) until the answer
 * is stored with the settlement, and never reaches the provider for this reservation again.
 */
async function reserve(deps: Deps, ctx: RequestContext, input: RefundInput, once?: KeyWithWork) {
  const reserved = await deps.db.transaction(async (tx) => {
    // The API's key is claimed with the lookup of the refund it made before (one statement); the console's is only looked up.
    const keyed = once ? await refundRepo.claimKeyFindingRefund(tx, once.claim) : undefined
    const record = await records.lockRecord(tx, ctx, input.recordId)
    if (!record) throw new NotFound()
    const now = deps.clock()
    let idempotencyKey = ctx.idempotencyKey
    if (idempotencyKey) {
      const earlier = keyed !== undefined ? keyed : await refundRepo.findRefundByIdempotencyKey(tx, ctx, idempotencyKey)
      if (earlier && now.getTime() - earlier.createdAt.getTime() < KEY_RETENTION_MS) {
        if (earlier.recordId !== record.id || (input.amount !== undefined && input.amount !== earlier.amount)) throw new IdempotencyMismatch()
        return { refund: earlier, record, fresh: false }
      }
      // A key older than its 24 h retention is a new request; only the newest use is remembered.
      if (earlier) await refundRepo.updateRefund(tx, earlier.id, { idempotencyKey: null })
    }
    const pending = await refundRepo.pendingRefundSum(tx, record.id)
    const available = refundable(record.amount, record.refundedAmount, pending.sum)
    const amount = refundAmount(input.amount, available, record.refundedAmount >= record.amount)
    // Such a provider refunds everything that is left (Creem's API), which after a refund made in
    // its own dashboard is less than the payment: that is still allowed, any smaller amount is not.
    if (isLiveProvider(record.provider) && !LIVE_PROVIDERS[record.provider].capabilities.partialRefunds && amount !== available) {
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
      idempotencyKey,
      nextCheckAt: nextRefundCheck(now, 0),
      createdAt: now,
      updatedAt: now,
    })
    // In the same commit as the reservation: a crash before the provider answers leaves `refunding`.
    const marked = record.status === 'refunding' ? record : await records.setRecordRefunds(tx, record, record.refundedAmount, recordStatus(record.amount, record.refundedAmount, true))
    return { refund, record: marked, fresh: true }
  })
  once?.held()
  return reserved
}

function storeAnswer(ex: Executor, ctx: RequestContext, once: KeyWithWork, view: unknown) {
  const { status, body } = once.answer(view)
  return saveResponse(ex, ctx, once.claim.key, status, body)
}

/** With a key (`once`), the answer is stored in the settlement's transaction, or alone when there is none. */
export async function createRefund(deps: Deps, ctx: RequestContext, input: RefundInput, once?: KeyWithWork) {
  const { refund, record, fresh } = await reserve(deps, ctx, input, once)
  if (fresh) {
    const state = await sendRefund(deps, record, refund)
    const settled = await deps.db.transaction(async (tx) => {
      const done = await settleRefund(tx, deps, refund.id, state, refund.recordId)
      if (!done) return null
      const view = recordWithRefund(done.record, done.refund)
      if (once) await storeAnswer(tx, ctx, once, view)
      return view
    })
    if (settled) return settled
  }
  const current = (await refundRepo.getRefundUnscoped(deps.db, refund.id))!
  const view = recordWithRefund((await records.getRecordUnscoped(deps.db, current.recordId))!, current)
  if (once) await storeAnswer(deps.db, ctx, once, view)
  return view
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
