/** What customers see of the merchant on the hosted pages: name, brand colour, support email and page, logo. */
import type { FastifyPluginAsync } from 'fastify'
import { TillError } from '../../domain/errors.js'
import { recordActivity } from '../../services/activity.js'
import { readMerchant } from '../../services/merchants.js'
import type { Deps } from '../../services/deps.js'
import { brandingOf, updateSettings } from '../../services/merchant-settings.js'
import { refundLimitsOf } from '../../services/refund-limits.js'
import type { UploadedFile } from '../plugin.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { actorOf, consoleContext, field, type ModeParams } from '../context.js'
import { SettingsPage } from './view.js'

export const settingsRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  app.get<ModeParams & { Querystring: { saved?: string } }>('/:mode/settings', async (req, reply) => {
    const c = consoleContext(req, reply, '/settings')
    const m = req.consoleSession!.merchant
    return sendHtml(reply, 200, SettingsPage({ c, merchant: m, branding: brandingOf(m), error: null, saved: req.query.saved !== undefined, mailOn: deps.config.smtpUrl !== null, refundLimits: await refundLimitsOf(deps, m.id) }))
  })

  app.post<ModeParams>('/:mode/settings', async (req, reply) => {
    const c = consoleContext(req, reply, '/settings')
    const m = req.consoleSession!.merchant
    const body = req.body as Record<string, unknown>
    const logo = body.logo as UploadedFile | undefined
    try {
      await updateSettings(deps, m.id, {
        displayName: field(body, 'displayName'),
        brandColor: field(body, 'brandColor'),
        supportEmail: field(body, 'supportEmail'),
        supportUrl: field(body, 'supportUrl'),
        logo: logo && typeof logo === 'object' ? { bytes: logo.bytes } : null,
        removeLogo: field(body, 'removeLogo') === 'on',
      })
    } catch (e) {
      if (!(e instanceof TillError) || e.status !== 400) throw e
      return sendHtml(reply, 400, SettingsPage({ c, merchant: m, branding: brandingOf(m), error: e.message, saved: false, mailOn: deps.config.smtpUrl !== null, refundLimits: await refundLimitsOf(deps, m.id) }))
    }
    const after = await readMerchant(deps, m.id)
    await recordActivity(deps, { merchantId: m.id, ...actorOf(req), action: 'settings_updated', subject: m.id, detail: { displayName: after.displayName, brandColor: after.brandColor, supportEmail: after.supportEmail, supportUrl: after.supportUrl, logo: after.logoHash !== null } })
    return seeOther(reply, `/console/${c.mode}/settings?saved=1`)
  })
}
