import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import * as endpoints from '../../services/webhook-endpoints.js'
import { S, type EndpointBodyT, type EndpointPatchT } from './schema.js'

type Id = { Params: { id: string } }
/** These answers carry the secret: an Idempotency-Key replay keeps it sealed, like the endpoint row. */
const secretAnswer = { sealReplay: true }

export const webhookEndpointRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<{ Body: EndpointBodyT }>('/webhook_endpoints', { schema: S.create, config: secretAnswer }, async (req, reply) =>
    reply.code(201).send(await endpoints.createEndpoint(deps, req.ctx, req.body)))
  app.get('/webhook_endpoints', { schema: S.list }, async (req) => ({ data: await endpoints.listEndpoints(deps, req.ctx) }))
  app.get<Id>('/webhook_endpoints/:id', { schema: S.get }, (req) => endpoints.getEndpoint(deps, req.ctx, req.params.id))
  app.patch<Id & { Body: EndpointPatchT }>('/webhook_endpoints/:id', { schema: S.update }, (req) =>
    endpoints.updateEndpoint(deps, req.ctx, req.params.id, req.body))
  app.delete<Id>('/webhook_endpoints/:id', { schema: S.remove }, (req) => endpoints.deleteEndpoint(deps, req.ctx, req.params.id))
  app.post<Id>('/webhook_endpoints/:id/rotate_secret', { schema: S.rotate, config: secretAnswer }, (req) => endpoints.rotateSecret(deps, req.ctx, req.params.id))
  app.post<Id>('/webhook_endpoints/:id/expire_previous_secrets', { schema: S.expirePrevious }, (req) => endpoints.expirePreviousSecrets(deps, req.ctx, req.params.id))
}
