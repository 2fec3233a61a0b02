/**
 * Attempts: the customer starts paying with a provider (a new attempt, the session `processing`,
 * then the provider asked), and the configuration an attempt or record was made with.
 */
import { SessionTerminal } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Currency } from '../domain/money.js'
import { effectiveStatus, type SessionStatus } from '../domain/session-machine.js'
import { isTestProvider } from '../providers/index.js'
import type { AttemptInput, ProviderConfig } from '../providers/types.js'
import type { Executor } from '../store/db.js'
import { getProviderConfigUnscoped } from '../store/repos/provider-configs.js'
import * as sessions from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { openConfig } from './provider-configs.js'
import { transition } from './sessions.js'

export const notifyPath = (provider: string, configId: string | null) => (configId ? `/hooks/${provider}/${configId}` : `/hooks/${provider}`)

/** The configuration an attempt or record was made with, decrypted for this call only. */
export async function configFor(deps: Deps, tx: Executor, provider: string, configId: string | null): Promise<ProviderConfig> {
  if (isTestProvider(provider)) return deps.mockConfig
  const row = configId ? await getProviderConfigUnscoped(tx, configId) : null
  if (!row) throw new Error(`provider configuration ${configId} not found`)
  return openConfig(deps, row)
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
