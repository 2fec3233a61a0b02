/** /r/<record_id>: the receipt. Unknown ids get the 404 page. */
import type { FastifyPluginAsync } from 'fastify'
import { displayAmount, type Currency } from '../../domain/money.js'
import type { Deps } from '../../services/deps.js'
import { loadReceipt } from '../../services/hosted-checkout.js'
import { chargedText } from '../charged.js'
import { sendHtml } from '../../web/html.js'
import { formatTime } from '../../web/i18n.js'
import { pageContext } from '../context.js'
import { ReceiptPage, type ReceiptView } from './view.js'

export const receiptRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<{ Params: { id: string } }>('/:id', async (req, reply) => {
    const { record, merchantName, branding, description, mode, locale } = await loadReceipt(deps, req.params.id)
    const ctx = pageContext(req, reply, locale)
    const currency = record.currency as Currency
    const v: ReceiptView = {
      recordId: record.id,
      testMode: mode === 'test',
      merchantName,
      brand: branding,
      description,
      amount: displayAmount(record.amount, currency, ctx.locale),
      currency,
      charged: chargedText(record, ctx.locale),
      refunded: record.refundedAmount > 0 ? displayAmount(record.refundedAmount, currency, ctx.locale) : null,
      status: record.status as ReceiptView['status'],
      paidAt: formatTime(record.paidAt, ctx.locale, branding?.timeZone),
      paidAtIso: record.paidAt.toISOString(),
    }
    return sendHtml(reply, 200, ReceiptPage({ ...ctx, v }))
  })
}
