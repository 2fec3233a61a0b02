/** What every console route knows about its request: the signed-in merchant, the mode, the language. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Mode } from '../domain/checkout-rules.js'
import { NotFound } from '../domain/errors.js'
import type { ConsoleSession } from '../services/console-auth.js'
import { brandingOf } from '../services/merchant-settings.js'
import { timeZone } from '../web/i18n.js'
import { cookie, pageLocale, TZ_COOKIE } from '../web/locale.js'
import { consoleTranslator } from './i18n/index.js'
import { permits } from './permissions.js'
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
    zone: timeZone(cookie(req, TZ_COOKIE)) ?? 'UTC',
    t: consoleTranslator(locale),
    path,
    mode,
    csrf: s.csrfToken,
    merchantName: brandingOf(s.merchant).name,
    email: s.member.email,
    can: (permission) => permits(req, permission),
  }
}

/** The (merchant, mode) every lookup of this request is scoped by. */
export const scopeOf = (c: ConsoleContext, req: FastifyRequest) => ({ merchantId: req.consoleSession!.merchant.id, mode: c.mode })

export function field(body: unknown, name: string): string {
  const v = (body as Form | undefined)?.[name]
  return typeof v === 'string' ? v : ''
}

/** Who to name in the activity log (the member), and from where. */
export const actorOf = (req: FastifyRequest) => {
  const { member } = req.consoleSession!
  return { actor: member.email, memberId: member.id, ip: req.ip, userAgent: req.headers['user-agent'] }
}
