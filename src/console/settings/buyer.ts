/** POST /console/:mode/settings/buyer: receipt and refund emails on or off, the merchant's time zone. */
import type { FastifyPluginAsync } from 'fastify'
import { TillError } from '../../domain/errors.js'
import { recordActivity } from '../../services/activity.js'
import { updateBuyerSettings } from '../../services/buyer-settings.js'
import type { Deps } from '../../services/deps.js'
import { brandingOf } from '../../services/merchant-settings.js'
import { refundLimitsOf } from '../../services/refund-limits.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, type ModeParams } from '../context.js'
import { SettingsPage } from './view.js'

export const buyerSettingsRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<ModeParams>('/:mode/settings/buyer', async (req, reply) => {
    const c = consoleContext(req, reply, '/settings')
    const m = req.consoleSession!.merchant
    const body = req.body as Record<string, unknown>
    const input = { receiptEmails: field(body, 'receiptEmails') === 'on', refundEmails: field(body, 'refundEmails') === 'on', timeZone: field(body, 'timeZone') }
    let saved
    try {
      saved = await updateBuyerSettings(deps, m.id, input)
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      return sendHtml(reply, 400, SettingsPage({ c, merchant: { ...m, ...input }, branding: brandingOf(m), error: e.message, saved: false, mailOn: deps.config.smtpUrl !== null, refundLimits: await refundLimitsOf(deps, m.id) }))
    }
    await recordActivity(deps, { merchantId: m.id, ...actorOf(req), action: 'settings_updated', subject: m.id, detail: { ...saved } })
    return seeOther(reply, `/console/${c.mode}/settings?saved=1`)
  })
}
