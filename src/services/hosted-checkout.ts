/**
 * What the customer's pages read and do: a session as the checkout page shows it, the providers a
 * live session offers, the test-mode controls, a live pick, and a receipt. Pages carry no key, so
 * everything here is looked up by the unguessable session or record id alone.
 */
import { NotFound } from '../domain/errors.js'
import { ID_PATTERN } from '../domain/ids.js'
import type { Currency } from '../domain/money.js'
import { effectiveStatus, type SessionStatus } from '../domain/session-machine.js'
import type { RefundBehavior } from '../providers/mock/index.js'
import { isLiveProvider, moduleOf } from '../providers/index.js'
import { fitsSession, type LiveProvider } from '../providers/registry.js'
import { ProviderError, type Action } from '../providers/types.js'
import { getMerchant } from '../store/repos/merchants.js'
import { brandingOf, type Branding } from './merchant-settings.js'
import { getProviderConfigUnscoped } from '../store/repos/provider-configs.js'
import { routeSession } from './provider-routing.js'
import { getRecordUnscoped, getRecordBySession, type RecordRow } from '../store/repos/records.js'
import { getSessionUnscoped, type SessionRow } from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { startAttempt } from './attempts.js'
import { cancelSession } from './sessions.js'
import { mockPayment } from './test-helpers.js'
import { actionShownAgain } from './browser-step.js'

const SESSION_ID = ID_PATTERN('sess')
const RECORD_ID = ID_PATTERN('rec')

export interface CustomerSession {
  session: SessionRow
  /** What a reader sees now: an open session past its expiry is `expired` before the sweep stores it. */
  status: SessionStatus
  merchantName: string
  /** What the merchant chose in the console's Settings (name, colour, logo, support email). */
  branding: Branding | null
  record: RecordRow | null
}

/** A way to pay that a live session offers: one configuration per provider. */
export interface Offer {
  provider: LiveProvider['id']
  configId: string
  /** False until the provider's adapter is built: the page says so instead of failing. */
  available: boolean
  /** The configuration's settings (which channel a browser gets may depend on them). */
  settings: Record<string, unknown>
}

export async function loadSession(deps: Deps, sessionId: string): Promise<CustomerSession> {
  if (!SESSION_ID.test(sessionId)) throw new NotFound()
  const session = await getSessionUnscoped(deps.db, sessionId)
  if (!session) throw new NotFound()
  const merchant = await getMerchant(deps.db, session.merchantId)
  const status = effectiveStatus(session.status as SessionStatus, session.expiresAt, deps.clock())
  const record = status === 'paid' || status === 'refunded' ? await getRecordBySession(deps.db, session, session.id) : null
  const branding = merchant ? brandingOf(merchant) : null
  return { session, status, merchantName: branding?.name ?? '', branding, record }
}

/**
 * Live mode (docs/providers.md): a session hinted at creation offers only its configuration;
 * otherwise each provider's routed configuration that takes the currency and the amount. A pick
 * does not narrow this: a customer who comes back may choose another way to pay.
 */
export async function liveOffers(deps: Deps, session: SessionRow): Promise<Offer[]> {
  if (session.mode !== 'live') return []
  const configs = session.providerConfigId
    ? [await getProviderConfigUnscoped(deps.db, session.providerConfigId)].filter((c) => c !== null)
    : (await routeSession(deps.db, session.merchantId, session.currency as Currency, session.amount)).routes
  return configs
    .filter((c) => c.enabled && isLiveProvider(c.provider) && fitsSession(c.provider, session.currency as Currency, session.amount, c.settings))
    .map((c) => {
      const id = c.provider as LiveProvider['id']
      return { provider: id, configId: c.id, available: deps.providers.get(id) !== undefined, settings: c.settings }
    })
    .sort((a, b) => a.provider.localeCompare(b.provider))
}

/** Test mode only: a live session must never be "paid" by the mock provider. */
function requireTestMode(session: SessionRow) {
  if (session.mode !== 'test') throw new NotFound()
}

/** "Pay" on the test page: the same path as the pay test helper (mock attempt, signed notification). */
export async function payInTestMode(deps: Deps, session: SessionRow, refundBehavior: RefundBehavior) {
  requireTestMode(session)
  await mockPayment(deps, session.id, 'succeeded', refundBehavior)
}

export async function failInTestMode(deps: Deps, session: SessionRow) {
  requireTestMode(session)
  await mockPayment(deps, session.id, 'failed')
}

/** "Cancel and return", in either mode. */
export async function cancelByCustomer(deps: Deps, session: SessionRow) {
  await cancelSession(deps, session.id)
}

