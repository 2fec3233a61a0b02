/**
 * The customer-facing pages as one encapsulated scope: its own form parser, security headers,
 * HTML error and 404 pages, static assets, and the checkout (with its status long poll and
 * a provider's browser-step return), relay and receipt routes.
 */
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { toTillError } from '../api/plugins/errors.js'
import { loggableError } from '../logging.js'
import type { Deps } from '../services/deps.js'
import { errorMessage, sendErrorPage } from '../web/errors.js'
import { setDefaultPageHeaders } from '../web/security.js'
import { assetRoutes } from './assets.js'
import { browserStepRoutes } from './checkout/browser-step.js'
import { checkoutRoutes } from './checkout/route.js'
import { linkRoutes } from './links/route.js'
import { logoRoutes } from './logos/route.js'
import { statusRoutes } from './checkout/status.js'
import { pageContext } from './context.js'
import { receiptRoutes } from './receipt/route.js'
import { relayRoutes } from './relay/route.js'
import { MessagePage } from './views/message.js'

/** Forms carry a token and one or two short fields. */
const FORM_BODY_LIMIT = 4096

function messagePage(req: FastifyRequest, reply: FastifyReply, status: number) {
  const ctx = pageContext(req, reply)
  const [title, body] = errorMessage(status)
  const langSwitch = req.method === 'GET' || req.method === 'HEAD'
  return sendErrorPage(reply, status, MessagePage({ ...ctx, v: { title: ctx.t(title), body: ctx.t(body), langSwitch } }))
}

/** The pages' own 404: HTML in the customer's language, for every unknown path under the prefix. */
const withNotFoundPage = (routes: FastifyPluginAsync): FastifyPluginAsync => async (scope) => {
  scope.setNotFoundHandler((req, reply) => messagePage(req, reply, 404))
  await scope.register(routes)
}

export const pageRoutes = (deps: Deps): FastifyPluginAsync => async (app: FastifyInstance) => {
  // Only urlencoded forms: a JSON or multipart post to a page is 415.
  app.removeAllContentTypeParsers()
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT })

  app.addHook('onRequest', async (_req, reply) => setDefaultPageHeaders(reply))

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = toTillError(err)
    const status = known?.status ?? 500
    if (status >= 500) req.log.error({ err: loggableError(err) }, 'page error')
    return messagePage(req, reply, status)
  })

  // Waiting relays answer at once when the process stops, instead of holding the shutdown for 5 s.
  app.addHook('preClose', async () => {
    await deps.signals.close()
  })
  app.addHook('onClose', async () => {
    await deps.signals.close()
  })

  await app.register(withNotFoundPage(assetRoutes), { prefix: '/assets' })
  await app.register(withNotFoundPage(async (c) => {
    await c.register(checkoutRoutes(deps))
    await c.register(relayRoutes(deps))
    await c.register(statusRoutes(deps))
    await c.register(browserStepRoutes(deps))
  }), { prefix: '/c' })
  await app.register(withNotFoundPage(receiptRoutes(deps)), { prefix: '/r' })
  await app.register(withNotFoundPage(linkRoutes(deps)), { prefix: '/l' })
  await app.register(withNotFoundPage(logoRoutes(deps)), { prefix: '/logos' })
}
