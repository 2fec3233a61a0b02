import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { listSessions, readSession } from '../../services/lists.js'
import { createdRange, page } from '../list-query.js'
import { closeByMerchant } from '../../services/session-close.js'
import { CancelSession, ExpireSession, GetSession, ListSessions, type SessionListQueryT } from './schema.js'

const METADATA_PARAM = /^metadata\[([^[\]]+)\]$/

/**
 * `metadata[<key>]=<value>` query parameters (OpenAPI's deepObject style) folded into one `metadata`
 * object, before validation, so the schema checks them like any other parameter.
 */
async function foldMetadata(req: FastifyRequest) {
  const q = req.query as Record<string, unknown>
  const pairs = Object.keys(q).flatMap((k) => {
    const m = METADATA_PARAM.exec(k)
    return m ? [[k, m[1]] as const] : []
  })
  if (pairs.length === 0) return
  const metadata: Record<string, unknown> = {}
  for (const [k, name] of pairs) {
    metadata[name] = q[k]
    delete q[k]
  }
  q.metadata = Object.hasOwn(q, 'metadata') ? q.metadata : metadata
}

export const sessionRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Querystring: SessionListQueryT }>('/sessions', { schema: ListSessions, preValidation: foldMetadata }, (req) =>
    listSessions(deps, req.ctx, { status: req.query.status, ...createdRange(req.query), metadata: req.query.metadata }, page(req.query)))
  app.get<{ Params: { id: string } }>('/sessions/:id', { schema: GetSession }, (req) => readSession(deps, req.ctx, req.params.id))
  // Keyed like every POST: the key is claimed before the work and answered with the session (api/plugins/idempotency.ts).
  app.post<{ Params: { id: string } }>('/sessions/:id/cancel', { schema: CancelSession }, (req) => closeByMerchant(deps, req.ctx, req.params.id, 'cancel'))
  app.post<{ Params: { id: string } }>('/sessions/:id/expire', { schema: ExpireSession }, (req) => closeByMerchant(deps, req.ctx, req.params.id, 'expire'))
}
