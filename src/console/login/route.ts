/**
 * /console/login and sign-out. The sign-in form is protected against login CSRF by a random value in
 * a cookie and its HMAC in the form. A wrong password and an unknown email get the very same page.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { signIn, signOut } from '../../services/console-auth.js'
import type { Deps } from '../../services/deps.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { cookie, pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator, type ConsoleKey } from '../i18n/index.js'
import { cookieFlags, signedOutForm } from './form-token.js'
import { LoginPage } from './view.js'

export const SESSION_COOKIE = 'till_console'
const NOTICES = { 'signed-out': 'login.signedOut', expired: 'login.expired', 'password-set': 'login.passwordSet', joined: 'login.joined', 'password-reset': 'login.passwordReset' } as const

/** Only a console page of this site: nothing that could send the browser elsewhere. */
export const safeNext = (v: unknown) => (typeof v === 'string' && /^\/console\/(test|live)(\/[\w\-./?=&%]*)?$/.test(v) && !v.includes('//') && !v.includes('..') ? v : null)

export const loginRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const form = signedOutForm(deps)

  function page(req: FastifyRequest, reply: FastifyReply, status: number, o: { error?: ConsoleKey; notice?: ConsoleKey; email?: string; next?: string | null }) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    return sendHtml(reply, status, LoginPage({ locale, t, token: form.tokenFor(req, reply), error: o.error ? t(o.error) : null, notice: o.notice ? t(o.notice) : null, email: o.email ?? '', next: o.next ?? null }))
  }

  app.get<{ Querystring: { next?: string; notice?: string } }>('/login', async (req, reply) => {
    const notice = NOTICES[req.query.notice as keyof typeof NOTICES]
    return page(req, reply, 200, { notice, next: safeNext(req.query.next) })
  })

  app.post('/login', async (req, reply) => {
    if (!form.valid(req)) {
      // No (or another site's) form: show a fresh one rather than an error about tokens.
      return page(req, reply, 403, { error: 'error.forbidden.body' })
    }
    const email = field(req.body, 'email')
    const next = safeNext(field(req.body, 'next'))
    const result = await signIn(deps, {
      email,
      password: field(req.body, 'password'),
      ip: req.ip,
      userAgent: req.headers['user-agent'],
      previousToken: cookie(req, SESSION_COOKIE),
    })
    if (!result.ok) {
      return page(req, reply, result.reason === 'throttled' ? 429 : 401, { error: result.reason === 'throttled' ? 'login.throttled' : 'login.invalid', email, next })
    }
    reply.header('Set-Cookie', `${SESSION_COOKIE}=${result.token}; ${cookieFlags(deps)}`)
    return seeOther(reply, next ?? '/console/test/payments')
  })
}

/** Inside the signed-in scope (so it is CSRF-checked): ends this session only. */
export const logoutRoute = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post('/logout', async (req, reply) => {
    await signOut(deps, req.consoleSession!, req.ip, req.headers['user-agent'])
    reply.header('Set-Cookie', `${SESSION_COOKIE}=; ${cookieFlags(deps)}; Max-Age=0`)
    return seeOther(reply, '/console/login?notice=signed-out')
  })
}
