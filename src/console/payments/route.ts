/**
 * Payments of the selected mode: the list (services/lists.ts, the API's own: keyset pages, newest
 * first, status/date filters, search by id or metadata value), a payment's page, and Refund through
 * services/refunds.ts, the code path of POST /api/v1/refunds, with an idempotency key minted when the
 * form is rendered: a double click, or a reload of the post, refunds once.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { InvalidField, NotFound, TillError } from '../../domain/errors.js'
import { CURRENCIES, isCurrency } from '../../domain/money.js'
import { recordActivity, sessionTimeline } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { getRecord, listSessions, readSession } from '../../services/lists.js'
import { createRefund } from '../../services/refunds.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, scopeOf, type ModeParams } from '../context.js'
import type { ConsoleContext } from '../views/layout.js'
import { readListQuery } from './filters.js'
import { PaymentPage, PaymentsPage } from './view.js'

type IdParams = { Params: { mode: string; id: string } }
export const PAGE_SIZE = 25
const IDEMPOTENCY = /^[A-Za-z0-9_-]{16,64}$/

/** "12.34" in the currency's major unit → minor units; null for anything else. */
export function parseMajor(text: string, currency: string): number | null {
  if (!isCurrency(currency)) return null
  const { factor } = CURRENCIES[currency]
  const digits = Math.round(Math.log10(factor))
  const m = (digits === 0 ? /^(\d{1,9})$/ : new RegExp(`^(\\d{1,9})(?:[.,](\\d{1,${digits}}))?$`)).exec(text.trim())
  if (!m) return null
  return Number(m[1]) * factor + Number((m[2] ?? '').padEnd(digits, '0') || 0)
}

export const paymentRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: Record<string, unknown> }>('/:mode/payments', async (req, reply) => {
    const c = consoleContext(req, reply, '/payments')
    const read = readListQuery(req.query)
    if (read.refused) {
      return sendHtml(reply, 400, PaymentsPage({ c, sessions: [], hasMore: false, query: read.query, paged: false, error: c.t(read.refused.key, read.refused.vars) }))
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
    return sendHtml(reply, 200, PaymentsPage({ c, sessions: page.data, hasMore: page.hasMore, query: read.query, paged: after !== undefined, error: null }))
  })

  async function paymentPage(req: FastifyRequest<IdParams>, reply: FastifyReply, c: ConsoleContext, o: { status?: number; error?: string; refundId?: string; amount?: string; reason?: string } = {}) {
    const scope = scopeOf(c, req)
    const session = await readSession(deps, scope, req.params.id)
    const record = session.record ? await getRecord(deps, scope, session.record.id) : null
    const events = await sessionTimeline(deps, scope, session.id)
    return sendHtml(reply, o.status ?? 200, PaymentPage({
      c,
      session,
      record,
      events,
      idempotencyKey: randomBytes(18).toString('base64url'),
      error: o.error ?? null,
      refundId: o.refundId ?? null,
      amount: o.amount ?? '',
      reason: o.reason ?? '',
    }))
  }

  app.get<IdParams & { Querystring: { refund?: string } }>('/:mode/payments/:id', async (req, reply) => {
    const c = consoleContext(req, reply, `/payments/${req.params.id}`)
    return paymentPage(req, reply, c, { refundId: req.query.refund })
  })

  app.post<IdParams>('/:mode/payments/:id/refund', async (req, reply) => {
    const c = consoleContext(req, reply, `/payments/${req.params.id}`)
    const scope = scopeOf(c, req)
    const session = await readSession(deps, scope, req.params.id)
    if (!session.record) throw new NotFound()
    const key = field(req.body, 'idempotencyKey')
    if (!IDEMPOTENCY.test(key)) throw new TillError(400, 'missing idempotency key')
    const amountText = field(req.body, 'amount').trim()
    const reason = field(req.body, 'reason').trim()
    let amount: number | undefined
    if (amountText) {
      const parsed = parseMajor(amountText, session.currency)
      if (parsed === null || parsed < 1) {
        return paymentPage(req, reply, c, { status: 400, error: c.t('payments.badAmount', { example: isCurrency(session.currency) && Number(CURRENCIES[session.currency].factor) === 1 ? '500' : '12.50' }), amount: amountText, reason })
      }
      amount = parsed
    }
    const idempotencyKey = `console_${key}`
    let result
    try {
      result = await createRefund(deps, { ...scope, idempotencyKey }, { recordId: session.record.id, amount, reason: reason || undefined })
    } catch (e) {
      if (!(e instanceof TillError) || e.status >= 500 || e.status === 404) throw e
      return paymentPage(req, reply, c, { status: e.status, error: e.message, amount: amountText, reason })
    }
    // Once per refund, however often its form was posted (console_activity_refund_uq).
    await recordActivity(deps, {
      merchantId: scope.merchantId, mode: c.mode, ...actorOf(req), action: 'refund_created', subject: result.refund.id,
      detail: { recordId: result.id, sessionId: session.id, amount: result.refund.amount, currency: result.currency, status: result.refund.status, reason: result.refund.reason },
    })
    return seeOther(reply, `/console/${c.mode}/payments/${session.id}?refund=${result.refund.id}`)
  })
}
