/**
 * What the hosted checkout does around a pick for providers whose module asks for it (module.ts):
 * showing an open attempt's action again instead of placing a new order (a still valid QR code),
 * and a browser step before the attempt (WeChat's OAuth for a JSAPI payer's openid).
 */
import { moduleOf, type LiveProviderId } from '../providers/index.js'
import { ProviderError, type Action } from '../providers/types.js'
import { getAttemptUnscoped, latestAttemptId, type SessionRow } from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { configFor, startAttempt } from './attempts.js'

/**
 * The action of the session's newest attempt, when it is this configuration's, still open, and
 * the provider says it is still good for this channel: a reload or a second pick on the same
 * computer shows it again rather than placing (and later closing) another order.
 */
export async function actionShownAgain(deps: Deps, sessionId: string, provider: LiveProviderId, configId: string, channel: string | null): Promise<Action | null> {
  const shownAgain = moduleOf(provider).actionShownAgain
  if (!shownAgain) return null
  const latest = await latestAttemptId(deps.db, sessionId)
  const a = latest ? await getAttemptUnscoped(deps.db, latest) : null
  if (!a || a.status !== 'processing' || a.provider !== provider || a.providerConfigId !== configId) return null
  return shownAgain({ channel: a.channel, providerData: a.providerData, createdAt: a.createdAt }, channel, deps.clock())
}

const stepOf = (provider: LiveProviderId) => {
  const step = moduleOf(provider).browserStep
  if (!step) throw new Error(`${provider} has no browser step`)
  return step
}

/** Where to send the customer for the step, or null when the configuration cannot finish it (the trip would be for nothing). */
export async function browserStepUrl(deps: Deps, provider: LiveProviderId, configId: string, o: { redirectUri: string; state: string }): Promise<string | null> {
  return stepOf(provider).startUrl(await configFor(deps, deps.db, provider, configId), o)
}

export type AfterStepResult =
  | { kind: 'started'; action: Action }
  /** The provider refused the code: most often a reload of the return, whose code was already spent. */
  | { kind: 'code_refused' }
  | { kind: 'failed' }

/** Back from the step: the adapter turns the code into the payer's id, and that into an attempt on the step's channel. */
export async function payAfterStep(deps: Deps, session: SessionRow, provider: LiveProviderId, configId: string, code: string): Promise<AfterStepResult> {
  try {
    const cfg = await configFor(deps, deps.db, provider, configId)
    const adapter = deps.providers.get(provider)
    if (!adapter?.finishBrowserStep) throw new Error(`the ${provider} adapter cannot finish its browser step`)
    let payerId: string
    try {
      payerId = await adapter.finishBrowserStep(cfg, code)
    } catch (e) {
      if (e instanceof ProviderError && e.outcome === 'rejected') return { kind: 'code_refused' }
      throw e
    }
    const { action } = await startAttempt(deps, session.id, { provider, providerConfigId: configId, channel: stepOf(provider).channel, payerId })
    return { kind: 'started', action }
  } catch (e) {
    // As for any pick: an attempt that may have reached the provider stays processing for reconciliation.
    if (!(e instanceof ProviderError)) throw e
    deps.log.warn({ err: e, sessionId: session.id, provider }, 'provider could not start a payment after the browser step')
    return { kind: 'failed' }
  }
}
