/** Settings: the merchant's per-refund limit (owners and admins; domain/refund-limits.ts). */
import type { FastifyPluginAsync } from 'fastify'
import { TillError } from '../../domain/errors.js'
import { brandingOf } from '../../services/merchant-settings.js'
import type { Deps } from '../../services/deps.js'
import { refundLimitsOf, setRefundLimits } from '../../services/refund-limits.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { consoleContext, field, type ModeParams } from '../context.js'
import { SettingsPage } from './view.js'

export const refundLimitRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.post<ModeParams>('/:mode/settings/refund-limits', async (req, reply) => {
    const c = consoleContext(req, reply, '/settings')
    const text = field(req.body, 'refundLimits')
    try {
      await setRefundLimits(deps, { s: req.consoleSession!, ip: req.ip, userAgent: req.headers['user-agent'] }, text)
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      const m = req.consoleSession!.merchant
      return sendHtml(reply, 400, SettingsPage({
        c, merchant: m, branding: brandingOf(m), error: e.message, saved: false, mailOn: deps.config.smtpUrl !== null,
        refundLimits: await refundLimitsOf(deps, m.id), refundLimitsText: text,
      }))
    }
    return seeOther(reply, `/console/${c.mode}/settings?saved=1`)
  })
}
