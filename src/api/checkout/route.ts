import type { FastifyPluginAsync } from 'fastify'
import { createSession } from '../../services/checkout.js'
import type { Deps } from '../../services/deps.js'
import { CreateCheckout, type CheckoutBodyT } from './schema.js'

export const checkoutRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<{ Body: CheckoutBodyT }>('/checkout', { schema: CreateCheckout }, (req) => createSession(deps, req.ctx, req.body))
}
