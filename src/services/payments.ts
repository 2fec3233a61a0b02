/**
 * Payments: starting attempts and applying what providers report. Every state change commits
 * with its event; the same fact applied twice changes nothing the second time.
 */
import { sessionEventData, type EventType } from '../domain/events.js'
import { SessionTerminal } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Currency } from '../domain/money.js'
import { effectiveStatus, isTerminal, nextStatus, type SessionStatus, type SessionTrigger } from '../domain/session-machine.js'
import { isTestProvider } from '../providers/index.js'
import type { AttemptInput, Fact, PaymentFact, ProviderConfig } from '../providers/types.js'
import type { Executor, Tx } from '../store/db.js'
import { appendEvent } from '../store/repos/events.js'
import { getProviderConfigUnscoped } from '../store/repos/provider-configs.js'
import { getRecordBySession, insertRecord } from '../store/repos/records.js'
import * as sessions from '../store/repos/sessions.js'
import type { SessionRow } from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { recordDiscrepancy } from './discrepancies.js'
import { openConfig } from './provider-configs.js'
import { applyRefundFact } from './refund-settle.js'

export const notifyPath = (provider: string, configId: string | null) => (configId ? `/hooks/${provider}/${configId}` : `/hooks/${provider}`)

/** The configuration an attempt or record was made with, decrypted for this call only. */
export async function configFor(deps: Deps, tx: Executor, provider: string, configId: string | null): Promise<ProviderConfig> {
  if (isTestProvider(provider)) return deps.mockConfig
  const row = configId ? await getProviderConfigUnscoped(tx, configId) : null
  if (!row) throw new Error(`provider configuration ${configId} not found`)
  return openConfig(deps, row)
}

/** Moves a session and appends the matching event, or does nothing when the trigger does not apply. */
async function transition(tx: Tx, deps: Deps, s: SessionRow, trigger: SessionTrigger, event: EventType | null, patch: Partial<SessionRow> = {}) {
  const to = nextStatus(s.status as SessionStatus, trigger)
  if (!to) return null
  const now = deps.clock()
  const updated = await sessions.updateSession(tx, s.id, { ...patch, status: to }, now)
  // Relay pages waiting on this session, on any instance, wake when this transaction commits.
  if (isTerminal(to)) await deps.signals.announce(tx, s.id)
  if (event) {
    const record = to === 'paid' ? await getRecordBySession(tx, s, s.id) : null
    await appendEvent(tx, s, event, sessionEventData(updated, record), now)
  }
  return updated
}

export interface StartAttemptInput {
  provider: string
  providerConfigId: string | null
  channel: string | null
  options?: Record<string, unknown>
  clientIp?: string
  /** From the provider's browser step (services/browser-step.ts). */
  payerId?: string
}

/** The customer starts paying: a new attempt, the session `processing`, then the provider is asked. */
export async function startAttempt(deps: Deps, sessionId: string, input: StartAttemptInput) {
  const now = deps.clock()
  const { session, attempt } = await deps.db.transaction(async (tx) => {
    const s = await sessions.getSessionUnscoped(tx, sessionId, true)
    if (!s) throw new Error(`session ${sessionId} not found`)
    const status = effectiveStatus(s.status as SessionStatus, s.expiresAt, now)
    if (status !== 'pending' && status !== 'processing') throw new SessionTerminal(status)
    const attempt = await sessions.insertAttempt(tx, {
      id: newId('att'),
      sessionId: s.id,
      merchantId: s.merchantId,
      mode: s.mode,
      provider: input.provider,
      providerConfigId: input.providerConfigId,
      channel: input.channel,
      status: 'processing',
      nextCheckAt: new Date(now.getTime() + 60_000),
      createdAt: now,
      updatedAt: now,
    })
    // Another channel's open order is closed by reconciliation, which asks the provider first.
    for (const old of await sessions.openAttempts(tx, s.id)) {
      if (old.id !== attempt.id) await sessions.updateAttempt(tx, old.id, { nextCheckAt: now }, now)
    }
    // Only a hint at creation binds the configuration: a pick names the provider the session waits
    // on, and the customer may still pick another (the payment binds it, in applyPaymentFact).
    const session = await transition(tx, deps, s, 'start_attempt', null, { chosenProvider: input.provider })
    return { session: session!, attempt }
  })
  const provider = deps.providers.get(input.provider)
  if (!provider) throw new Error(`provider ${input.provider} has no adapter`)
  const cfg = await configFor(deps, deps.db, input.provider, input.providerConfigId)
  const attemptInput: AttemptInput = {
    attemptId: attempt.id,
    sessionId: session.id,
    amount: session.amount,
    currency: session.currency as Currency,
    description: session.description,
    channel: input.channel,
    notifyUrl: deps.config.baseUrl + notifyPath(input.provider, input.providerConfigId),
    returnUrl: `${deps.config.baseUrl}/c/${session.id}/done`,
    checkoutUrl: `${deps.config.baseUrl}/c/${session.id}`,
    expiresAt: session.expiresAt,
    clientIp: input.clientIp,
    payerId: input.payerId,
    options: input.options ?? {},
  }
  const result = await provider.createAttempt(cfg, attemptInput)
  await sessions.updateAttempt(deps.db, attempt.id, { providerRef: result.providerRef ?? null, providerData: result.data ?? {} }, deps.clock())
  return { session, attempt: { ...attempt, providerRef: result.providerRef ?? null, providerData: result.data ?? {} }, action: result.action }
}

