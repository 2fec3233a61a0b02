/**
 * A provider's signed return to the relay (Creem's success redirect, docs/providers.md) is a hint,
 * never proof: a valid signature for one of this session's attempts makes Till ask the provider's
 * API at once instead of waiting for the webhook, and only that answer changes anything. An absent
 * or invalid signature changes nothing; the relay then waits as it always does.
 */
import { ID_PATTERN } from '../domain/ids.js'
import * as sessions from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { configFor } from './attempts.js'
import { applyFacts } from './payment-facts.js'

const SESSION_ID = ID_PATTERN('sess')
const ATTEMPT_ID = ID_PATTERN('att')

/**
 * Answers within `budgetMs` (the relay's own limit): a slow provider's answer is still applied when
 * it comes, but the customer is not kept waiting for it.
 */
export async function confirmReturn(deps: Deps, sessionId: string, query: URLSearchParams, budgetMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budgetMs)
    timer.unref()
  })
  try {
    // The provider could not be asked now: the webhook or reconciliation settles it.
    const work = confirm(deps, sessionId, query).catch((e) => deps.log.warn({ err: e, sessionId }, 'provider return could not be confirmed'))
    await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}

async function confirm(deps: Deps, sessionId: string, query: URLSearchParams): Promise<void> {
  if (!SESSION_ID.test(sessionId)) return
  const session = await sessions.getSessionUnscoped(deps.db, sessionId)
  if (!session || session.mode !== 'live' || session.status === 'paid' || session.status === 'refunded') return
  // The session's newest attempt names the provider whose signature the return must carry; the
  // signed return itself names the attempt (Creem's request_id, for one).
  const latest = await sessions.latestAttemptId(deps.db, session.id)
  const newest = latest ? await sessions.getAttemptUnscoped(deps.db, latest) : null
  const adapter = newest ? deps.providers.get(newest.provider) : undefined
  if (!newest || !adapter?.verifyReturn) return
  const cfg = await configFor(deps, deps.db, newest.provider, newest.providerConfigId)
  const hint = adapter.verifyReturn(cfg, query)
  const attempt = hint.verified && hint.attemptId && ATTEMPT_ID.test(hint.attemptId) ? await sessions.getAttemptUnscoped(deps.db, hint.attemptId) : null
  // Only an attempt of this very session, still unsettled, made with the same configuration.
  if (!attempt || attempt.sessionId !== session.id || attempt.provider !== newest.provider || attempt.providerConfigId !== newest.providerConfigId || attempt.status === 'succeeded') {
    deps.log.warn({ sessionId, attemptId: hint.verified ? hint.attemptId : null, reason: hint.verified ? 'another attempt' : hint.reason }, 'unverified provider return ignored')
    return
  }
  const state = await adapter.queryPayment(cfg, { attemptId: attempt.id, providerRef: attempt.providerRef, data: attempt.providerData })
  if (state.status !== 'succeeded' && state.status !== 'failed') return
  await applyFacts(deps, attempt.provider, attempt.providerConfigId, [{
    kind: 'payment', attemptId: attempt.id, status: state.status, providerRef: state.providerRef, amount: state.amount,
    currency: state.status === 'succeeded' ? state.currency ?? session.currency : undefined, paidAt: state.paidAt, data: state.data,
  }])
}
