import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { createRefund } from '../../services/refunds.js'
import { CreateRefund, type RefundBodyT } from './schema.js'

export const refundRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<{ Body: RefundBodyT }>('/refunds', { schema: CreateRefund }, (req) => createRefund(deps, req.ctx, req.body))
}
