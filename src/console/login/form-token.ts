/**
 * The CSRF guard of the forms shown before signing in (sign-in, "Forgot password?"): a random nonce
 * in a cookie and its HMAC in the form, so another site cannot post them in the browser's name.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { cookie } from '../../web/locale.js'
import { field } from '../context.js'

const LOGIN_COOKIE = 'till_console_login'

export function cookieFlags(deps: Deps) {
  return `Path=/console; HttpOnly; SameSite=Lax${deps.config.baseUrl.startsWith('https:') ? '; Secure' : ''}`
}

export function signedOutForm(deps: Deps) {
  const key = deps.box.derive('console-login-form')
  const formToken = (nonce: string) => createHmac('sha256', key).update(nonce).digest('base64url')
  return {
    /** The form's token for the browser's nonce, made (and set) when it has none. */
    tokenFor(req: FastifyRequest, reply: FastifyReply) {
      const existing = cookie(req, LOGIN_COOKIE)
      if (existing && /^[\w-]{20,64}$/.test(existing)) return formToken(existing)
      const nonce = randomBytes(24).toString('base64url')
      reply.header('Set-Cookie', `${LOGIN_COOKIE}=${nonce}; ${cookieFlags(deps)}`)
      return formToken(nonce)
    },
    /** Whether the posted form carries the token of the browser's nonce. */
    valid(req: FastifyRequest) {
      const nonce = cookie(req, LOGIN_COOKIE)
      const given = Buffer.from(field(req.body, 'token'))
      const expected = nonce ? Buffer.from(formToken(nonce)) : null
      return !!expected && given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}
