/**
 * Payment sessions: creating and reading them (docs/integrate.md#create-a-session,
 * docs/integrate.md#read-sessions-records-and-refunds), moving them with their event, and closing
 * them (canceled, expired, the expiry sweep).
 */
import { checkCancelUrl, checkMetadata, checkSuccessUrl, expirySeconds } from '../domain/checkout-rules.js'
import { checkCustomerEmail } from '../domain/customer-email.js'
import { BadRequest, NotFound, SessionTerminal } from '../domain/errors.js'
import { sessionEventData, type EventType } from '../domain/events.js'
import { newId } from '../domain/ids.js'
import type { Locale } from '../domain/locales.js'
import type { Currency } from '../domain/money.js'
import { effectiveStatus, isTerminal, nextStatus, type SessionStatus, type SessionTrigger } from '../domain/session-machine.js'
import { isLiveProvider, moduleOf, TEST_PROVIDER } from '../providers/index.js'
import { fitsSession, supportsAmount, supportsCurrency } from '../providers/registry.js'
import type { Executor, Tx } from '../store/db.js'
import { appendEvent } from '../store/repos/events.js'
import { findByLabel } from '../store/repos/provider-configs.js'
import { countLinkPayment } from '../store/repos/payment-links.js'
import { getRecordBySession } from '../store/repos/records.js'
import * as sessions from '../store/repos/sessions.js'
import { getSession, insertSession, type SessionRow } from '../store/repos/sessions.js'
import type { Scope } from '../store/repos/scope.js'
import type { Deps, RequestContext } from './deps.js'
import { keptOnRow, type KeyInWork, type RequestKey } from './idempotency.js'
import { sessionCreated, sessionView } from './present.js'
import { routeSession } from './provider-routing.js'

export interface CheckoutInput {
  amount: number
  currency: Currency
  description?: string
  metadata?: Record<string, string>
  successUrl?: string
  cancelUrl?: string
  expiresInSeconds?: number
  providerHints?: Record<string, string>
  locale?: Locale
  customerEmail?: string
}

const noProvider = (currency: string) => new BadRequest(`no provider available for ${currency} in live mode`, 'provider_unavailable')

/** Live mode: the first hint binds the session to one configuration (docs/integrate.md#providerhints-choosing-a-provider-configuration-live-mode). */
async function bindProvider(tx: Executor, merchantId: string, currency: Currency, amount: number, hints: Record<string, string> | undefined) {
  const first = hints ? Object.entries(hints)[0] : undefined
  if (first) {
    const [provider, label] = first
    if (!isLiveProvider(provider)) throw new BadRequest(`unknown provider in hints: ${provider}`, 'provider_unavailable')
    const config = typeof label === 'string' ? await findByLabel(tx, merchantId, provider, label) : null
    if (!config) throw new BadRequest(`provider ${provider}/${label} not available: invalid_label`, 'provider_unavailable')
    if (!config.enabled) throw new BadRequest(`provider ${provider}/${label} not available: config_disabled`, 'provider_unavailable')
    if (!supportsCurrency(provider, currency, config.settings)) throw noProvider(currency)
    // Creem prices start at 1.00: a smaller hinted session could never be paid.
    if (!supportsAmount(provider, currency, amount)) {
      throw new BadRequest(`provider ${provider}/${label} not available: amount_below_minimum (at least ${moduleOf(provider).capabilities.minAmount?.[currency]})`, 'provider_unavailable')
    }
    return { chosenProvider: provider, providerConfigId: config.id }
  }
  // Unhinted: the checkout page offers each provider's routed configuration (services/provider-routing.ts), and the customer may pick any of them.
  const { routes, reason } = await routeSession(tx, merchantId, currency, amount)
  if (routes.length === 0) throw new BadRequest(reason, 'provider_unavailable')
  return { chosenProvider: null, providerConfigId: null }
}

