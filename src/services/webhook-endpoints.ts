/**
 * Webhook endpoints (docs/integrate.md#webhooks): per merchant and mode, an https URL in live mode, an optional
 * event-type filter, and a `whsec_` secret shown once, sealed at rest and rotated with a 24 h overlap
 * (every replaced secret signs until its own overlap ends, or until the merchant expires them).
 */
import type { Mode } from '../domain/checkout-rules.js'
import { BadRequest, InvalidField, NotFound } from '../domain/errors.js'
import type { EventType } from '../domain/events.js'
import { newId } from '../domain/ids.js'
import { recentWindowStart, ROTATION_OVERLAP_MS, successRate } from '../domain/webhooks.js'
import { generateWebhookSecret } from '../security/api-keys.js'
import type { Executor } from '../store/db.js'
import { cancelPending, deliveriesTo } from '../store/repos/deliveries.js'
import * as repo from '../store/repos/webhook-endpoints.js'
import type { EndpointRow } from '../store/repos/webhook-endpoints.js'
import type { Scope } from '../store/repos/scope.js'
import type { PreviousSecret } from '../store/schema.js'
import type { Deps } from './deps.js'

export const MAX_ENDPOINTS_PER_MODE = 16
/** Replaced secrets signing at once beside the current one: each adds a signature to every delivery. */
export const MAX_PREVIOUS_SECRETS = 4

export interface EndpointInput {
  url: string
  events?: EventType[] | null
  enabled?: boolean
}

export interface EndpointPatch {
  url?: string
  events?: EventType[] | null
  enabled?: boolean
}

/** Replaced secrets still inside their overlap at `now`. */
const stillSigning = (previous: PreviousSecret[], now: Date) => previous.filter((p) => p.expiresAt > now.getTime())

/** Attempts of the recent window (domain/webhooks.ts), delivered or not. */
export interface RecentAttempts {
  delivered: number
  failed: number
}
const NONE: RecentAttempts = { delivered: 0, failed: 0 }
const iso = (d: Date | null) => d?.toISOString() ?? null

export function endpointView(e: EndpointRow, now: Date, recent: RecentAttempts = NONE) {
  const signing = stillSigning(e.previousSecrets, now)
  return {
    id: e.id,
    url: e.url,
    mode: e.mode,
    events: e.events ?? null,
    enabled: e.enabled,
    /** Until then deliveries carry signatures of replaced secrets too (the last of them to expire); null when none does. */
    previousSecretExpiresAt: signing.length ? new Date(Math.max(...signing.map((p) => p.expiresAt))).toISOString() : null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    health: {
      recentAttempts: recent.delivered + recent.failed,
      recentSuccessRate: successRate(recent.delivered, recent.failed),
      lastSuccessAt: iso(e.lastSuccessAt),
      lastFailureAt: iso(e.lastFailureAt),
      lastFailureReason: e.lastFailureReason,
      failingSince: iso(e.failingSince),
      failuresSinceSuccess: e.failuresSinceSuccess,
      disabledForFailingAt: iso(e.disabledForFailingAt),
    },
  }
}

/** Endpoints as the API shows them, with their recent attempts (one read of the hourly counts for all of them). */
async function views(deps: Deps, tx: Executor, rows: EndpointRow[]) {
  const now = deps.clock()
  const recent = await repo.attemptCounts(tx, rows.map((e) => e.id), recentWindowStart(now))
  return rows.map((e) => endpointView(e, now, recent.get(e.id)))
}
const view = async (deps: Deps, tx: Executor, row: EndpointRow) => (await views(deps, tx, [row]))[0]

/** Absolute http(s), https in live mode; no credentials in the URL (they would be logged and shown). */
export function checkEndpointUrl(value: string, mode: Mode): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidField('url', 'must be an absolute http or https URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidField('url', 'must be an absolute http or https URL')
  if (mode === 'live' && url.protocol !== 'https:') throw new InvalidField('url', 'must use https in live mode')
  if (url.username || url.password) throw new InvalidField('url', 'must not contain a user name or password')
  return value
}

const aad = (merchantId: string, endpointId: string) => `webhook_endpoint:${merchantId}:${endpointId}`

/** The secrets that sign a delivery now: the current one, then the replaced ones still in their overlap, newest first. */
export function signingSecrets(deps: Deps, e: { id: string; merchantId: string; secretEnc: string; previousSecrets: PreviousSecret[] }, now: Date): string[] {
  return [e.secretEnc, ...stillSigning(e.previousSecrets, now).map((p) => p.secretEnc)].map((sealed) => deps.box.open(sealed, aad(e.merchantId, e.id)))
}

async function insert(deps: Deps, tx: Executor, scope: Scope, input: EndpointInput) {
  if ((await repo.countEndpoints(tx, scope)) >= MAX_ENDPOINTS_PER_MODE) {
    throw new BadRequest(`at most ${MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode`, 'limit_reached')
  }
  const id = newId('we')
  const secret = generateWebhookSecret()
  const now = deps.clock()
  const row = await repo.insertEndpoint(tx, {
    id,
    merchantId: scope.merchantId,
    mode: scope.mode,
    url: input.url,
    events: input.events ?? null,
    enabled: input.enabled ?? true,
    secretEnc: deps.box.seal(secret, aad(scope.merchantId, id)),
    createdAt: now,
    updatedAt: now,
  })
  return { ...endpointView(row, now), secret }
}

