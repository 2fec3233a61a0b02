import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { getRecord, listRecords } from '../../services/lists.js'
import { createdRange, page } from '../list-query.js'
import { S, type RecordListQueryT } from './schema.js'

export const recordRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Querystring: RecordListQueryT }>('/records', { schema: S.list }, (req) =>
    listRecords(deps, req.ctx, { sessionId: req.query.session_id, status: req.query.status, ...createdRange(req.query) }, page(req.query)))
  app.get<{ Params: { id: string } }>('/records/:id', { schema: S.get }, (req) => getRecord(deps, req.ctx, req.params.id))
}
