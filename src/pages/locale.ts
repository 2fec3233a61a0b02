/** The page language of a request: `?lang=` (remembered in a cookie), then the cookie, then Accept-Language. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isLocale, negotiate, type Locale } from './i18n/index.js'

export const LANG_COOKIE = 'till_lang'

export function cookie(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export function pageLocale(req: FastifyRequest, reply: FastifyReply): Locale {
  const asked = (req.query as Record<string, unknown> | undefined)?.lang
  reply.header('Vary', 'Accept-Language, Cookie')
  if (isLocale(asked)) {
    // Remembered for the redirects and pages that follow (a form post, the relay, the receipt).
    reply.header('Set-Cookie', `${LANG_COOKIE}=${asked}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`)
    return asked
  }
  const remembered = cookie(req, LANG_COOKIE)
  if (isLocale(remembered)) return remembered
  return negotiate(req.headers['accept-language'])
}
