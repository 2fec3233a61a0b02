/** Answering with HTML: a rendered document, or a redirect after a form post. */
import type { FastifyReply } from 'fastify'

/** A whole document as a string. Components here are synchronous, so rendering is too. */
export function renderDocument(node: { toString(): string | Promise<string> }): string {
  const html = node.toString()
  if (typeof html !== 'string') throw new Error('page components must be synchronous')
  return `<!doctype html>${html}`
}

export function sendHtml(reply: FastifyReply, status: number, node: { toString(): string | Promise<string> }) {
  return reply.code(status).type('text/html; charset=utf-8').send(renderDocument(node))
}

/** Post/Redirect/Get: every form post ends in a 303 to a page the reader may reload. */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('Location', location).send()
}
