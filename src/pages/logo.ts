/** /logos/<merchant>/<hash>: a merchant's logo (console Settings) for the hosted pages, cached by its content hash. */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../services/deps.js'
import { loadLogo } from '../services/merchant-settings.js'

export const logoRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Params: { merchant: string; hash: string } }>('/:merchant/:hash', { schema: { hide: true } }, async (req, reply) => {
    const logo = await loadLogo(deps, req.params.merchant, req.params.hash)
    if (!logo) return reply.callNotFound()
    reply.header('Cache-Control', 'public, max-age=31536000, immutable')
    return reply.type(logo.type).send(logo.body)
  })
}
