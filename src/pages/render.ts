/** Answering with a page: the request's language, and the document as HTML. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { translator } from './i18n/index.js'
import { pageLocale } from './locale.js'
import { renderDocument, type PageContext } from './views/layout.js'

export function pageContext(req: FastifyRequest, reply: FastifyReply): PageContext {
  const locale = pageLocale(req, reply)
  return { locale, t: translator(locale) }
}

export function sendPage(reply: FastifyReply, status: number, node: { toString(): string | Promise<string> }) {
  return reply.code(status).type('text/html; charset=utf-8').send(renderDocument(node))
}

/** Post/Redirect/Get: every form post ends in a 303 to a page the customer may reload. */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('Location', location).send()
}
