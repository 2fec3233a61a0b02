/** The activity log of the selected mode (and what has no mode: sign-ins, settings), newest first. */
import type { FastifyPluginAsync } from 'fastify'
import { listActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { sendHtml } from '../../web/html.js'
import { consoleContext, type ModeParams } from '../context.js'
import { ActivityPage } from './view.js'

export const activityRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: { before?: string } }>('/:mode/activity', async (req, reply) => {
    const c = consoleContext(req, reply, '/activity')
    const before = /^\d{1,18}$/.test(req.query.before ?? '') ? Number(req.query.before) : undefined
    const { rows, hasMore } = await listActivity(deps, req.consoleSession!.merchant.id, c.mode, { limit: 50, before })
    return sendHtml(reply, 200, ActivityPage({ c, rows, next: hasMore ? rows[rows.length - 1].id : null, paged: before !== undefined }))
  })
}
