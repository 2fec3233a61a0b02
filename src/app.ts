/** buildApp(deps): every scope registered explicitly; tests build the very same app. */
import rateLimit from '@fastify/rate-limit'
import { sql } from 'drizzle-orm'
import Fastify, { type FastifyInstance } from 'fastify'
import { createHash } from 'node:crypto'
import { adminRoutes } from './api/admin/route.js'
import { checkoutRoutes } from './api/checkout/route.js'
import { hookRoutes } from './api/hooks/route.js'
import { openApiRoute, registerOpenApi } from './api/openapi.js'
import { registerKeyAuth } from './api/plugins/auth.js'
import { registerJsonErrors } from './api/plugins/errors.js'
import { registerIdempotency } from './api/plugins/idempotency.js'
import { validatorCompiler } from './api/plugins/validation.js'
import { refundRoutes } from './api/refunds/route.js'
import { sessionRoutes } from './api/sessions/route.js'
import { testHelperRoutes } from './api/test-helpers/route.js'
import { NotFound, RateLimited } from './domain/errors.js'
import { randomBase62 } from './domain/ids.js'
import type { Deps } from './services/deps.js'

export const BODY_LIMIT = 64 * 1024

export interface AppOptions {
  logger?: boolean | object
}

export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    genReqId: () => `req_${randomBase62(20)}`,
    return503OnClosing: true,
    forceCloseConnections: false,
  })
  app.setValidatorCompiler(validatorCompiler)
  registerJsonErrors(app)
  app.setNotFoundHandler(() => {
    throw new NotFound()
  })
  app.addHook('onRequest', async (req, reply) => {
    reply.header('Request-Id', req.id)
  })

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await deps.db.execute(sql`select 1`)
      return { status: 'ready' }
    } catch {
      return reply.code(503).send({ status: 'unavailable', error: 'database unreachable' })
    }
  })

  await registerOpenApi(app, deps.config.baseUrl)
  await app.register(async (api) => {
    await api.register(openApiRoute)
    await api.register(async (authed) => {
      registerKeyAuth(authed, deps)
      await authed.register(rateLimit, {
        max: deps.config.rateLimitPerSecond,
        timeWindow: 1000,
        keyGenerator: (req) => createHash('sha256').update(req.headers.authorization ?? req.ip).digest('base64url'),
        errorResponseBuilder: (_req, ctx) => new RateLimited(Math.max(1, Math.ceil(ctx.ttl / 1000))),
      })
      registerIdempotency(authed, deps)
      await authed.register(checkoutRoutes(deps))
      await authed.register(sessionRoutes(deps))
      await authed.register(refundRoutes(deps))
      await authed.register(testHelperRoutes(deps))
    })
  }, { prefix: '/api/v1' })

  if (deps.config.adminToken) await app.register(adminRoutes(deps, deps.config.adminToken), { prefix: '/admin/v1' })
  await app.register(hookRoutes(deps))

  deps.deliverNotification = async (path, body, headers) => {
    const res = await app.inject({ method: 'POST', url: path, payload: body, headers })
    return { status: res.statusCode, body: res.body }
  }
  return app
}