async function applyPaymentFact(tx: Tx, deps: Deps, provider: string, configId: string | null, fact: PaymentFact) {
  const peek = await sessions.getAttemptUnscoped(tx, fact.attemptId)
  // A notification can only touch attempts made with the configuration its URL names.
  if (!peek || peek.provider !== provider || (peek.providerConfigId ?? null) !== configId) {
    deps.log.warn({ attemptId: fact.attemptId, provider, configId }, 'notification for an unknown attempt ignored')
    return
  }
  // Lock order everywhere: session, then its attempts (startAttempt and the expiry sweep agree).
  const session = (await sessions.getSessionUnscoped(tx, peek.sessionId, true))!
  const attempt = (await sessions.getAttemptUnscoped(tx, peek.id, true))!
  const now = deps.clock()
  if (fact.status === 'succeeded') {
    if (attempt.status === 'succeeded') return // duplicate
    // Paid is recorded only for the amount and currency the session asked for, both reported.
    if (fact.amount !== session.amount || fact.currency !== session.currency) {
      await recordDiscrepancy(tx, deps, {
        provider, providerConfigId: configId, merchantId: session.merchantId, kind: 'payment_amount',
        report: fact, expected: { attemptId: attempt.id, amount: session.amount, currency: session.currency },
      })
      return
    }
    // What the provider told us with the payment (Creem's transaction id) rides along to the record, for refunds.
    const providerData = fact.data ? { ...attempt.providerData, ...fact.data } : attempt.providerData
    await sessions.updateAttempt(tx, attempt.id, { status: 'succeeded', providerRef: fact.providerRef ?? attempt.providerRef, providerData, nextCheckAt: null }, now)
    const paid = await getRecordBySession(tx, session, session.id)
    if (paid) {
      // Paid twice through two channels: keep the money visible to the operator.
      await recordDiscrepancy(tx, deps, {
        provider, providerConfigId: configId, merchantId: session.merchantId, kind: 'paid_twice',
        report: fact, expected: { sessionId: session.id, paidBy: { recordId: paid.id, attemptId: paid.attemptId } },
      })
      return
    }
    await insertRecord(tx, {
      id: newId('rec'),
      sessionId: session.id,
      attemptId: attempt.id,
      merchantId: session.merchantId,
      mode: session.mode,
      provider: attempt.provider,
      providerConfigId: attempt.providerConfigId,
      providerRef: fact.providerRef ?? attempt.providerRef ?? attempt.id,
      providerData,
      amount: session.amount,
      currency: session.currency,
      status: 'paid',
      paidAt: fact.paidAt ?? now,
      createdAt: now,
    })
    await transition(tx, deps, session, 'confirm_paid', 'payment.succeeded', { chosenProvider: attempt.provider, providerConfigId: attempt.providerConfigId })
  } else if (fact.status === 'failed') {
    if (attempt.status !== 'processing') return
    await sessions.updateAttempt(tx, attempt.id, { status: 'failed', nextCheckAt: null }, now)
    // A failure of an order the customer has moved away from does not fail the session.
    const stillOpen = (await sessions.openAttempts(tx, session.id)).length > 0
    if (!stillOpen) await transition(tx, deps, session, 'confirm_failed', 'payment.failed')
  }
}

/** Applies a provider's normalized facts in one transaction. */
export async function applyFacts(deps: Deps, provider: string, configId: string | null, facts: Fact[]) {
  await deps.signals.transaction(deps.db, async (tx) => {
    for (const fact of facts) {
      if (fact.kind === 'payment') await applyPaymentFact(tx, deps, provider, configId, fact)
      else if (fact.kind === 'refund') await applyRefundFact(tx, deps, provider, configId, fact)
    }
  })
}

async function closeSession(deps: Deps, sessionId: string, trigger: 'cancel' | 'expire', event: EventType) {
  const now = deps.clock()
  return deps.signals.transaction(deps.db, async (tx) => {
    const s = await sessions.getSessionUnscoped(tx, sessionId, true)
    if (!s) throw new Error(`session ${sessionId} not found`)
    const status = effectiveStatus(s.status as SessionStatus, s.expiresAt, now)
    if (status !== 'pending' && status !== 'processing') {
      // Read as expired but not yet swept: the sweep's work is done here.
      if (status === 'expired' && trigger === 'expire' && s.status !== 'expired') return closeOpen(tx, deps, s, trigger, event, now)
      throw new SessionTerminal(status)
    }
    return closeOpen(tx, deps, s, trigger, event, now)
  })
}

async function closeOpen(tx: Tx, deps: Deps, s: SessionRow, trigger: 'cancel' | 'expire', event: EventType, now: Date) {
  const patch = trigger === 'expire' && s.expiresAt > now ? { expiresAt: now } : {}
  const updated = await transition(tx, deps, s, trigger, event, patch)
  // Open provider orders are closed by reconciliation (a network call, outside this transaction).
  for (const a of await sessions.openAttempts(tx, s.id)) await sessions.updateAttempt(tx, a.id, { nextCheckAt: now }, now)
  return updated!
}

export const cancelSession = (deps: Deps, sessionId: string) => closeSession(deps, sessionId, 'cancel', 'session.canceled')
export const expireSession = (deps: Deps, sessionId: string) => closeSession(deps, sessionId, 'expire', 'session.expired')

/** The sweep: open sessions past expiry, claimed with SKIP LOCKED so instances never act twice. */
export async function expireDue(deps: Deps, limit = 100): Promise<number> {
  const now = deps.clock()
  return deps.signals.transaction(deps.db, async (tx) => {
    const due = await sessions.claimExpired(tx, now, limit)
    for (const s of due) await closeOpen(tx, deps, s, 'expire', 'session.expired', now)
    return due.length
  })
}
