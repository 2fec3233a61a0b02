/**
 * Reconciliation of the selected mode (docs/reconciliation.md, docs/console.md): the days with their
 * counts per category, a day's mismatches with both sides, re-check (the day run again now, through
 * services/reconciliation.ts as the admin API runs it), acknowledge with a note (in the activity
 * log), a day's items as CSV, and the statement's kept files as the provider sent them.
 */
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { Conflict, NotFound, TillError } from '../../domain/errors.js'
import { ITEM_CATEGORIES, type ItemCategory } from '../../domain/reconciliation.js'
import { recordActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { listProviderConfigs } from '../../services/provider-configs.js'
import { configOfStatement, runDayNow } from '../../services/reconciliation.js'
import { acknowledgeItem, getReport, listItems, listReports, reportFileBody, reportFiles, reportItems } from '../../services/reconciliation-reports.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, scopeOf, type ModeParams } from '../context.js'
import type { ConsoleContext } from '../views/layout.js'
import { csvLines } from './csv.js'
import { DayPage, DaysPage } from './view.js'

type IdParams = { Params: { mode: string; id: string } }
type Query = { Querystring: { after?: string; category?: string; notice?: string } }
const DAYS_PAGE = 30
const ITEMS_PAGE = 50
const NOTE_MAX = 500

const isCategory = (v: unknown): v is ItemCategory => (ITEM_CATEGORIES as readonly unknown[]).includes(v)

/** The merchant's configurations' labels by id, to name a report's. */
async function labels(deps: Deps, merchantId: string) {
  return new Map((await listProviderConfigs(deps, merchantId)).map((p) => [p.id, p.label]))
}

export const reconciliationRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & Query>('/:mode/reconciliation', async (req, reply) => {
    const c = consoleContext(req, reply, '/reconciliation')
    const scope = scopeOf(c, req)
    const after = req.query.after
    const page = await listReports(deps, scope, {}, { limit: DAYS_PAGE, startingAfter: after }).catch((e) => {
      // A cursor from another mode or a stale link: start from the newest.
      if (e instanceof TillError && e.status === 400) return { data: [], hasMore: false }
      throw e
    })
    return sendHtml(reply, 200, DaysPage({ c, reports: page.data, hasMore: page.hasMore, paged: after !== undefined, labels: await labels(deps, scope.merchantId) }))
  })

  async function dayPage(req: FastifyRequest<IdParams & Query>, reply: FastifyReply, c: ConsoleContext, o: { status?: number; error?: string } = {}) {
    const scope = scopeOf(c, req)
    const report = await getReport(deps, scope, req.params.id)
    const category = isCategory(req.query.category) ? req.query.category : undefined
    const items = await listItems(deps, scope, { reportId: report.id, category }, { limit: ITEMS_PAGE, startingAfter: req.query.after }).catch((e) => {
      if (e instanceof TillError && e.status === 400) return { data: [], hasMore: false }
      throw e
    })
    const notice = req.query.notice === 'rechecked' || req.query.notice === 'acknowledged' ? req.query.notice : null
    return sendHtml(reply, o.status ?? 200, DayPage({
      c, report, items: items.data, hasMore: items.hasMore, category: category ?? null, paged: req.query.after !== undefined,
      label: (await labels(deps, scope.merchantId)).get(report.providerConfigId) ?? '', notice, error: o.error ?? null,
      files: await reportFiles(deps, report.id),
    }))
  }

  app.get<IdParams & Query>('/:mode/reconciliation/:id', async (req, reply) => dayPage(req, reply, consoleContext(req, reply, `/reconciliation/${req.params.id}`)))

  app.post<IdParams & Query>('/:mode/reconciliation/:id/recheck', async (req, reply) => {
    const c = consoleContext(req, reply, `/reconciliation/${req.params.id}`)
    const scope = scopeOf(c, req)
    const { statement, config } = await configOfStatement(deps, scope, req.params.id)
    try {
      await runDayNow(deps, config, statement.day)
    } catch (e) {
      if (!(e instanceof Conflict) && !(e instanceof TillError && e.status === 400)) throw e
      return dayPage(req, reply, c, { status: e.status, error: e.message })
    }
    await recordActivity(deps, { merchantId: scope.merchantId, mode: c.mode, ...actorOf(req), action: 'reconciliation_rechecked', subject: statement.id, detail: { date: statement.day, provider: statement.provider, label: config.label } })
    return seeOther(reply, `/console/${c.mode}/reconciliation/${statement.id}?notice=rechecked`)
  })

  app.post<{ Params: { mode: string; id: string; itemId: string } } & Query>('/:mode/reconciliation/:id/items/:itemId/acknowledge', async (req, reply) => {
    const c = consoleContext(req, reply, `/reconciliation/${req.params.id}`)
    const scope = scopeOf(c, req)
    const note = field(req.body, 'note').trim()
    if (!note || note.length > NOTE_MAX) return dayPage(req, reply, c, { status: 400, error: c.t('recon.noteNeeded', { max: String(NOTE_MAX) }) })
    const actor = actorOf(req)
    const { item, acknowledged } = await acknowledgeItem(deps, scope, req.params.id, req.params.itemId, actor.actor, note)
    if (acknowledged) await recordActivity(deps, {
      merchantId: scope.merchantId, mode: c.mode, ...actor, action: 'mismatch_acknowledged', subject: item.id,
      detail: { reportId: item.statementId, category: item.category, key: item.key, note },
    })
    return seeOther(reply, `/console/${c.mode}/reconciliation/${req.params.id}?notice=acknowledged`)
  })

  app.get<IdParams>('/:mode/reconciliation/:id/export.csv', async (req, reply) => {
    const c = consoleContext(req, reply, `/reconciliation/${req.params.id}`)
    const report = await getReport(deps, scopeOf(c, req), req.params.id)
    const name = `reconciliation-${report.date}-${report.provider}-${report.providerConfigId}.csv`
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(csvLines(report, reportItems(deps, report.id))))
  })

  app.get<{ Params: { mode: string; id: string; name: string } }>('/:mode/reconciliation/:id/files/:name', async (req, reply) => {
    const c = consoleContext(req, reply, `/reconciliation/${req.params.id}`)
    const report = await getReport(deps, scopeOf(c, req), req.params.id)
    const file = (await reportFiles(deps, report.id)).find((f) => f.name === req.params.name)
    if (!file) throw new NotFound()
    // Streamed from the store a chunk at a time: a statement of megabytes is never held whole.
    const name = `statement-${report.date}-${report.provider}-${file.name}`.replace(/[^\w.-]/g, '_')
    return reply.type(file.type).header('content-length', file.size).header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(reportFileBody(deps, report.id, file.name)))
  })
}
