/**
 * Request metrics for every route of the app, and GET /metrics in Prometheus' text format. The route
 * label is the route's pattern (`/api/v1/sessions/:id`), never the raw path, so ids cannot explode
 * the number of series; a path no route matches counts as `unknown`.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bearer } from '../api/plugins/auth.js'
import { TillError } from '../domain/errors.js'
import type { Deps } from '../services/deps.js'
import type { Metrics } from './registry.js'

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Counts one answered request; also called for the router's own refusals, which run no hooks. */
export function observeRequest(metrics: Metrics, req: FastifyRequest, reply: FastifyReply) {
  const labels = { route: req.routeOptions?.url ?? 'unknown', method: req.method, status: String(reply.statusCode) }
  metrics.httpRequests.inc(labels)
  metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
}

export function registerMetrics(app: FastifyInstance, deps: Deps) {
  const { registry } = deps.metrics
  app.addHook('onResponse', async (req, reply) => observeRequest(deps.metrics, req, reply))

  // Volumes and statuses are business information: with METRICS_TOKEN set, only its bearer may read them.
  const token = deps.config.metricsToken ? digest(deps.config.metricsToken) : null
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (token) {
      const given = bearer(req)
      if (!given || !timingSafeEqual(digest(given), token)) throw new TillError(401, 'invalid metrics token')
    }
    const text = await registry.metrics()
    return reply.type(registry.contentType).send(text)
  })
}
