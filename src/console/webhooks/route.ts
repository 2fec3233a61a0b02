/**
 * Webhook endpoints of the selected mode, through services/webhook-endpoints.ts (the API's own):
 * add (secret shown once), rotate, expire the previous secrets, enable/disable, delete; each
 * endpoint's recent deliveries with every attempt, "Resend" (services/events.ts) and "Send test
 * event" (services/test-events.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound, TillError } from '../../domain/errors.js'
import { EVENT_TYPES, type EventType } from '../../domain/events.js'
import { recordActivity, type ActivityAction } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { getEvent, redeliverEvent } from '../../services/events.js'
import { sendTestEvent } from '../../services/test-events.js'
import * as endpoints from '../../services/webhook-endpoints.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, scopeOf, type ModeParams } from '../context.js'
import type { ConsoleContext } from '../views/layout.js'
import { DeletePage, EndpointPage, WebhooksPage } from './view.js'

type IdParams = { Params: { mode: string; id: string } }
const NOTICES = ['saved', 'enabled', 'test', 'resent', 'deleted', 'secrets-expired'] as const
export type WebhookNotice = (typeof NOTICES)[number]
const noticeOf = (q: { notice?: string }) => (NOTICES as readonly string[]).includes(q.notice ?? '') ? (q.notice as WebhookNotice) : null

/** The checked event types of a form; none checked, or "all", means every type (null). */
function eventsFromForm(body: unknown): EventType[] | null {
  if (field(body, 'filter') !== 'some') return null
  // A list field (console/form.ts): an array whenever it was sent.
  const list = (((body as Record<string, unknown>).events ?? []) as unknown[]).filter((v): v is EventType => (EVENT_TYPES as readonly string[]).includes(v as string))
  return list.length ? list : null
}

