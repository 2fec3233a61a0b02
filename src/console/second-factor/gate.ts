/**
 * The second factor at the door of every signed-in console request (console/plugin.ts): a session
 * that has not passed the member's second factor (half signed in) reaches only the code page and
 * sign-out; a member the merchant requires to have one and who has none reaches only enrolment; and
 * a sensitive action (STEP_UP_ROUTES) asks for the code again when the last check is older than
 * STEP_UP_MS (services/second-factor.ts). Step-up re-shows the action's form, its fields carried,
 * with a code field: confirming posts the same CSRF-protected body again (docs/console.md#step-up).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { checkSecondFactor, gateOf, needsStepUp } from '../../services/second-factor.js'
import { sendHtml, seeOther } from '../../web/html.js'
import { consoleContext } from '../context.js'
import { safeNext } from '../login/route.js'
import { routeOf } from '../permissions.js'
import { StepUpPage } from './view.js'

declare module 'fastify' {
  interface FastifyRequest {
    secondFactor: Awaited<ReturnType<typeof gateOf>> | null
  }
}

/** What a half-signed-in session may do. */
const WHILE_HALF_SIGNED_IN = new Set(['GET /console/second-factor', 'POST /console/second-factor', 'POST /console/logout'])
/** What a member who must enrol may do. */
const WHILE_ENROLLING = new Set(['GET /console/:mode/security', 'POST /console/:mode/security/enrol', 'POST /console/:mode/security/confirm', 'POST /console/logout'])

const isLive = (req: FastifyRequest) => (req.params as { mode?: string }).mode === 'live'
const always = () => true

/** The actions that ask for the second factor again (refunds above the limit ask from their own route). */
export const STEP_UP_ROUTES: Record<string, (req: FastifyRequest) => boolean> = {
  'POST /console/:mode/keys': isLive,
  'POST /console/:mode/providers': always,
  'POST /console/:mode/providers/:id': always,
  'POST /console/:mode/providers/:id/credentials': always,
  'POST /console/:mode/webhooks': always,
  'POST /console/:mode/webhooks/:id/rotate': always,
  'POST /console/:mode/webhooks/:id/expire-previous': always,
  'POST /console/:mode/webhooks/:id/state': always,
  'POST /console/:mode/webhooks/:id/events': always,
  'POST /console/:mode/webhooks/:id/delete': always,
  'POST /console/:mode/members/invite': always,
  'POST /console/:mode/members/invitations/withdraw': always,
  'POST /console/:mode/members/:id/role': always,
  'POST /console/:mode/members/:id/remove': always,
  'POST /console/:mode/members/:id/transfer': always,
  'POST /console/:mode/members/:id/second-factor/reset': always,
  'POST /console/:mode/members/:id/reset': always,
  'POST /console/:mode/security/require': always,
  'POST /console/:mode/settings/refund-limits': always,
}

/** Holds a session that is not fully signed in; false when it answered the request. */
export async function admitSession(deps: Deps, req: FastifyRequest, reply: FastifyReply) {
  const g = await gateOf(deps, req.consoleSession!)
  req.secondFactor = g
  const route = routeOf(req)
  if (g.state === 'code' && !WHILE_HALF_SIGNED_IN.has(route)) {
    const next = req.method === 'GET' ? safeNext(req.url) : null
    seeOther(reply, `/console/second-factor${next ? `?${new URLSearchParams({ next })}` : ''}`)
    return false
  }
  if (g.state === 'enrol' && !WHILE_ENROLLING.has(route)) {
    seeOther(reply, '/console/test/security')
    return false
  }
  return true
}

/** The fields of the form to carry over, and whether it had files (which a page cannot carry). */
function carried(body: unknown) {
  const fields: [string, string][] = []
  let droppedFiles = false
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (name === 'second_factor_code') continue
    for (const v of [value].flat()) {
      if (typeof v === 'string') fields.push([name, v])
      else droppedFiles = true
    }
  }
  return { fields, droppedFiles }
}

/**
 * Asks for the second factor before a sensitive action when the last check is too old: the code in
 * the re-posted form (`second_factor_code`) lets the action through. False when it answered.
 */
export async function stepUpFirst(deps: Deps, req: FastifyRequest, reply: FastifyReply) {
  if (!needsStepUp(deps, req.secondFactor!)) return true
  const c = consoleContext(req, reply, '/security')
  const body = req.body as Record<string, unknown> | undefined
  const code = body?.second_factor_code
  let error: string | null = null
  // The question itself is no error (200); a wrong code is 401, too many 429.
  let status = 200
  if (typeof code === 'string' && code.trim()) {
    const result = await checkSecondFactor(deps, { s: req.consoleSession!, ip: req.ip, userAgent: req.headers['user-agent'] }, code, 'step_up')
    if (result === 'ok') {
      delete body!.second_factor_code
      return true
    }
    error = c.t(result === 'throttled' ? 'security.throttled' : 'security.wrongCode')
    status = result === 'throttled' ? 429 : 401
  }
  const { fields, droppedFiles } = carried(body)
  // A form with files (a provider's) cannot be carried: the code is checked on its own, then back to
  // the form's page (pages send no Referer): the configuration's page, or the provider list.
  const back = safeNext(req.url.replace(/\/credentials$/, '')) ?? `/console/${c.mode}/payments`
  const action = droppedFiles ? '/console/second-factor' : req.url
  const sent = droppedFiles ? [...fields.filter(([n]) => n === 'csrf'), ['next', back] as [string, string]] : fields
  sendHtml(reply, status, StepUpPage({ c, action, fields: sent, droppedFiles, error, codeName: droppedFiles ? 'code' : 'second_factor_code' }))
  return false
}

/** The step-up of the route's own table entry, if it has one. */
export const stepUpRoute = (deps: Deps, req: FastifyRequest, reply: FastifyReply) =>
  STEP_UP_ROUTES[routeOf(req)]?.(req) ? stepUpFirst(deps, req, reply) : true
