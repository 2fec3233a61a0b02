/** Change password: the current one again, then every other session of the merchant is signed out. */
import type { FastifyPluginAsync } from 'fastify'
import { TillError } from '../../domain/errors.js'
import { changePassword } from '../../services/console-auth.js'
import type { Deps } from '../../services/deps.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { consoleContext, field, type ModeParams } from '../context.js'
import { PasswordPage } from './view.js'

export const passwordRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: { done?: string } }>('/:mode/password', async (req, reply) => {
    const c = consoleContext(req, reply, '/password')
    return sendHtml(reply, 200, PasswordPage({ c, error: null, done: req.query.done !== undefined }))
  })

  app.post<ModeParams>('/:mode/password', async (req, reply) => {
    const c = consoleContext(req, reply, '/password')
    try {
      const result = await changePassword(deps, req.consoleSession!, field(req.body, 'current'), field(req.body, 'password'), req.ip, req.headers['user-agent'])
      if (result === 'invalid') return sendHtml(reply, 400, PasswordPage({ c, error: c.t('password.wrong'), done: false }))
      if (result === 'throttled') return sendHtml(reply, 429, PasswordPage({ c, error: c.t('password.throttled'), done: false }))
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      return sendHtml(reply, 400, PasswordPage({ c, error: e.message, done: false }))
    }
    return seeOther(reply, `/console/${c.mode}/password?done=1`)
  })
}
