/**
 * The Two-factor page of each member (docs/console.md#a-second-factor): begin enrolment (QR code,
 * otpauth URI and the key as text), confirm it with a code and see the ten recovery codes once, turn
 * it off with a fresh code; an owner requires it of every member, and resets a member's.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import type { Deps } from '../../services/deps.js'
import * as secondFactor from '../../services/second-factor.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, type ModeParams } from '../context.js'
import { permits } from '../permissions.js'
import { SecurityPage } from './view.js'

const NOTICES = { disabled: 'security.disabled', saved: 'security.requireSaved' } as const

export const securityRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const who = (req: FastifyRequest) => ({ s: req.consoleSession!, ip: req.ip, userAgent: req.headers['user-agent'] })

  /** The page; `enrolment`: show the one under way, begin a new one, or neither. */
  async function page(req: FastifyRequest, reply: FastifyReply, status: number, o: { enrolment?: 'show' | 'fresh'; error?: string; notice?: string | null; recoveryCodes?: string[] } = {}) {
    const c = consoleContext(req, reply, '/security')
    const s = req.consoleSession!
    const gate = await secondFactor.gateOf(deps, s)
    const begun = o.enrolment && !gate.enrolled ? await secondFactor.enrolment(deps, who(req), o.enrolment === 'fresh') : null
    const svg = begun && (await QRCode.toString(begun.uri, { type: 'svg', margin: 1, width: 220, errorCorrectionLevel: 'M' })).trim()
    return sendHtml(reply, status, SecurityPage({
      c, enrolled: gate.enrolled, required: gate.required, codesLeft: gate.enrolled ? await secondFactor.recoveryCodesLeft(deps, s) : 0,
      enrolment: begun && svg ? { ...begun, svg } : null, recoveryCodes: o.recoveryCodes ?? null, canRequire: permits(req, 'members'),
      error: o.error ?? null, notice: o.notice ?? null,
    }))
  }

  app.get<ModeParams & { Querystring: { notice?: string } }>('/:mode/security', async (req, reply) => {
    const notice = NOTICES[req.query.notice as keyof typeof NOTICES]
    const c = consoleContext(req, reply, '/security')
    // A GET makes no secret: it shows the enrolment under way, if any.
    return page(req, reply, 200, { enrolment: 'show', notice: notice ? c.t(notice) : null })
  })

  app.post<ModeParams>('/:mode/security/enrol', async (req, reply) => page(req, reply, 200, { enrolment: 'fresh' }))

  app.post<ModeParams>('/:mode/security/confirm', async (req, reply) => {
    const c = consoleContext(req, reply, '/security')
    const { result, codes } = await secondFactor.confirmEnrolment(deps, who(req), field(req.body, 'code'))
    if (result === 'ok') return page(req, reply, 200, { recoveryCodes: codes! })
    return page(req, reply, result === 'throttled' ? 429 : 400, { enrolment: 'show', error: c.t(result === 'throttled' ? 'security.throttled' : 'security.wrongCode') })
  })

  app.post<ModeParams>('/:mode/security/disable', async (req, reply) => {
    const c = consoleContext(req, reply, '/security')
    const result = await secondFactor.disableSecondFactor(deps, who(req), field(req.body, 'code'))
    if (result === 'ok') return seeOther(reply, `/console/${c.mode}/security?notice=disabled`)
    return page(req, reply, result === 'throttled' ? 429 : 400, { error: c.t(result === 'throttled' ? 'security.throttled' : 'security.wrongCode') })
  })

  app.post<ModeParams>('/:mode/security/require', async (req, reply) => {
    const c = consoleContext(req, reply, '/security')
    await secondFactor.setRequireSecondFactor(deps, who(req), field(req.body, 'required') === '1')
    return seeOther(reply, `/console/${c.mode}/security?notice=saved`)
  })

  app.post<{ Params: { mode: string; id: string } }>('/:mode/members/:id/second-factor/reset', async (req, reply) => {
    const c = consoleContext(req, reply, '/members')
    try {
      await secondFactor.resetSecondFactor(deps, req.consoleSession!.merchant.id, req.params.id, actorOf(req))
    } catch (e) {
      if (!(e instanceof secondFactor.OwnSecondFactor)) throw e
      // One's own: this page, where it is turned off with a code.
      return page(req, reply, 400, { error: c.t('security.resetOwn') })
    }
    return seeOther(reply, `/console/${c.mode}/members?saved=1`)
  })
}
