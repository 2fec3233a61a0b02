/** What every console route knows about its request: the signed-in merchant, the mode, the language. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Mode } from '../domain/checkout-rules.js'
import { NotFound } from '../domain/errors.js'
import { pageLocale } from '../pages/locale.js'
import { renderDocument } from '../pages/views/layout.js'
import type { ConsoleSession } from '../services/console-auth.js'
import { brandingOf } from '../services/merchant-settings.js'
import { consoleTranslator } from './i18n/index.js'
import type { ConsoleContext } from './views/layout.js'

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: ConsoleSession | null
  }
}

export type ModeParams = { Params: { mode: string } }
export type Form = Record<string, unknown>

export const isMode = (v: unknown): v is Mode => v === 'test' || v === 'live'

/** The request's context; `path` is the page below /console/<mode>. */
export function consoleContext(req: FastifyRequest, reply: FastifyReply, path: string): ConsoleContext {
  const s = req.consoleSession!
  const mode = (req.params as { mode?: string }).mode
  if (!isMode(mode)) throw new NotFound()
  const locale = pageLocale(req, reply)
  return {
    locale,
    t: consoleTranslator(locale),
    path,
    mode,
    csrf: s.csrfToken,
    merchantName: brandingOf(s.merchant).name,
    email: s.merchant.email ?? s.merchant.id,
  }
}

/** The (merchant, mode) every lookup of this request is scoped by. */
export const scopeOf = (c: ConsoleContext, req: FastifyRequest) => ({ merchantId: req.consoleSession!.merchant.id, mode: c.mode })

export function sendHtml(reply: FastifyReply, status: number, node: { toString(): string | Promise<string> }) {
  return reply.code(status).type('text/html; charset=utf-8').send(renderDocument(node))
}

/** Post/Redirect/Get, with a notice named in the query (a fixed key, never text from the request). */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('Location', location).send()
}

export function field(body: unknown, name: string): string {
  const v = (body as Form | undefined)?.[name]
  return typeof v === 'string' ? v : ''
}

/** Who to name in the activity log, and from where. */
export const actorOf = (req: FastifyRequest) => ({ actor: req.consoleSession!.merchant.email ?? req.consoleSession!.merchant.id, ip: req.ip })
