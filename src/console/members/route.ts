/** The team page and its actions (owner only; console/permissions.ts). A refused change re-renders the page with why. */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { TillError } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import * as members from '../../services/members.js'
import { makeReset } from '../../services/password-reset.js'
import { membersWithSecondFactor } from '../../services/second-factor.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { consoleContext, field, type ModeParams } from '../context.js'
import type { ConsoleContext } from '../views/layout.js'
import { MembersPage, type MembersView } from './view.js'

type IdParams = { Params: { mode: string; id: string } }

export const memberRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const who = (req: FastifyRequest) => ({ s: req.consoleSession!, ip: req.ip, userAgent: req.headers['user-agent'] })

  async function page(req: FastifyRequest, reply: FastifyReply, c: ConsoleContext, status: number, extra: Partial<MembersView> = {}) {
    const { members: list, invitations } = await members.team(deps, req.consoleSession!.merchant.id)
    const secondFactors = await membersWithSecondFactor(deps, req.consoleSession!.merchant.id)
    return sendHtml(reply, status, MembersPage({ c, me: req.consoleSession!.member.id, members: list, invitations, secondFactors, ...extra }))
  }

  /** Runs a change; a refusal (4xx) shows the page again with its reason, anything else is the error page's. */
  async function act(req: FastifyRequest, reply: FastifyReply, change: () => Promise<unknown>, then?: string) {
    const c = consoleContext(req, reply, '/members')
    try {
      await change()
    } catch (e) {
      if (!(e instanceof TillError) || e.status === 404 || e.status >= 500) throw e
      return page(req, reply, c, e.status, { error: e.message })
    }
    return seeOther(reply, then ?? `/console/${c.mode}/members?saved=1`)
  }

  app.get<ModeParams & { Querystring: { saved?: string } }>('/:mode/members', async (req, reply) => {
    const c = consoleContext(req, reply, '/members')
    return page(req, reply, c, 200, { notice: req.query.saved !== undefined ? c.t('members.saved') : null })
  })

  app.post<ModeParams>('/:mode/members/invite', async (req, reply) => {
    const c = consoleContext(req, reply, '/members')
    try {
      const r = await members.invite(deps, who(req), { email: field(req.body, 'email'), role: field(req.body, 'role'), locale: c.locale })
      return page(req, reply, c, 200, r.mailed ? { notice: c.t('members.inviteSent', { email: r.email }) } : { link: { email: r.email, url: r.link } })
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      return page(req, reply, c, 400, { error: e.message })
    }
  })

  // A reset link for a member: mailed to them, or (no SMTP) shown once for the owner to hand over.
  app.post<IdParams>('/:mode/members/:id/reset', async (req, reply) => {
    const c = consoleContext(req, reply, '/members')
    const r = await makeReset(deps, who(req), req.params.id, c.locale)
    return page(req, reply, c, 200, r.mailed ? { notice: c.t('members.resetSent', { email: r.email }) } : { link: { email: r.email, url: r.link, kind: 'reset' } })
  })

  app.post<ModeParams>('/:mode/members/invitations/withdraw', async (req, reply) =>
    act(req, reply, () => members.withdrawInvitation(deps, who(req), field(req.body, 'invitation'))))

  app.post<IdParams>('/:mode/members/:id/role', async (req, reply) =>
    act(req, reply, () => members.changeRole(deps, who(req), req.params.id, field(req.body, 'role'))))

  // Leaving ends one's own session too: then back to the sign-in page.
  app.post<IdParams>('/:mode/members/:id/remove', async (req, reply) =>
    act(req, reply, () => members.removeMember(deps, who(req), req.params.id), req.params.id === req.consoleSession!.member.id ? '/console/login?notice=signed-out' : undefined))

  app.post<IdParams>('/:mode/members/:id/transfer', async (req, reply) =>
    act(req, reply, () => members.transferOwnership(deps, who(req), req.params.id)))
}
