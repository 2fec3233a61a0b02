import type { FastifyPluginAsync } from 'fastify'
import { createSession } from '../../services/sessions.js'
import { answerOnce } from '../plugins/idempotency.js'
import type { Deps } from '../../services/deps.js'
import { CreateCheckout, type CheckoutBodyT } from './schema.js'

export const checkoutRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  // The key is claimed in the command that inserts the session (services/idempotency.ts).
  app.post<{ Body: CheckoutBodyT }>('/checkout', { schema: CreateCheckout, config: { keyWithWork: true } }, (req, reply) =>
    answerOnce(deps, req, reply, (once) => createSession(deps, req.ctx, req.body, once)))
}