export const webhookRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const log = (req: FastifyRequest, c: ConsoleContext, action: ActivityAction, subject: string, detail: Record<string, unknown> = {}) =>
    recordActivity(deps, { merchantId: req.consoleSession!.merchant.id, mode: c.mode, ...actorOf(req), action, subject, detail })

  async function endpointPage(req: FastifyRequest, reply: FastifyReply, c: ConsoleContext, id: string, o: { secret?: string; error?: string; status?: number; notice?: WebhookNotice | null; testType?: string }) {
    const scope = scopeOf(c, req)
    const endpoint = await endpoints.getEndpoint(deps, scope, id)
    const deliveries = await endpoints.recentDeliveries(deps, endpoint.id, 20)
    return sendHtml(reply, o.status ?? 200, EndpointPage({ c, endpoint, deliveries, secret: o.secret ?? null, error: o.error ?? null, notice: o.notice ?? null, testType: o.testType ?? null }))
  }

  app.get<ModeParams & { Querystring: { notice?: string } }>('/:mode/webhooks', async (req, reply) => {
    const c = consoleContext(req, reply, '/webhooks')
    const list = await endpoints.listEndpoints(deps, scopeOf(c, req))
    return sendHtml(reply, 200, WebhooksPage({ c, endpoints: list, error: null, url: '', notice: noticeOf(req.query) }))
  })

  app.post<ModeParams>('/:mode/webhooks', async (req, reply) => {
    const c = consoleContext(req, reply, '/webhooks')
    const url = field(req.body, 'url').trim()
    try {
      const created = await endpoints.createEndpoint(deps, scopeOf(c, req), { url, events: eventsFromForm(req.body) })
      await log(req, c, 'endpoint_created', created.id, { url })
      // The secret exists only in this answer: the endpoint's page is rendered here, not redirected to.
      return endpointPage(req, reply, { ...c, path: `/webhooks/${created.id}` }, created.id, { secret: created.secret, status: 201 })
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      const list = await endpoints.listEndpoints(deps, scopeOf(c, req))
      return sendHtml(reply, 400, WebhooksPage({ c, endpoints: list, error: e.message, url, notice: null }))
    }
  })

  app.get<IdParams & { Querystring: { notice?: string; type?: string } }>('/:mode/webhooks/:id', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    return endpointPage(req, reply, c, req.params.id, { notice: noticeOf(req.query), testType: req.query.type })
  })

  app.post<IdParams>('/:mode/webhooks/:id/rotate', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const rotated = await endpoints.rotateSecret(deps, scopeOf(c, req), req.params.id)
    await log(req, c, 'endpoint_secret_rotated', rotated.id, { url: rotated.url })
    return endpointPage(req, reply, c, req.params.id, { secret: rotated.secret })
  })

  app.post<IdParams>('/:mode/webhooks/:id/expire-previous', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const endpoint = await endpoints.expirePreviousSecrets(deps, scopeOf(c, req), req.params.id)
    await log(req, c, 'endpoint_previous_secrets_expired', endpoint.id, { url: endpoint.url })
    return seeOther(reply, `/console/${c.mode}/webhooks/${endpoint.id}?notice=secrets-expired`)
  })

  app.post<IdParams>('/:mode/webhooks/:id/state', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const enabled = field(req.body, 'change') === 'enable'
    const before = await endpoints.getEndpoint(deps, scopeOf(c, req), req.params.id)
    const updated = await endpoints.updateEndpoint(deps, scopeOf(c, req), req.params.id, { enabled })
    await log(req, c, 'endpoint_updated', updated.id, { url: updated.url, enabled })
    // Enabled again: say what happens to what failed meanwhile.
    const notice = enabled && !before.enabled ? 'enabled' : 'saved'
    return seeOther(reply, `/console/${c.mode}/webhooks/${updated.id}?notice=${notice}`)
  })

  app.post<IdParams>('/:mode/webhooks/:id/events', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const events = eventsFromForm(req.body)
    const updated = await endpoints.updateEndpoint(deps, scopeOf(c, req), req.params.id, { events })
    await log(req, c, 'endpoint_updated', updated.id, { url: updated.url, events })
    return seeOther(reply, `/console/${c.mode}/webhooks/${updated.id}?notice=saved`)
  })

  app.get<IdParams>('/:mode/webhooks/:id/delete', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const endpoint = await endpoints.getEndpoint(deps, scopeOf(c, req), req.params.id)
    return sendHtml(reply, 200, DeletePage({ c, endpoint }))
  })

  app.post<IdParams>('/:mode/webhooks/:id/delete', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const endpoint = await endpoints.getEndpoint(deps, scopeOf(c, req), req.params.id)
    await endpoints.deleteEndpoint(deps, scopeOf(c, req), endpoint.id)
    await log(req, c, 'endpoint_deleted', endpoint.id, { url: endpoint.url })
    return seeOther(reply, `/console/${c.mode}/webhooks?notice=deleted`)
  })

  app.post<IdParams>('/:mode/webhooks/:id/test', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const type = field(req.body, 'type') as EventType
    if (!(EVENT_TYPES as readonly string[]).includes(type)) throw new TillError(400, 'unknown event type')
    try {
      const sent = await sendTestEvent(deps, scopeOf(c, req), req.params.id, type)
      await log(req, c, 'endpoint_test_sent', req.params.id, { eventId: sent.eventId, type })
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      return endpointPage(req, reply, c, req.params.id, { error: e.message, status: 400 })
    }
    return seeOther(reply, `/console/${c.mode}/webhooks/${req.params.id}?notice=test&type=${type}`)
  })

  /** Resend one event to this endpoint (the events API's redeliver, named endpoint). */
  app.post<IdParams>('/:mode/webhooks/:id/resend', async (req, reply) => {
    const c = consoleContext(req, reply, `/webhooks/${req.params.id}`)
    const scope = scopeOf(c, req)
    const endpoint = await endpoints.getEndpoint(deps, scope, req.params.id)
    const eventId = field(req.body, 'event')
    await getEvent(deps, scope, eventId).catch(() => {
      throw new NotFound()
    })
    try {
      await redeliverEvent(deps, scope, eventId, { endpointId: endpoint.id })
      await log(req, c, 'event_resent', eventId, { endpointId: endpoint.id })
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      return endpointPage(req, reply, c, req.params.id, { error: e.message, status: 400 })
    }
    return seeOther(reply, `/console/${c.mode}/webhooks/${endpoint.id}?notice=resent`)
  })
}
