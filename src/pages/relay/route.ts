/**
 * /c/<session_id>/done, the relay (docs/integrate.md#coming-back-successurl-the-relay-and-paid_confirmed): waits on the server, up to 5 s
 * (TILL_RELAY_WAIT_MS), for a payment in flight to be confirmed, then sends the customer on with a 303.
 * `Server-Timing: relay;desc=<why>;dur=<ms>` says why the wait ended (none, signalled, timeout,
 * closed) and how long it took, for an operator's browser tools and for the tests.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { awaitConfirmation } from '../../services/hosted-checkout.js'
import { confirmReturn } from '../../services/provider-return.js'
import { sendHtml } from '../../web/html.js'
import { pageContext } from '../context.js'
import { MessagePage } from '../views/message.js'
import { relayLocation } from './target.js'

export const relayRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Params: { id: string } }>('/:id/done', async (req, reply) => {
    // A provider's signed return (Creem) only makes Till ask the provider now, within the same 5 s;
    // the raw query keeps its order, which the signature covers.
    const started = Date.now()
    const waitMs = deps.config.relayWaitMs
    const raw = req.raw.url ?? ''
    if (raw.includes('?')) await confirmReturn(deps, req.params.id, new URLSearchParams(raw.slice(raw.indexOf('?') + 1)), waitMs)
    const cs = await awaitConfirmation(deps, req.params.id, Math.max(0, waitMs - (Date.now() - started)))
    const location = relayLocation({
      sessionId: cs.session.id,
      status: cs.status,
      recordId: cs.record?.id ?? null,
      successUrl: cs.session.successUrl,
      cancelUrl: cs.session.cancelUrl,
    })
    const ctx = pageContext(req, reply, cs.session.locale)
    // The body is for clients that do not follow redirects: one link onwards.
    reply.code(303).header('Location', location).header('Server-Timing', `relay;desc=${cs.wait};dur=${Date.now() - started}`)
    return sendHtml(reply, 303, MessagePage({ ...ctx, v: { title: ctx.t('relay.title'), link: { href: location, text: ctx.t('relay.continue') } } }))
  })
}
