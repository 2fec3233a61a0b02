/** Test-mode helpers (docs/integrate.md#test-mode): the mock provider's side, driven over the API. */
import { BadRequest, NotFound, SessionTerminal } from '../domain/errors.js'
import { effectiveStatus, type SessionStatus } from '../domain/session-machine.js'
import { isTestProvider, TEST_PROVIDER } from '../providers/index.js'
import { buildMockNotification, type MockDispute, type RefundBehavior } from '../providers/mock/index.js'
import type { Fact } from '../providers/types.js'
import { getRecordBySession, getRecordUnscoped } from '../store/repos/records.js'
import { getRefund } from '../store/repos/refunds.js'
import { getAttemptUnscoped, getSession, latestAttemptId, type AttemptRow, type SessionRow } from '../store/repos/sessions.js'
import type { Scope } from '../store/repos/scope.js'
import { readSession } from './sessions.js'
import type { Deps, RequestContext } from './deps.js'
import { startAttempt } from './attempts.js'
import { cancelSession, expireSession } from './sessions.js'
import { recordWithRefund } from './present.js'

async function openSession(deps: Deps, scope: Scope, id: string) {
  const s = await getSession(deps.db, scope, id)
  if (!s) throw new NotFound()
  const status = effectiveStatus(s.status as SessionStatus, s.expiresAt, deps.clock())
  if (status !== 'pending' && status !== 'processing') throw new SessionTerminal(status)
  return s
}

/**
 * The mock provider's servers sending a signed notification, received as /hooks/mock receives it.
 * The database away meanwhile throws its error, answered 503 as for any request.
 */
export async function sendMockNotification(deps: Deps, facts: Fact[]) {
  const ack = await deps.deliverNotification(buildMockNotification(deps.mockConfig, { facts }))
  if (ack.status !== 200) throw new Error(`mock notification refused: ${ack.status} ${JSON.stringify(ack.body)}`)
}

/**
 * The session's newest attempt if the mock's customer already paid it and its notification was lost
 * (the database was away): paying again notifies it again, rather than charging the customer twice.
 */
async function paidAtMock(deps: Deps, sessionId: string, refundBehavior: RefundBehavior): Promise<AttemptRow | null> {
  const id = await latestAttemptId(deps.db, sessionId)
  const a = id ? await getAttemptUnscoped(deps.db, id) : null
  const paid = a !== null && isTestProvider(a.provider) && a.status === 'processing' && a.providerData.outcome === 'succeeded' && a.providerData.refundBehavior === refundBehavior
  return paid ? a : null
}

/** Customer pays (or the payment fails) through a mock attempt and its notification; returns the attempt. */
export async function mockPayment(deps: Deps, sessionId: string, outcome: 'succeeded' | 'failed', refundBehavior: RefundBehavior = 'succeed', requestKey: string | null = null) {
  const attempt = (outcome === 'succeeded' ? await paidAtMock(deps, sessionId, refundBehavior) : null) ??
    (await startAttempt(deps, sessionId, { provider: TEST_PROVIDER.id, providerConfigId: null, channel: TEST_PROVIDER.channel, options: { refundBehavior, outcome, requestKey } })).attempt
  const { amount, currency } = attempt.providerData as { amount: number; currency: string }
  const fact: Fact = outcome === 'succeeded'
    ? { kind: 'payment', attemptId: attempt.id, status: 'succeeded', providerRef: attempt.providerRef ?? undefined, amount, currency, paidAt: deps.clock() }
    : { kind: 'payment', attemptId: attempt.id, status: 'failed', providerRef: attempt.providerRef ?? undefined }
  await sendMockNotification(deps, [fact])
  return attempt
}

