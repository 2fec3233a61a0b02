/**
 * GET /c/<session_id>/status: `{"status": …}` for the page script. With `?wait=1` it answers as soon
 * as the session is no longer `processing` (woken by the same session signals as the relay, on any
 * instance), or after STATUS_WAIT_MS: a long poll, so a QR page moves on the moment payment is
 * confirmed without polling the database.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { awaitConfirmation, loadSession } from '../../services/hosted-checkout.js'

/** Under the idle timeouts of common proxies (30–60 s); the script simply asks again. */
export const STATUS_WAIT_MS = 25_000

export const statusRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Params: { id: string }; Querystring: { wait?: string } }>('/:id/status', async (req, reply) => {
    const cs = req.query.wait === '1' ? await awaitConfirmation(deps, req.params.id, STATUS_WAIT_MS) : await loadSession(deps, req.params.id)
    return reply.type('application/json; charset=utf-8').send({ status: cs.status })
  })
}