export async function createEndpoint(deps: Deps, scope: Scope, input: EndpointInput) {
  checkEndpointUrl(input.url, scope.mode)
  return deps.db.transaction(async (tx) => {
    await repo.lockMerchant(tx, scope.merchantId)
    return insert(deps, tx, scope, input)
  })
}

/** The admin route (docs/operate.md#admin-api): the same endpoint, for a merchant named by id. */
export async function createEndpointForMerchant(deps: Deps, merchantId: string, input: EndpointInput & { mode: Mode }) {
  const scope = { merchantId, mode: input.mode }
  checkEndpointUrl(input.url, scope.mode)
  return deps.db.transaction(async (tx) => {
    if (!(await repo.lockMerchant(tx, merchantId))) throw new NotFound()
    return insert(deps, tx, scope, input)
  })
}

export async function listEndpoints(deps: Deps, scope: Scope) {
  return views(deps, deps.db, await repo.listEndpoints(deps.db, scope))
}

export async function getEndpoint(deps: Deps, scope: Scope, id: string) {
  const e = await repo.getEndpoint(deps.db, scope, id)
  if (!e) throw new NotFound()
  return view(deps, deps.db, e)
}

/** The endpoint's latest deliveries, newest first, for its console page. */
export const recentDeliveries = (deps: Deps, endpointId: string, limit: number) => deliveriesTo(deps.db, endpointId, limit)

/**
 * Disabling pauses an endpoint: no new deliveries, and scheduled ones wait until it is enabled again.
 * Enabling a disabled one (also one Till disabled for failing) starts its failing run afresh, so its
 * next failure does not disable it at once; what failed for good meanwhile stays failed (redeliver it).
 */
export async function updateEndpoint(deps: Deps, scope: Scope, id: string, patch: EndpointPatch) {
  if (patch.url !== undefined) checkEndpointUrl(patch.url, scope.mode)
  return deps.db.transaction(async (tx) => {
    const e = await repo.getEndpoint(tx, scope, id, true)
    if (!e) throw new NotFound()
    const now = deps.clock()
    const next: Partial<EndpointRow> = { updatedAt: now }
    if (patch.url !== undefined) next.url = patch.url
    if (patch.events !== undefined) next.events = patch.events
    if (patch.enabled !== undefined) next.enabled = patch.enabled
    if (patch.enabled && !e.enabled) Object.assign(next, { failingSince: null, failuresSinceSuccess: 0, disabledForFailingAt: null })
    return view(deps, tx, await repo.updateEndpoint(tx, e.id, next))
  })
}

/** Deleted endpoints stop receiving at once; their past attempts stay visible under the events. */
export async function deleteEndpoint(deps: Deps, scope: Scope, id: string) {
  return deps.db.transaction(async (tx) => {
    const e = await repo.getEndpoint(tx, scope, id, true)
    if (!e) throw new NotFound()
    const now = deps.clock()
    await repo.updateEndpoint(tx, e.id, { deletedAt: now, enabled: false, updatedAt: now })
    await cancelPending(tx, e.id, now)
    return { id: e.id, deleted: true as const }
  })
}

/**
 * A new secret, shown once; the current one keeps signing beside it for 24 h, and so do those
 * replaced before it, each until its own 24 h end: a receiver still on any of them keeps verifying.
 */
export async function rotateSecret(deps: Deps, scope: Scope, id: string) {
  return deps.db.transaction(async (tx) => {
    const e = await repo.getEndpoint(tx, scope, id, true)
    if (!e) throw new NotFound()
    const now = deps.clock()
    const previous = stillSigning(e.previousSecrets, now)
    if (previous.length >= MAX_PREVIOUS_SECRETS) {
      throw new BadRequest(`at most ${MAX_PREVIOUS_SECRETS} previous secrets sign beside the current one: expire them first`, 'limit_reached')
    }
    const secret = generateWebhookSecret()
    const row = await repo.updateEndpoint(tx, e.id, {
      secretEnc: deps.box.seal(secret, aad(e.merchantId, e.id)),
      previousSecrets: [{ secretEnc: e.secretEnc, expiresAt: now.getTime() + ROTATION_OVERLAP_MS }, ...previous],
      updatedAt: now,
    })
    return { ...(await view(deps, tx, row)), secret }
  })
}

/** The replaced secrets stop signing now (a leaked one must not wait out its 24 h); the current one signs alone. */
export async function expirePreviousSecrets(deps: Deps, scope: Scope, id: string) {
  return deps.db.transaction(async (tx) => {
    const e = await repo.getEndpoint(tx, scope, id, true)
    if (!e) throw new NotFound()
    const now = deps.clock()
    return view(deps, tx, await repo.updateEndpoint(tx, e.id, { previousSecrets: [], updatedAt: now }))
  })
}

/** Enabled endpoints of the scope that take this event type (what a new event would fan out to). */
export async function matchingEndpoints(tx: Executor, scope: Scope, type: string) {
  return (await repo.listEndpoints(tx, scope)).filter((e) => e.enabled && (e.events === null || e.events.includes(type)))
}
