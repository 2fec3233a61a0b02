/** Payment links in the console (docs/console.md#pages): the list, a new link, deactivate or activate, and each link's QR code as PNG or SVG. */
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import QRCode from 'qrcode'
import { TillError } from '../../domain/errors.js'
import { fromDecimalText, isCurrency } from '../../domain/money.js'
import { recordActivity } from '../../services/activity.js'
import type { Deps } from '../../services/deps.js'
import { createPaymentLink, listPaymentLinks, readPaymentLink, updatePaymentLink } from '../../services/payment-links.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, scopeOf, type ModeParams } from '../context.js'
import { LinksPage } from './view.js'

type LinkParams = { Params: { mode: string; id: string } }

/** The console shows the newest links; older ones are reached through the API's list. */
const SHOWN = 100
const QR_OPTIONS = { errorCorrectionLevel: 'M' as const, margin: 2, width: 512 }

/** A major-unit amount typed in the form ("25.50"), in minor units; undefined when left empty. */
function typedAmount(body: unknown, name: string, currency: string): number | undefined {
  const text = field(body, name).trim()
  if (text === '') return undefined
  const n = isCurrency(currency) ? fromDecimalText(text.replace(/,/g, ''), currency) : null
  // Not an amount: sent as is, so the service refuses it as it refuses any bad amount.
  return n ?? Number.NaN
}

export const linkRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  async function page(reply: FastifyReply, status: number, c: ReturnType<typeof consoleContext>, merchantId: string, error: string | null, notice: string | null) {
    const { data } = await listPaymentLinks(deps, { merchantId, mode: c.mode }, { limit: SHOWN })
    return sendHtml(reply, status, LinksPage({ c, links: data, error, notice }))
  }

  app.get<ModeParams & { Querystring: { done?: string } }>('/:mode/links', async (req, reply) => {
    const c = consoleContext(req, reply, '/links')
    const notice = req.query.done === 'created' ? c.t('links.created') : null
    return page(reply, 200, c, req.consoleSession!.merchant.id, null, notice)
  })

  app.post<ModeParams>('/:mode/links', async (req, reply) => {
    const c = consoleContext(req, reply, '/links')
    const currency = field(req.body, 'currency')
    const maxPayments = field(req.body, 'maxPayments').trim()
    let link
    try {
      link = await createPaymentLink(deps, scopeOf(c, req), {
        amount: typedAmount(req.body, 'amount', currency),
        minAmount: typedAmount(req.body, 'minAmount', currency),
        maxAmount: typedAmount(req.body, 'maxAmount', currency),
        currency: currency as never,
        description: field(req.body, 'description').trim() || undefined,
        maxPayments: maxPayments === '' ? undefined : Number(maxPayments),
      })
    } catch (e) {
      if (!(e instanceof TillError) || e.status >= 500) throw e
      return page(reply, 400, c, req.consoleSession!.merchant.id, c.t('links.invalid', { reason: e.message }), null)
    }
    await recordActivity(deps, { ...scopeOf(c, req), ...actorOf(req), action: 'link_created', subject: link.id, detail: { amount: link.amount, currency: link.currency, url: link.url } })
    return seeOther(reply, `/console/${c.mode}/links?done=created`)
  })

  for (const [action, active] of [['deactivate', false], ['activate', true]] as const) {
    app.post<LinkParams>(`/:mode/links/:id/${action}`, async (req, reply) => {
      const c = consoleContext(req, reply, '/links')
      const link = await updatePaymentLink(deps, scopeOf(c, req), req.params.id, { active })
      await recordActivity(deps, { ...scopeOf(c, req), ...actorOf(req), action: active ? 'link_activated' : 'link_deactivated', subject: link.id, detail: { url: link.url } })
      return seeOther(reply, `/console/${c.mode}/links`)
    })
  }

  app.get<LinkParams>('/:mode/links/:id/qr.png', async (req, reply) => {
    const c = consoleContext(req, reply, '/links')
    const link = await readPaymentLink(deps, scopeOf(c, req), req.params.id)
    const png = await QRCode.toBuffer(link.url, { ...QR_OPTIONS, type: 'png' })
    return reply.type('image/png').header('Content-Disposition', `attachment; filename="${link.id}.png"`).send(png)
  })

  app.get<LinkParams>('/:mode/links/:id/qr.svg', async (req, reply) => {
    const c = consoleContext(req, reply, '/links')
    const link = await readPaymentLink(deps, scopeOf(c, req), req.params.id)
    const svg = await QRCode.toString(link.url, { ...QR_OPTIONS, type: 'svg' })
    return reply.type('image/svg+xml').header('Content-Disposition', `attachment; filename="${link.id}.svg"`).send(svg)
  })
}
