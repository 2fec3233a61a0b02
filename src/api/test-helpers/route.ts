/** Test helpers: test keys only; a live key gets a 404 that says it needs a test key. */
import type { FastifyPluginAsync } from 'fastify'
import { TestModeOnly } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import * as helpers from '../../services/test-helpers.js'
import { PaySession, RefundAction, SessionAction, type PayBodyT } from './schema.js'

type Id = { Params: { id: string } }

export const testHelperRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.addHook('preHandler', async (req) => {
    if (req.ctx.mode !== 'test') throw new TestModeOnly()
  })
  app.post<Id & { Body: PayBodyT | undefined }>('/test_helpers/sessions/:id/pay', { schema: PaySession }, (req) =>
    helpers.paySession(deps, req.ctx, req.params.id, req.body?.refundBehavior, req.body?.dispute))
  app.post<Id>('/test_helpers/sessions/:id/fail', { schema: SessionAction('Test mode: fail a session\'s payment', 'failed') }, (req) =>
    helpers.failSession(deps, req.ctx, req.params.id))
  app.post<Id>('/test_helpers/sessions/:id/cancel', { schema: SessionAction('Test mode: cancel a session as the customer would', 'canceled') }, (req) =>
    helpers.cancelSessionHelper(deps, req.ctx, req.params.id))
  app.post<Id>('/test_helpers/sessions/:id/expire', { schema: SessionAction('Test mode: expire a session now', 'expired') }, (req) =>
    helpers.expireSessionHelper(deps, req.ctx, req.params.id))
  app.post<Id>('/test_helpers/refunds/:id/succeed', { schema: RefundAction('Test mode: settle a pending refund as succeeded') }, (req) =>
    helpers.settleRefundHelper(deps, req.ctx, req.params.id, 'succeeded'))
  app.post<Id>('/test_helpers/refunds/:id/fail', { schema: RefundAction('Test mode: settle a pending refund as failed') }, (req) =>
    helpers.settleRefundHelper(deps, req.ctx, req.params.id, 'failed'))
}
