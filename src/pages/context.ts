/** What every page knows about its request: the customer's language, and its strings. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { pageLocale } from '../web/locale.js'
import { translator } from './i18n/index.js'
import type { PageContext } from './views/layout.js'

/** `chosen`: the session's own `locale`, on its pages. */
export function pageContext(req: FastifyRequest, reply: FastifyReply, chosen?: string | null): PageContext {
  const locale = pageLocale(req, reply, chosen)
  return { locale, t: translator(locale) }
}
