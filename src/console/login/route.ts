/**
 * /console/login and sign-out. The sign-in form is protected against login CSRF by a random value in
 * a cookie and its HMAC in the form. A wrong password and an unknown email get the very same page.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { signIn, signOut } from '../../services/console-auth.js'
import type { Deps } from '../../services/deps.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { cookie, pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator, type ConsoleKey } from '../i18n/index.js'
import { LoginPage } from './view.js'

export const SESSION_COOKIE = 'till_console'
const LOGIN_COOKIE = 'till_console_login'
const NOTICES = { 'signed-out': 'login.signedOut', expired: 'login.expired', 'password-set': 'login.passwordSet', joined: 'login.joined' } as const

/** Only a console page of this site: nothing that could send the browser elsewhere. */
const safeNext = (v: unknown) => (typeof v === 'string' && /^\/console\/(test|live)(\/[\w\-./?=&%]*)?$/.test(v) && !v.includes('//') && !v.includes('..') ? v : null)

export function cookieFlags(deps: Deps) {
  return `Path=/console; HttpOnly; SameSite=Lax${deps.config.baseUrl.startsWith('https:') ? '; Secure' : ''}`
}

export const loginRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const key = deps.box.derive('console-login-form')
  const formToken = (nonce: string) => createHmac('sha256', key).update(nonce).digest('base64url')

  /** The browser's sign-in nonce, made (and set) when it has none. */
  function nonceOf(req: FastifyRequest, reply: FastifyReply) {
    const existing = cookie(req, LOGIN_COOKIE)
    if (existing && /^[\w-]{20,64}$/.test(existing)) return existing
    const nonce = randomBytes(24).toString('base64url')
    reply.header('Set-Cookie', `${LOGIN_COOKIE}=${nonce}; ${cookieFlags(deps)}`)
    return nonce
  }

  function page(req: FastifyRequest, reply: FastifyReply, status: number, o: { error?: ConsoleKey; notice?: ConsoleKey; email?: string; next?: string | null }) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    const nonce = nonceOf(req, reply)
    return sendHtml(reply, status, LoginPage({ locale, t, token: formToken(nonce), error: o.error ? t(o.error) : null, notice: o.notice ? t(o.notice) : null, email: o.email ?? '', next: o.next ?? null }))
  }

  app.get<{ Querystring: { next?: string; notice?: string } }>('/login', async (req, reply) => {
    const notice = NOTICES[req.query.notice as keyof typeof NOTICES]
    return page(req, reply, 200, { notice, next: safeNext(req.query.next) })
  })

  app.post('/login', async (req, reply) => {
    const nonce = cookie(req, LOGIN_COOKIE)
    const given = Buffer.from(field(req.body, 'token'))
    const expected = nonce ? Buffer.from(formToken(nonce)) : null
    if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
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