export type PickResult =
  | { kind: 'unavailable'; provider: LiveProvider['id'] }
  | { kind: 'failed'; provider: LiveProvider['id'] }
  | { kind: 'started'; provider: LiveProvider['id']; action: Action }
  /** The provider's browser step comes first (WeChat's OAuth inside WeChat); its return starts the attempt. */
  | { kind: 'authorize'; provider: LiveProvider['id']; configId: string }

/** The channel a provider should use for this browser, where it has several (its module decides, from the configuration's settings too). */
export function channelFor(provider: LiveProvider['id'], userAgent: string | undefined, settings: Record<string, unknown> = {}): string | null {
  return moduleOf(provider).channelFor?.(userAgent, settings) ?? null
}

/** The customer picks a provider: the session binds to its configuration and becomes `processing`. */
export async function pickProvider(deps: Deps, session: SessionRow, provider: string, client: { ip: string; userAgent?: string }): Promise<PickResult> {
  if (session.mode !== 'live') throw new NotFound()
  const offer = (await liveOffers(deps, session)).find((o) => o.provider === provider)
  if (!offer) throw new NotFound()
  const channel = channelFor(offer.provider, client.userAgent, offer.settings)
  // Checked before anything is written: no attempt is left behind for a provider that cannot take it.
  if (!offer.available) return { kind: 'unavailable', provider: offer.provider }
  if (channel !== null && channel === moduleOf(offer.provider).browserStep?.channel) return { kind: 'authorize', provider: offer.provider, configId: offer.configId }
  const shown = await actionShownAgain(deps, session.id, offer.provider, offer.configId, channel)
  if (shown) return { kind: 'started', provider: offer.provider, action: shown }
  try {
    const { action } = await startAttempt(deps, session.id, { provider: offer.provider, providerConfigId: offer.configId, channel, clientIp: client.ip })
    return { kind: 'started', provider: offer.provider, action }
  } catch (e) {
    // The attempt stays `processing`; reconciliation asks the provider about it. The customer may try again.
    if (!(e instanceof ProviderError)) throw e
    deps.log.warn({ err: e, sessionId: session.id, provider: offer.provider }, 'provider could not start a payment')
    return { kind: 'failed', provider: offer.provider }
  }
}

/**
 * Why a wait for confirmation ended: `none` (nothing was in flight, answered at once), `signalled`
 * (woken by the commit that finished the session), `timeout` (still in flight at the deadline) or
 * `closed` (the process is stopping).
 */
export type ConfirmationWait = 'none' | 'signalled' | 'timeout' | 'closed'

/**
 * The relay (docs/integrate.md#coming-back-successurl-the-relay-and-paid_confirmed): while a payment is in flight (`processing`), wait up to `waitMs` for it
 * to be confirmed. Woken by the commit that finishes the session, on this instance or another;
 * the timer is only the deadline. A session with nothing in flight answers at once.
 */
export async function awaitConfirmation(deps: Deps, sessionId: string, waitMs: number): Promise<CustomerSession & { wait: ConfirmationWait }> {
  if (!SESSION_ID.test(sessionId)) throw new NotFound()
  const deadline = Date.now() + waitMs
  // Subscribed before the first read, so a commit between the read and the wait is not missed.
  const subscription = await deps.signals.subscribe(sessionId)
  try {
    let current = await loadSession(deps, sessionId)
    let wait: ConfirmationWait = 'none'
    while (current.status === 'processing') {
      const left = deadline - Date.now()
      if (left <= 0) {
        wait = 'timeout'
        break
      }
      wait = await subscription.wait(left)
      current = await loadSession(deps, sessionId)
      // Stopping: answer with what is known now rather than hold the shutdown.
      if (wait === 'closed') break
    }
    return { ...current, wait }
  } finally {
    subscription.close()
  }
}

export interface CustomerReceipt {
  record: RecordRow
  merchantName: string
  branding: Branding | null
  description: string | null
  mode: 'test' | 'live'
  /** The session's `locale`, for the receipt's language. */
  locale: string | null
}

export async function loadReceipt(deps: Deps, recordId: string): Promise<CustomerReceipt> {
  if (!RECORD_ID.test(recordId)) throw new NotFound()
  const record = await getRecordUnscoped(deps.db, recordId)
  if (!record) throw new NotFound()
  const session = await getSessionUnscoped(deps.db, record.sessionId)
  const merchant = await getMerchant(deps.db, record.merchantId)
  const branding = merchant ? brandingOf(merchant) : null
  return { record, merchantName: branding?.name ?? '', branding, description: session?.description ?? null, mode: record.mode, locale: session?.locale ?? null }
}
