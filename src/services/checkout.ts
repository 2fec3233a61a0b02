/** Creating and reading payment sessions (docs/integrate.md#create-a-session, docs/integrate.md#read-sessions-records-and-refunds). */
import { checkCancelUrl, checkMetadata, checkSuccessUrl, expirySeconds } from '../domain/checkout-rules.js'
import { BadRequest, NotFound } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Locale } from '../domain/locales.js'
import type { Currency } from '../domain/money.js'
import { isLiveProvider, moduleOf, TEST_PROVIDER } from '../providers/index.js'
import { fitsSession, supportsAmount, supportsCurrency } from '../providers/registry.js'
import type { Executor } from '../store/db.js'
import { findByLabel } from '../store/repos/provider-configs.js'
import { getRecordBySession } from '../store/repos/records.js'
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
  const metadata = checkMetadata(input.metadata)
  const successUrl = checkSuccessUrl(input.successUrl, ctx.mode)
  const cancelUrl = checkCancelUrl(input.cancelUrl, ctx.mode)
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
  }
  const row: SessionRow = { ...values, metadata: jsonbOrder(values.metadata) }
  const view = sessionCreated(row, deps.config.baseUrl)
  await insertSession(deps.db, row, k.claimAnswered(view))
  return view
}

export async function readSession(deps: Deps, scope: Scope, id: string) {
  const session = await getSession(deps.db, scope, id)
  if (!session) throw new NotFound()
  const record = session.status === 'paid' || session.status === 'refunded' ? await getRecordBySession(deps.db, scope, session.id) : null
  return sessionView(session, record, deps.config.baseUrl, deps.clock())
}
