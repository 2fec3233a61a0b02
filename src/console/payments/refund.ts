/**
 * Refund from the console, in two steps that both work without a script: the payment page's form
 * posts here and gets a confirmation (the amount in the currency's major unit and what will remain
 * refundable); its button posts again with `confirm`, and only that calls services/refunds.ts, the
 * code path of POST /api/v1/refunds, with the idempotency key minted when the payment page was
 * rendered: a double click, or a reload of the post, refunds once. An amount over what is left is
 * explained in words, never with the API's message.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound, TillError } from '../../domain/errors.js'
import { CURRENCIES, isCurrency } from '../../domain/money.js'
import { refundable } from '../../domain/refund-math.js'
import { refundUnderLimit } from '../../domain/refund-limits.js'
import { isRole } from '../../domain/console-roles.js'
import { recordActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { getRecord, readSession } from '../../services/lists.js'
import { refundLimitsOf } from '../../services/refund-limits.js'
import { createRefund } from '../../services/refunds.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, scopeOf } from '../context.js'
import { money } from '../format.js'
import { stepUpFirst } from '../second-factor/gate.js'
import type { ConsoleContext } from '../views/layout.js'
import { RefundConfirmPage, type RefundTotals } from './refund-view.js'
import { paymentPage, type IdParams } from './route.js'

const IDEMPOTENCY = /^[A-Za-z0-9_-]{16,64}$/
const MINOR = /^[1-9]\d{0,8}$/

/** "12.34" in the currency's major unit → minor units; null for anything else. */
export function parseMajor(text: string, currency: string): number | null {
  if (!isCurrency(currency)) return null
  const { factor } = CURRENCIES[currency]
  const digits = Math.round(Math.log10(factor))
  const m = (digits === 0 ? /^(\d{1,9})$/ : new RegExp(`^(\\d{1,9})(?:[.,](\\d{1,${digits}}))?$`)).exec(text.trim())
  if (!m) return null
  return Number(m[1]) * factor + Number((m[2] ?? '').padEnd(digits, '0') || 0)
}

/** What was paid, refunded and is being refunded, and what is left: refund-math's rule, on the record as the API shows it. */
function totalsOf(record: { amount: number; refundedAmount: number; currency: string; refunds: { amount: number; status: string }[] }): RefundTotals {
  const pending = record.refunds.filter((f) => f.status === 'pending').reduce((n, f) => n + f.amount, 0)
  return { currency: record.currency, paid: record.amount, refunded: record.refundedAmount, pending, left: refundable(record.amount, record.refundedAmount, pending) }
}

/** Why an amount cannot be refunded, in words: at most what is left, and why that much. */
function overRefund(c: ConsoleContext, x: RefundTotals): string {
  const m = (n: number) => money(n, x.currency, c.locale)
  if (x.left === 0) return c.t('payments.nothingLeft', { paid: m(x.paid) })
  const vars = { refundable: m(x.left), paid: m(x.paid), refunded: m(x.refunded), pending: m(x.pending) }
  return c.t(x.pending > 0 ? 'payments.tooMuchPending' : 'payments.tooMuch', vars)
}

export const refundRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  /** The merchant's refund limit for this member and amount; why not, in words, when it refuses. */
  async function underLimit(req: FastifyRequest, c: ConsoleContext, currency: string, amount: number) {
    const { member, merchant } = req.consoleSession!
    const limits = await refundLimitsOf(deps, merchant.id)
    const verdict = isRole(member.role) ? refundUnderLimit(member.role, limits, currency, amount) : 'refused'
    const why = Object.hasOwn(limits, currency) ? c.t('refundLimits.over', { limit: money(limits[currency], currency, c.locale) }) : c.t('refundLimits.none', { currency })
    return { verdict, why }
  }

  app.post<IdParams>('/:mode/payments/:id/refund', async (req, reply) => {
    const c = consoleContext(req, reply, `/payments/${req.params.id}`)
    const scope = scopeOf(c, req)
    const session = await readSession(deps, scope, req.params.id)
    if (!session.record) throw new NotFound()
    const key = field(req.body, 'idempotencyKey')
    if (!IDEMPOTENCY.test(key)) throw new TillError(400, 'missing idempotency key')
    const reason = field(req.body, 'reason').trim()
    const totalsNow = async () => totalsOf(await getRecord(deps, scope, session.record!.id))
    if (field(req.body, 'confirm') !== '1') return review(req, reply, c, { session, totals: await totalsNow(), key, reason })

    const amountMinor = field(req.body, 'amountMinor')
    if (!MINOR.test(amountMinor)) throw new TillError(400, 'missing amount')
    const limit = await underLimit(req, c, session.currency, Number(amountMinor))
    if (limit.verdict === 'refused') return paymentPage(deps, req, reply, c, { status: 403, error: limit.why, reason })
    // Above the limit: the second factor again, then this same confirmation goes through (gate.ts).
    if (limit.verdict === 'step-up' && !(await stepUpFirst(deps, req, reply))) return reply
    let result
    try {
      result = await createRefund(deps, { ...scope, idempotencyKey: `console_${key}` }, { recordId: session.record.id, amount: Number(amountMinor), reason: reason || undefined })
    } catch (e) {
      if (!(e instanceof TillError) || e.status >= 500 || e.status === 404) throw e
      // Another refund landed between the review and this confirmation: the totals as they are now say why.
      const error = e.code === 'amount_exceeds_refundable' || e.code === 'already_refunded' ? overRefund(c, await totalsNow()) : e.message
      return paymentPage(deps, req, reply, c, { status: e.status, error, reason })
    }
    // Once per refund, however often its form was posted (console_activity_refund_uq).
    await recordActivity(deps, {
      merchantId: scope.merchantId, mode: c.mode, ...actorOf(req), action: 'refund_created', subject: result.refund.id,
      detail: { recordId: result.id, sessionId: session.id, amount: result.refund.amount, currency: result.currency, status: result.refund.status, reason: result.refund.reason },
    })
    return seeOther(reply, `/console/${c.mode}/payments/${session.id}?refund=${result.refund.id}`)
  })

  /** The first post: the amount read and checked against what is left, then the confirmation; nothing is refunded yet. */
  async function review(req: FastifyRequest<IdParams>, reply: FastifyReply, c: ConsoleContext, o: { session: { id: string; currency: string }; totals: RefundTotals; key: string; reason: string }) {
    const amountText = field(req.body, 'amount').trim()
    const again = { amount: amountText, reason: o.reason }
    const amount = amountText ? parseMajor(amountText, o.session.currency) : o.totals.left
    if (amount === null || (amountText && amount < 1)) {
      const example = isCurrency(o.session.currency) && Number(CURRENCIES[o.session.currency].factor) === 1 ? '500' : '12.50'
      return paymentPage(deps, req, reply, c, { status: 400, error: c.t('payments.badAmount', { example }), ...again })
    }
    if (amount < 1 || amount > o.totals.left) return paymentPage(deps, req, reply, c, { status: 400, error: overRefund(c, o.totals), ...again })
    const limit = await underLimit(req, c, o.session.currency, amount)
    if (limit.verdict === 'refused') return paymentPage(deps, req, reply, c, { status: 403, error: limit.why, ...again })
    return sendHtml(reply, 200, RefundConfirmPage({ c, sessionId: o.session.id, totals: o.totals, amount, reason: o.reason, idempotencyKey: o.key }))
  }
}
