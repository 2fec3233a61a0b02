/**
 * Payments of the selected mode: the list (services/lists.ts, the API's own: keyset pages, newest
 * first, status/date filters, search by id or metadata value) and a payment's page, whose refund
 * form posts to ./refund.ts.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { InvalidField } from '../../domain/errors.js'
import { sessionTimeline } from '../../services/activity.js'
import { secondPayments } from '../../services/discrepancies.js'
import { sessionEmails } from '../../services/emails.js'
import type { Deps } from '../../services/deps.js'
import { recordDisputes } from '../../services/disputes.js'
import { getRecord, listSessions, readSession } from '../../services/lists.js'
import { listProviderConfigs } from '../../services/provider-configs.js'
import { sendHtml } from '../../web/html.js'
import { consoleContext, scopeOf, type ModeParams } from '../context.js'
import type { ConsoleContext } from '../views/layout.js'
import { readListQuery, type ListQuery } from './filters.js'
import { PaymentPage, PaymentsPage, type EmptyList } from './view.js'

export type IdParams = { Params: { mode: string; id: string } }
export const PAGE_SIZE = 25

/** A payment's page: the session, its record and refunds, its events, and the refund form (with `o`'s error and values when a post was refused). */
export async function paymentPage(deps: Deps, req: FastifyRequest<IdParams>, reply: FastifyReply, c: ConsoleContext, o: { status?: number; error?: string; refundId?: string; amount?: string; reason?: string } = {}) {
  const scope = scopeOf(c, req)
  const session = await readSession(deps, scope, req.params.id)
  const record = session.record ? await getRecord(deps, scope, session.record.id) : null
  const disputes = record ? await recordDisputes(deps, scope, record.id) : []
  const events = await sessionTimeline(deps, scope, session.id)
  const paidTwice = await secondPayments(deps, scope, session.id)
  const emails = await sessionEmails(deps, session.id)
  return sendHtml(reply, o.status ?? 200, PaymentPage({
    c,
    session,
    record,
    disputes,
    events,
    paidTwice,
    emails,
    idempotencyKey: randomBytes(18).toString('base64url'),
    error: o.error ?? null,
    refundId: o.refundId ?? null,
    amount: o.amount ?? '',
    reason: o.reason ?? '',
  }))
}

/** What an empty first page of the list should tell the merchant to do (see EmptyList). */
async function whyEmpty(deps: Deps, c: ConsoleContext, merchantId: string, query: ListQuery): Promise<EmptyList> {
  if (Object.values(query).some((v) => v)) return 'filtered'
  if (c.mode === 'test') return 'test'
  const configs = await listProviderConfigs(deps, merchantId)
  return configs.some((p) => p.enabled) ? 'live' : 'connect'
}

export const paymentRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: Record<string, unknown> }>('/:mode/payments', async (req, reply) => {
    const c = consoleContext(req, reply, '/payments')
    const read = readListQuery(req.query)
    if (read.refused) {
      return sendHtml(reply, 400, PaymentsPage({ c, sessions: [], hasMore: false, query: read.query, paged: false, error: c.t(read.refused.key, read.refused.vars), empty: null }))
    }
    const { after, ...filters } = read.filters
    let page
    try {
      page = await listSessions(deps, scopeOf(c, req), filters, { limit: PAGE_SIZE, startingAfter: after })
    } catch (e) {
      // A cursor from another mode or a stale link: start from the newest.
      if (!(e instanceof InvalidField)) throw e
      page = { data: [], hasMore: false }
    }
    const empty = page.data.length === 0 && after === undefined ? await whyEmpty(deps, c, req.consoleSession!.merchant.id, read.query) : null
    return sendHtml(reply, 200, PaymentsPage({ c, sessions: page.data, hasMore: page.hasMore, query: read.query, paged: after !== undefined, error: null, empty }))
  })

  app.get<IdParams & { Querystring: { refund?: string } }>('/:mode/payments/:id', async (req, reply) => {
    const c = consoleContext(req, reply, `/payments/${req.params.id}`)
    return paymentPage(deps, req, reply, c, { refundId: req.query.refund })
  })
}
