/**
 * /c/<session_id>/done, the relay (spec 4.1.1): waits on the server, up to 5 s, for a payment in
 * flight to be confirmed, then sends the customer on with a 303.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { awaitConfirmation } from '../../services/hosted-checkout.js'
import { pageContext, sendPage } from '../render.js'
import { MessagePage } from '../views/message.js'
import { relayLocation } from './target.js'

/** Spec 8: the sync wait is at most 5 seconds. */
export const RELAY_WAIT_MS = 5000

export const relayRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Params: { id: string } }>('/:id/done', async (req, reply) => {
    const cs = await awaitConfirmation(deps, req.params.id, RELAY_WAIT_MS)
    const location = relayLocation({
      sessionId: cs.session.id,
      status: cs.status,
      recordId: cs.record?.id ?? null,
      successUrl: cs.session.successUrl,
    })
    const ctx = pageContext(req, reply)
    // The body is for clients that do not follow redirects: one link onwards.
    reply.code(303).header('Location', location)
    return sendPage(reply, 303, MessagePage({ ...ctx, v: { title: ctx.t('relay.title'), link: { href: location, text: ctx.t('relay.continue') } } }))
  })
}