/** Metadata as jsonb stores it (keys by length, then bytes), so an answer made from the row equals one read back. */
function jsonbOrder(m: Record<string, string>): Record<string, string> {
  const keys = Object.keys(m).map((k) => [k, Buffer.from(k)] as const)
  keys.sort(([, a], [, b]) => a.length - b.length || Buffer.compare(a, b))
  return Object.fromEntries(keys.map(([k]) => [k, m[k]]))
}

/**
 * The answer is made from the row before it is written (every column is given); with a key, the key
 * (holding that answer) and the session are one command.
 */
export function createSession(deps: Deps, ctx: RequestContext, input: CheckoutInput, key: RequestKey = keptOnRow(null, deps.clock)) {
  return key.once((k) => newSession(deps, ctx, input, k))
}

async function newSession(deps: Deps, ctx: RequestContext, input: CheckoutInput, k: KeyInWork) {
  const row = await sessionRow(deps, ctx, input, null)
  const view = sessionCreated(row, deps.config.baseUrl)
  await insertSession(deps.db, row, k.claimAnswered(view))
  return view
}

/** A complete new session row, checked and bound to its provider, not yet written; `paymentLinkId`: the link whose page makes it. */
export async function sessionRow(deps: Deps, ctx: Scope, input: CheckoutInput, paymentLinkId: string | null): Promise<SessionRow> {
  const metadata = checkMetadata(input.metadata)
  const successUrl = checkSuccessUrl(input.successUrl, ctx.mode)
  const cancelUrl = checkCancelUrl(input.cancelUrl, ctx.mode)
  const customerEmail = checkCustomerEmail(input.customerEmail)
  const ttl = expirySeconds(input.expiresInSeconds)
  const now = deps.clock()
  // No transaction: the binding only reads (nothing it reads is locked either way), and the INSERT is one statement.
  const binding = ctx.mode === TEST_PROVIDER.mode ? { chosenProvider: TEST_PROVIDER.id, providerConfigId: null } : await bindProvider(deps.db, ctx.merchantId, input.currency, input.amount, input.providerHints)
  const values = {
    id: newId('sess'),
    merchantId: ctx.merchantId,
    mode: ctx.mode,
    status: 'pending' as const,
    amount: input.amount,
    currency: input.currency,
    description: input.description ?? null,
    metadata,
    successUrl,
    cancelUrl,
    locale: input.locale ?? null,
    ...binding,
    expiresAt: new Date(now.getTime() + ttl * 1000),
    createdAt: now,
    updatedAt: now,
    customerEmail,
    paymentLinkId,
  }
  return { ...values, metadata: jsonbOrder(values.metadata) }
}

export async function readSession(deps: Deps, scope: Scope, id: string) {
  const session = await getSession(deps.db, scope, id)
  if (!session) throw new NotFound()
  const record = session.status === 'paid' || session.status === 'refunded' ? await getRecordBySession(deps.db, scope, session.id) : null
  return sessionView(session, record, deps.config.baseUrl, deps.clock())
}

/** Moves a session and appends the matching event, or does nothing when the trigger does not apply. */
export async function transition(tx: Tx, deps: Deps, s: SessionRow, trigger: SessionTrigger, event: EventType | null, patch: Partial<SessionRow> = {}) {
  const to = nextStatus(s.status as SessionStatus, trigger)
  if (!to) return null
  const now = deps.clock()
  const updated = await sessions.updateSession(tx, s.id, { ...patch, status: to }, now)
  // Relay pages waiting on this session, on any instance, wake when this transaction commits.
  if (isTerminal(to)) await deps.signals.announce(tx, s.id)
  if (event) {
    const record = to === 'paid' ? await getRecordBySession(tx, s, s.id) : null
    // A payment link's "used up" counts its paid sessions: the count moves with the payment, in its transaction.
    if (to === 'paid' && s.paymentLinkId) await countLinkPayment(tx, s.paymentLinkId)
    await appendEvent(tx, s, event, sessionEventData(updated, record), now)
  }
  return updated
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
