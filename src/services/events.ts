/** The events API: what Till told (or will tell) a merchant, every attempt, and replays by hand. */
import { BadRequest, InvalidField, NotFound } from '../domain/errors.js'
import { deliveriesOf, schedule } from '../store/repos/deliveries.js'
import * as repo from '../store/repos/events.js'
import type { EventRow } from '../store/repos/events.js'
import type { Scope } from '../store/repos/scope.js'
import { getEndpoint } from '../store/repos/webhook-endpoints.js'
import type { Deps } from './deps.js'
import { matchingEndpoints } from './webhook-endpoints.js'

/** Exactly the body the webhooks carry. */
const eventView = (e: EventRow) => JSON.parse(e.payload) as Record<string, unknown>

export async function listEvents(deps: Deps, scope: Scope, q: { limit?: number; starting_after?: string; type?: string }) {
  let after: EventRow | undefined
  if (q.starting_after !== undefined) {
    after = (await repo.getEvent(deps.db, scope, q.starting_after)) ?? undefined
    if (!after) throw new InvalidField('starting_after', 'no such event')
  }
  const { rows, hasMore } = await repo.listEvents(deps.db, scope, { limit: q.limit ?? 10, type: q.type, after })
  return { data: rows.map(eventView), hasMore }
}

type DeliveryRow = Awaited<ReturnType<typeof deliveriesOf>>[number]

/** One delivery of an event with every attempt, as the events API shows it. */
export const deliveryView = (d: DeliveryRow) => ({
  endpointId: d.endpointId,
  url: d.url,
  status: d.status,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  attempts: d.attemptLog.map((a) => ({
    attemptedAt: a.attemptedAt.toISOString(),
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    responseBody: a.responseBody,
    error: a.error,
  })),
})

export async function getEvent(deps: Deps, scope: Scope, id: string) {
  const e = await repo.getEvent(deps.db, scope, id)
  if (!e) throw new NotFound()
  const deliveries = (await deliveriesOf(deps.db, e.id)).map(deliveryView)
  return { ...eventView(e), deliveries }
}

/**
 * Sends an event again, now: to one endpoint when named (even one whose filter skips this type, since
 * the merchant asked for it), else to every enabled endpoint whose filter takes it, including ones
 * made after the event.
 */
export async function redeliverEvent(deps: Deps, scope: Scope, id: string, input: { endpointId?: string }) {
  return deps.db.transaction(async (tx) => {
    const e = await repo.getEvent(tx, scope, id)
    if (!e) throw new NotFound()
    let endpoints
    if (input.endpointId !== undefined) {
      const one = await getEndpoint(tx, scope, input.endpointId)
      if (!one) throw new InvalidField('endpointId', 'no such webhook endpoint')
      if (!one.enabled) throw new BadRequest('webhook endpoint is disabled', 'webhook_endpoint_unavailable')
      endpoints = [one]
    } else {
      endpoints = await matchingEndpoints(tx, scope, e.type)
      if (endpoints.length === 0) throw new BadRequest('no enabled webhook endpoint takes this event', 'webhook_endpoint_unavailable')
    }
    const scheduled = await schedule(tx, e.id, endpoints.map((x) => x.id), deps.clock())
    const url = new Map(endpoints.map((x) => [x.id, x.url]))
    return {
      id: e.id,
      scheduled: scheduled.map((s) => ({ endpointId: s.endpointId, url: url.get(s.endpointId)!, nextAttemptAt: s.nextAttemptAt.toISOString() })),
    }
  })
}
