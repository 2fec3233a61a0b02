import type { FastifyPluginAsync } from 'fastify'
import { readSession } from '../../services/checkout.js'
import type { Deps } from '../../services/deps.js'
import { GetSession } from './schema.js'

export const sessionRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Params: { id: string } }>('/sessions/:id', { schema: GetSession }, (req) => readSession(deps, req.ctx, req.params.id))
}
