/**
 * The merchant console under /console (docs/console.md): server-rendered like the hosted pages, one
 * folder per screen, every action through the services the API uses. This scope owns the form
 * parsers, the security headers, the sign-in session and its CSRF check, and the HTML error pages.
 */
import { timingSafeEqual } from 'node:crypto'
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { toTillError } from '../api/plugins/errors.js'
import { TillError } from '../domain/errors.js'
import { loadConsoleSession } from '../services/console-auth.js'
import type { Deps } from '../services/deps.js'
import { servedAssets } from '../web/assets.js'
import { errorMessage, sendErrorPage } from '../web/errors.js'
import { seeOther } from '../web/html.js'
import { cookie, pageLocale } from '../web/locale.js'
import { setDefaultPageHeaders } from '../web/security.js'
import { activityRoutes } from './activity/route.js'
import { CONSOLE_ASSETS } from './assets.js'
import { isMode } from './context.js'
import { DuplicateField, formFields, UnstorableField } from './form.js'
import { consoleTranslator, type ConsoleT } from './i18n/index.js'
import { keyRoutes } from './keys/route.js'
import { linkRoutes } from './links/route.js'
import { loginRoutes, logoutRoute, SESSION_COOKIE } from './login/route.js'
import { invitationRoutes } from './members/accept.js'
import { memberRoutes } from './members/route.js'
import { passwordRoutes } from './password/route.js'
import { Forbidden, permits, requirePermissions } from './permissions.js'
import { refundRoutes } from './payments/refund.js'
import { forgotRoutes } from './reset/forgot.js'
import { resetRoutes } from './reset/route.js'
import { paymentRoutes } from './payments/route.js'
import { providerRoutes } from './providers/route.js'
import { reconciliationRoutes } from './reconciliation/route.js'
import { challengeRoutes } from './second-factor/challenge.js'
import { admitSession, stepUpRoute } from './second-factor/gate.js'
import { securityRoutes } from './second-factor/security.js'
import { sessionRoutes } from './sessions/route.js'
import { buyerSettingsRoutes } from './settings/buyer.js'
import { refundLimitRoutes } from './settings/refund-limits.js'
import { settingsRoutes } from './settings/route.js'
import { MessagePage } from './views/message.js'
import { webhookRoutes } from './webhooks/route.js'

/** Forms carry PEM keys (a few KiB); the settings form a logo (64 KiB, base64 grows nothing here: multipart is binary). */
const FORM_LIMIT = 32 * 1024
const MULTIPART_LIMIT = 96 * 1024

export class CsrfInvalid extends TillError {
  constructor() {
    super(403, 'invalid form token')
  }
}

/** The error page of `status`; `body` says more than the status's own text when the error can. */
function messagePage(req: FastifyRequest, reply: FastifyReply, status: number, body?: (t: ConsoleT) => string) {
  const locale = pageLocale(req, reply)
  const t = consoleTranslator(locale)
  const [title, text] = errorMessage(status)
  return sendErrorPage(reply, status, MessagePage({ locale, title: t(title), body: body?.(t) ?? t(text), back: t('common.back') }))
}

/** What the page can say about an error beyond its status. */
const explain = (err: unknown) =>
  err instanceof DuplicateField ? (t: ConsoleT) => t('error.duplicateField', { field: err.field.slice(0, 40) })
  : err instanceof UnstorableField ? (t: ConsoleT) => t('error.unstorableField', { field: err.field.slice(0, 40), character: err.character })
  : undefined

/** A file field of a multipart form, as the routes see it. */
export interface UploadedFile {
  filename: string
  bytes: Buffer
}

/** multipart/form-data through the WHATWG parser Node already carries (undici's Request.formData). */
async function multipartEntries(req: FastifyRequest, body: Buffer) {
  const form = await new Request('http://till.invalid/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(body) }).formData()
  const entries: [string, string | UploadedFile][] = []
  for (const [name, value] of form) {
    entries.push([name, typeof value === 'string' ? value : { filename: value.name, bytes: Buffer.from(await value.arrayBuffer()) }])
  }
  return entries
}

function sameToken(given: unknown, expected: string) {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const consoleRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.removeAllContentTypeParsers()
  await app.register(formbody, { bodyLimit: FORM_LIMIT, parser: (text) => formFields(new URLSearchParams(text)) })
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: MULTIPART_LIMIT }, (req, body, done) => {
    multipartEntries(req, body as Buffer)
      .then(formFields, () => { throw new TillError(400, 'malformed form') })
      .then((v) => done(null, v), (e: Error) => done(e, undefined))
  })
  app.decorateRequest('consoleSession', null)
  app.decorateRequest('secondFactor', null)

  app.addHook('onRequest', async (_req, reply) => setDefaultPageHeaders(reply))
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = toTillError(err)?.status ?? (err.statusCode && err.statusCode < 500 ? err.statusCode : 500)
    if (status >= 500) req.log.error({ err }, 'console error')
    return messagePage(req, reply, status, explain(err))
  })
  app.setNotFoundHandler((req, reply) => messagePage(req, reply, 404))

  await app.register(servedAssets(Object.values(CONSOLE_ASSETS), '/console/assets'), { prefix: '/assets' })
  await app.register(loginRoutes(deps))
  await app.register(invitationRoutes(deps))
  await app.register(forgotRoutes(deps))
  await app.register(resetRoutes(deps))

  await app.register(async (authed) => {
    requirePermissions(authed)
    authed.addHook('preHandler', async (req, reply) => {
      const token = cookie(req, SESSION_COOKIE)
      const session = token ? await loadConsoleSession(deps, token) : null
      if (!session) {
        // Back to the page asked for after signing in; a post is not replayed.
        const q = new URLSearchParams()
        if (token) q.set('notice', 'expired')
        if (req.method === 'GET') q.set('next', req.url)
        return seeOther(reply, `/console/login${q.size ? `?${q}` : ''}`)
      }
      req.consoleSession = session
      const mode = (req.params as { mode?: string }).mode
      if (mode !== undefined && !isMode(mode)) return messagePage(req, reply, 404)
      if (!(await admitSession(deps, req, reply))) return reply
      if (req.method === 'POST' && !sameToken((req.body as Record<string, unknown> | undefined)?.csrf, session.csrfToken)) {
        throw new CsrfInvalid()
      }
      if (!permits(req)) throw new Forbidden()
      if (!(await stepUpRoute(deps, req, reply))) return reply
    })
    authed.get('/', async (_req, reply) => seeOther(reply, '/console/test/payments'))
    authed.get<{ Params: { mode: string } }>('/:mode', async (req, reply) => seeOther(reply, `/console/${req.params.mode}/payments`))
    await authed.register(logoutRoute(deps))
    await authed.register(keyRoutes(deps))
    await authed.register(providerRoutes(deps))
    await authed.register(webhookRoutes(deps))
    await authed.register(paymentRoutes(deps))
    await authed.register(refundRoutes(deps))
    await authed.register(reconciliationRoutes(deps))
    await authed.register(settingsRoutes(deps))
    await authed.register(buyerSettingsRoutes(deps))
    await authed.register(activityRoutes(deps))
    await authed.register(passwordRoutes(deps))
    await authed.register(memberRoutes(deps))
    await authed.register(sessionRoutes(deps))
    await authed.register(linkRoutes(deps))
    await authed.register(challengeRoutes(deps))
    await authed.register(securityRoutes(deps))
    await authed.register(refundLimitRoutes(deps))
  })
}
