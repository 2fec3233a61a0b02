/** buildApp(deps): every scope registered explicitly; tests build the very same app. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify'
import { adminRoutes } from './api/admin/route.js'
import { checkoutRoutes } from './api/checkout/route.js'
import { eventRoutes } from './api/events/route.js'
import { hookRoutes } from './api/hooks/route.js'
import { paymentLinkRoutes } from './api/payment-links/route.js'
import { openApiRoute, registerOpenApi } from './api/openapi.js'
import { registerKeyAuth } from './api/plugins/auth.js'
import { clientErrorHandler, registerJsonErrors } from './api/plugins/errors.js'
import { registerIdempotency } from './api/plugins/idempotency.js'
import { registerJsonParser } from './api/plugins/json-depth.js'
import { registerMethodCheck } from './api/plugins/methods.js'
import { validatorCompiler } from './api/plugins/validation.js'
import { recordRoutes } from './api/records/route.js'
import { apiReferenceRoutes } from './api/reference/route.js'
import { refundRoutes } from './api/refunds/route.js'
import { sessionRoutes } from './api/sessions/route.js'
import { testHelperRoutes } from './api/test-helpers/route.js'
import { webhookEndpointRoutes } from './api/webhook-endpoints/route.js'
import { randomBase62 } from './domain/ids.js'
import { requestSerializer } from './logging.js'
import { observeRequest, registerMetrics } from './metrics/route.js'
import { consoleRoutes } from './console/plugin.js'
import { pageRoutes } from './pages/plugin.js'
import type { Deps } from './services/deps.js'
import { databaseState } from './store/health.js'
import { registerRequestTracing } from './tracing/http.js'

export const BODY_LIMIT = 64 * 1024

export interface AppOptions {
  logger?: boolean | object
  /** The process's own logger (src/logging.ts), so requests log in the same format as everything else. */
  loggerInstance?: FastifyBaseLogger
}

export async function buildApp(deps: Deps, opts: AppOptions = {}): Promise<FastifyInstance> {
  const trust = deps.config.trustProxy
  const app = Fastify({
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance.child({}, { serializers: { req: requestSerializer } }) } : { logger: opts.logger ?? false }),
    bodyLimit: BODY_LIMIT,
    clientErrorHandler,
    genReqId: () => `req_${randomBase62(20)}`,
    // The client address (WeChat H5 orders must carry the payer's) behind a reverse proxy: TRUST_PROXY.
    // A hop count is written as proxy-addr's own rule for numbers (Fastify's types take no number).
    trustProxy: typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust,
    // Requests that reach an open connection during a graceful stop are served (with Connection: close),
    // not answered by Fastify's bare 503 that carries no Request-Id; the database closes only after them.
    return503OnClosing: false,
    forceCloseConnections: false,
    // The router's own refusals (a malformed %-escape, an over-long path segment) name no resource:
    // the JSON 404 with its Request-Id, not Fastify's default body.
    frameworkErrors: (_err, req, reply) => {
      (reply as FastifyReply).header('Request-Id', req.id).code(404).send({ error: 'Not found', code: 'not_found' })
      observeRequest(deps.metrics, req, reply as FastifyReply)
    },
  })
  app.setValidatorCompiler(validatorCompiler)
  registerJsonParser(app)
  registerJsonErrors(app)
  const notFound = registerMethodCheck(app)
  app.addHook('onRequest', async (req, reply) => {
    reply.header('Request-Id', req.id)
  })
  registerMetrics(app, deps)
  registerRequestTracing(app)
  // Graceful stop: server.close() only drops connections idle at that instant, so a keep-alive
  // connection whose request was in flight would hold the process open for keepAliveTimeout (72 s).
  // Every answer sent while closing ends its connection instead.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('Connection', 'close')
  })

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const state = await databaseState(deps.db.$client)
    if (state === 'ready') return { status: 'ready' }
    return reply.code(503).send({ status: 'unavailable', error: `database ${state}` })
  })

  await registerOpenApi(app, deps.config.baseUrl)
  await app.register(async (api) => {
    // Bodies are JSON only (docs/integrate.md#create-a-session): anything else is 415, not a string to validate.
    api.removeContentTypeParser('text/plain')
    await api.register(openApiRoute)
    await api.register(async (authed) => {
      registerKeyAuth(authed, deps)
      registerIdempotency(authed, deps)
      await authed.register(checkoutRoutes(deps))
      await authed.register(sessionRoutes(deps))
      await authed.register(refundRoutes(deps))
      await authed.register(recordRoutes(deps))
      await authed.register(testHelperRoutes(deps))
      await authed.register(webhookEndpointRoutes(deps))
      await authed.register(eventRoutes(deps))
      await authed.register(paymentLinkRoutes(deps))
    })
  }, { prefix: '/api/v1' })

  if (deps.config.adminToken) await app.register(adminRoutes(deps, deps.config.adminToken, notFound), { prefix: '/admin/v1' })
  await app.register(apiReferenceRoutes, { prefix: '/docs' })
  await app.register(hookRoutes(deps))
  await app.register(pageRoutes(deps))
  await app.register(consoleRoutes(deps), { prefix: '/console' })
  return app
}
