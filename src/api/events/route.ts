import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import * as events from '../../services/events.js'
import { S, type ListQueryT, type RedeliverBodyT } from './schema.js'

type Id = { Params: { id: string } }

export const eventRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Querystring: ListQueryT }>('/events', { schema: S.list }, (req) => events.listEvents(deps, req.ctx, req.query))
  app.get<Id>('/events/:id', { schema: S.get }, (req) => events.getEvent(deps, req.ctx, req.params.id))
  app.post<Id & { Body: RedeliverBodyT | undefined }>('/events/:id/redeliver', { schema: S.redeliver }, async (req, reply) =>
    reply.code(202).send(await events.redeliverEvent(deps, req.ctx, req.params.id, req.body ?? {})))
}
