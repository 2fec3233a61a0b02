/**
 * Request metrics for every route of the app, and GET /metrics in Prometheus' text format. The route
 * label is the route's pattern (`/api/v1/sessions/:id`), never the raw path, so ids cannot explode
 * the number of series; a path no route matches counts as `unknown`.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bearer } from '../api/plugins/auth.js'
import { servesThisMachineOnly, type Config } from '../config.js'
import { TillError } from '../domain/errors.js'
import { hostKind } from '../security/private-address.js'
import { withLegacyNames } from './legacy-names.js'
import type { Metrics } from './registry.js'

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Counts one answered request; also called for the router's own refusals, which run no hooks. */
export function observeRequest(metrics: Metrics, req: FastifyRequest, reply: FastifyReply) {
  const labels = { route: req.routeOptions?.url ?? 'unknown', method: req.method, status: String(reply.statusCode) }
  metrics.httpRequests.inc(labels)
  metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
}

/** The warning to log at start when /metrics is open (no METRICS_TOKEN) to others than this machine, else null. */
export function openMetricsWarning(c: Pick<Config, 'host' | 'baseUrl' | 'metricsToken'>): string | null {
  if (c.metricsToken || servesThisMachineOnly(c)) return null
  // On loopback behind a proxy, whoever reaches the proxy's address reaches /metrics.
  const where = hostKind(c.host) === 'loopback' ? c.baseUrl : `HOST ${c.host}`
  return `GET /metrics is open to anyone who reaches ${where}: set METRICS_TOKEN to require a bearer token`
}

export function registerMetrics(app: FastifyInstance, deps: { metrics: Metrics; config: Config }) {
  const { registry } = deps.metrics
  app.addHook('onResponse', async (req, reply) => observeRequest(deps.metrics, req, reply))

  // Volumes and statuses are business information: with METRICS_TOKEN set, only its bearer may read them.
  const token = deps.config.metricsToken ? digest(deps.config.metricsToken) : null
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (token) {
      const given = bearer(req)
      if (!given || !timingSafeEqual(digest(given), token)) throw new TillError(401, 'invalid metrics token')
    }
    const text = withLegacyNames(await registry.metrics())
    return reply.type(registry.contentType).send(text)
  })
}
