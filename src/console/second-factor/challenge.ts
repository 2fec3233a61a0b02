/** /console/second-factor: after the password, the code (or a recovery code) that makes the session usable. */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { checkSecondFactor } from '../../services/second-factor.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator, type ConsoleKey } from '../i18n/index.js'
import { safeNext } from '../login/route.js'
import { ChallengePage } from './view.js'

export const challengeRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  function page(req: FastifyRequest, reply: FastifyReply, status: number, next: string | null, error?: ConsoleKey) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    return sendHtml(reply, status, ChallengePage({ locale, t, csrf: req.consoleSession!.csrfToken, next, error: error ? t(error) : null }))
  }

  app.get<{ Querystring: { next?: string } }>('/second-factor', async (req, reply) => {
    const next = safeNext(req.query.next)
    if (!req.secondFactor!.enrolled) return seeOther(reply, next ?? '/console/test/payments')
    return page(req, reply, 200, next)
  })

  // Also the step-up of a form whose files could not be carried (console/second-factor/gate.ts).
  app.post('/second-factor', async (req, reply) => {
    const next = safeNext(field(req.body, 'next'))
    if (!req.secondFactor!.enrolled) return seeOther(reply, next ?? '/console/test/payments')
    const during = req.secondFactor!.state === 'code' ? 'sign_in' : 'step_up'
    const result = await checkSecondFactor(deps, { s: req.consoleSession!, ip: req.ip, userAgent: req.headers['user-agent'] }, field(req.body, 'code'), during)
    if (result === 'ok') return seeOther(reply, next ?? '/console/test/payments')
    return page(req, reply, result === 'throttled' ? 429 : 401, next, result === 'throttled' ? 'security.throttled' : 'security.wrongCode')
  })
}
