import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { getRefund, listRefunds } from '../../services/lists.js'
import { createRefund } from '../../services/refunds.js'
import { createdRange, page } from '../list-query.js'
import { answerOnce } from '../plugins/idempotency.js'
import { CreateRefund, GetRefund, ListRefunds, type RefundBodyT, type RefundListQueryT } from './schema.js'

export const refundRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  // The key is claimed with the reservation and answered with the settlement (services/idempotency.ts).
  app.post<{ Body: RefundBodyT }>('/refunds', { schema: CreateRefund, config: { keyWithWork: true } }, (req, reply) =>
    answerOnce(deps, req, reply, (once) => createRefund(deps, req.ctx, req.body, once)))
  app.get<{ Querystring: RefundListQueryT }>('/refunds', { schema: ListRefunds }, (req) =>
    listRefunds(deps, req.ctx, { recordId: req.query.record_id, ...createdRange(req.query) }, page(req.query)))
  app.get<{ Params: { id: string } }>('/refunds/:id', { schema: GetRefund }, (req) => getRefund(deps, req.ctx, req.params.id))
}
