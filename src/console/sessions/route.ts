/** Console sessions: a member sees and ends theirs; an owner (members permission) sees and ends anyone's. */
import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { endSession, sessionsOf } from '../../services/members.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { consoleContext, field, type ModeParams } from '../context.js'
import { permits } from '../permissions.js'
import { SessionsPage } from './view.js'

export const sessionRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: { ended?: string } }>('/:mode/sessions', async (req, reply) => {
    const c = consoleContext(req, reply, '/sessions')
    const everyone = permits(req, 'members')
    const sessions = await sessionsOf(deps, req.consoleSession!, everyone)
    return sendHtml(reply, 200, SessionsPage({ c, sessions, everyone, ended: req.query.ended !== undefined }))
  })

  app.post<ModeParams>('/:mode/sessions/end', async (req, reply) => {
    const c = consoleContext(req, reply, '/sessions')
    await endSession(deps, { s: req.consoleSession!, ip: req.ip, userAgent: req.headers['user-agent'] }, field(req.body, 'session'), permits(req, 'members'))
    return seeOther(reply, `/console/${c.mode}/sessions?ended=1`)
  })
}
