/** The activity log of the selected mode (and what has no mode: sign-ins, settings), newest first, filtered by member and action; and its CSV. */
import { Readable } from 'node:stream'
import type { FastifyPluginAsync } from 'fastify'
import { TillError } from '../../domain/errors.js'
import { listActivity, membersEver, recordActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, type ModeParams } from '../context.js'
import { activityCsv } from './export.js'
import { readActivityQuery } from './filter.js'
import { ActivityPage } from './view.js'

const PAGE_SIZE = 50

export const activityRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: Record<string, unknown> }>('/:mode/activity', async (req, reply) => {
    const c = consoleContext(req, reply, '/activity')
    const merchantId = req.consoleSession!.merchant.id
    const read = readActivityQuery(req.query)
    const members = await membersEver(deps, merchantId)
    if (read.refused) {
      return sendHtml(reply, 400, ActivityPage({ c, rows: [], members, query: read.query, next: null, paged: false, error: c.t(read.refused.key, read.refused.vars) }))
    }
    const { rows, hasMore } = await listActivity(deps, { merchantId, mode: c.mode }, read.filter, { limit: PAGE_SIZE, startingAfter: read.before })
    const next = hasMore ? rows[rows.length - 1].id : null
    return sendHtml(reply, 200, ActivityPage({ c, rows, members, query: read.query, next, paged: read.before !== undefined, error: null }))
  })

  app.get<ModeParams & { Querystring: Record<string, unknown> }>('/:mode/activity/export.csv', async (req, reply) => {
    const c = consoleContext(req, reply, '/activity')
    const merchantId = req.consoleSession!.merchant.id
    const read = readActivityQuery(req.query)
    if (read.refused) throw new TillError(400, c.t(read.refused.key, read.refused.vars))
    // Who took a copy of the log is itself in the log.
    await recordActivity(deps, { merchantId, mode: c.mode, ...actorOf(req), action: 'activity_exported', subject: merchantId, detail: { ...read.filter } })
    const name = `activity-${c.mode}-${deps.clock().toISOString().slice(0, 10)}.csv`
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(activityCsv(deps, c, { merchantId, mode: c.mode }, read.filter)))
  })
}
