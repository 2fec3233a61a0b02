import type { FastifyPluginAsync } from 'fastify'
import type { PaymentLinkBodyT, PaymentLinkPatchT } from '../../domain/payment-link-resources.js'
import type { Deps } from '../../services/deps.js'
import * as links from '../../services/payment-links.js'
import { page } from '../list-query.js'
import { S, type PaymentLinkListQueryT } from './schema.js'

type Id = { Params: { id: string } }

export const paymentLinkRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<{ Body: PaymentLinkBodyT }>('/payment_links', { schema: S.create }, async (req, reply) =>
    reply.code(201).send(await links.createPaymentLink(deps, req.ctx, req.body)))
  app.get<{ Querystring: PaymentLinkListQueryT }>('/payment_links', { schema: S.list }, (req) => links.listPaymentLinks(deps, req.ctx, page(req.query)))
  app.get<Id>('/payment_links/:id', { schema: S.get }, (req) => links.readPaymentLink(deps, req.ctx, req.params.id))
  app.post<Id & { Body: PaymentLinkPatchT }>('/payment_links/:id', { schema: S.update }, (req) =>
    links.updatePaymentLink(deps, req.ctx, req.params.id, req.body))
}
