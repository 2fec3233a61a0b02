import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { getRefund, listRefunds } from '../../services/lists.js'
import { createRefund } from '../../services/refunds.js'
import { createdRange, page } from '../list-query.js'
import { CreateRefund, GetRefund, ListRefunds, type RefundBodyT, type RefundListQueryT } from './schema.js'

export const refundRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<{ Body: RefundBodyT }>('/refunds', { schema: CreateRefund }, (req) => createRefund(deps, req.ctx, req.body))
  app.get<{ Querystring: RefundListQueryT }>('/refunds', { schema: ListRefunds }, (req) =>
    listRefunds(deps, req.ctx, { recordId: req.query.record_id, ...createdRange(req.query) }, page(req.query)))
  app.get<{ Params: { id: string } }>('/refunds/:id', { schema: GetRefund }, (req) => getRefund(deps, req.ctx, req.params.id))
}
