/** The HTML error pages of the pages and the console: which message a status gets, and the answer. */
import type { FastifyReply } from 'fastify'
import { sendHtml } from './html.js'
import { setDefaultPageHeaders } from './security.js'

/** Keys every catalogue with error pages has. */
export type ErrorKey = `error.${'badRequest' | 'forbidden' | 'notFound' | 'server'}.${'title' | 'body'}`

const MESSAGES: Record<number, [ErrorKey, ErrorKey]> = {
  400: ['error.badRequest.title', 'error.badRequest.body'],
  403: ['error.forbidden.title', 'error.forbidden.body'],
  404: ['error.notFound.title', 'error.notFound.body'],
  500: ['error.server.title', 'error.server.body'],
}

/** The title and text of a status's page: its own, or the 400's or the 500's. */
export const errorMessage = (status: number) => MESSAGES[status] ?? (status >= 500 ? MESSAGES[500] : MESSAGES[400])

/** An error page; headers from before the error (a route's own CSP) are replaced by the defaults. */
export function sendErrorPage(reply: FastifyReply, status: number, node: { toString(): string | Promise<string> }) {
  setDefaultPageHeaders(reply)
  return sendHtml(reply, status, node)
}