/** The mock's customer disputes the payment: opened (evidence due in 7 days), then closed as asked, each a signed notification. */
async function mockDispute(deps: Deps, attempt: AttemptRow, dispute: MockDispute) {
  const { amount, currency } = attempt.providerData as { amount: number; currency: string }
  const opened: Fact = {
    kind: 'dispute', attemptId: attempt.id, providerDisputeRef: `dp_mock_${attempt.id}`, status: 'needs_response', reason: 'fraudulent',
    amount, currency, dueBy: new Date(deps.clock().getTime() + 7 * 86_400_000),
  }
  await sendMockNotification(deps, [opened])
  if (dispute !== 'open') await sendMockNotification(deps, [{ ...opened, status: dispute }])
}

const running = new Map<string, Promise<unknown>>()

/**
 * The helpers on one session run one at a time in this process: a helper's attempt and its
 * notification are two transactions, and a concurrent helper between them would leave both
 * answering 200 (a payment after the cancel, a failure that failed nothing).
 */
async function oneAtATime<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
  const run = (running.get(sessionId) ?? Promise.resolve()).catch(() => {}).then(fn)
  const tail = run.catch(() => {})
  running.set(sessionId, tail)
  try {
    return await run
  } finally {
    if (running.get(sessionId) === tail) running.delete(sessionId)
  }
}

/** The session as the helper left it, or the 400 of a finished session when something else finished it first. */
async function outcome(deps: Deps, scope: Scope, id: string, won: (s: SessionRow) => Promise<boolean>) {
  const s = (await getSession(deps.db, scope, id))!
  if (!(await won(s))) throw new SessionTerminal(effectiveStatus(s.status as SessionStatus, s.expiresAt, deps.clock()))
  return readSession(deps, scope, id)
}

/**
 * With an Idempotency-Key, a session already paid by this very request (its answer was lost: a 5xx
 * after the payment committed) answers as the request would have, instead of `session_terminal`.
 */
export const paySession = (deps: Deps, ctx: RequestContext, id: string, refundBehavior?: RefundBehavior, dispute?: MockDispute) => oneAtATime(id, async () => {
  const key = ctx.idempotencyKey
  if (key) {
    const s = await getSession(deps.db, ctx, id)
    const record = s && (await getRecordBySession(deps.db, s, s.id))
    if (record && isTestProvider(record.provider) && record.providerData.requestKey === key) return readSession(deps, ctx, id)
  }
  await openSession(deps, ctx, id)
  const attempt = await mockPayment(deps, id, 'succeeded', refundBehavior, key)
  if (dispute) await mockDispute(deps, attempt, dispute)
  return outcome(deps, ctx, id, async (s) => (await getRecordBySession(deps.db, s, s.id))?.attemptId === attempt.id)
})

export const failSession = (deps: Deps, scope: Scope, id: string) => oneAtATime(id, async () => {
  await openSession(deps, scope, id)
  await mockPayment(deps, id, 'failed')
  return outcome(deps, scope, id, async (s) => s.status === 'failed')
})

export const cancelSessionHelper = (deps: Deps, scope: Scope, id: string) => oneAtATime(id, async () => {
  await openSession(deps, scope, id)
  await cancelSession(deps, id)
  return readSession(deps, scope, id)
})

export const expireSessionHelper = (deps: Deps, scope: Scope, id: string) => oneAtATime(id, async () => {
  await openSession(deps, scope, id)
  await expireSession(deps, id)
  return readSession(deps, scope, id)
})

/** Settles a pending mock refund through a mock refund notification. */
export async function settleRefundHelper(deps: Deps, scope: Scope, id: string, status: 'succeeded' | 'failed') {
  const refund = await getRefund(deps.db, scope, id)
  if (!refund) throw new NotFound()
  if (refund.status !== 'pending') throw new BadRequest(`refund is ${refund.status}`, 'refund_not_pending')
  await sendMockNotification(deps, [{ kind: 'refund', refundId: refund.id, status, providerRefundRef: refund.providerRef ?? undefined }])
  const settled = (await getRefund(deps.db, scope, id))!
  return recordWithRefund((await getRecordUnscoped(deps.db, settled.recordId))!, settled)
}
