/**
 * /c/<session_id> and its forms: the test-mode controls (pay, fail), a live provider pick, and
 * "Cancel and return". Every post checks the page's form token and ends in a 303 (or, for a live
 * pick, the provider's next step).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import { SessionTerminal } from '../../domain/errors.js'
import { displayAmount, type Currency } from '../../domain/money.js'
import { REFUND_BEHAVIORS, type RefundBehavior } from '../../providers/mock/index.js'
import { isLiveProvider, moduleOf, providerName } from '../../providers/index.js'
import { inLocale } from '../../providers/module.js'
import type { Deps } from '../../services/deps.js'
import * as hosted from '../../services/hosted-checkout.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { formatTime } from '../../web/i18n.js'
import type { Locale } from '../../web/locale.js'
import { setPageHeaders } from '../../web/security.js'
import { BadForm, FormTokenInvalid } from '../errors.js'
import { chargedText } from '../charged.js'
import { pageContext } from '../context.js'
import { UNPAID_RESULTS, wayBack } from '../way-back.js'
import { checkFormToken, formToken, originOf } from '../security.js'
import type { PageContext } from '../views/layout.js'
import { QrPage, RedirectPage } from '../views/live-action.js'
import { sendToBrowserStep } from './browser-step.js'
import { CheckoutPage, type CheckoutView } from './view.js'

type Id = { Params: { id: string } }
type Form = Record<string, string | string[] | undefined>

/** A provider named in the page's query (a notice after a pick), by name; anything else is ignored. */
const namedInQuery = (locale: Locale, id: string | undefined) => (id && isLiveProvider(id) ? providerName(id, locale) : null)

/** `<provider>-in-app` in the query: the provider's browser step cannot run for this configuration. */
function inAppUnavailable(locale: Locale, unavailable: string | undefined) {
  const id = unavailable?.endsWith('-in-app') ? unavailable.slice(0, -'-in-app'.length) : undefined
  const step = id && isLiveProvider(id) ? moduleOf(id).browserStep : undefined
  const app = step && inLocale(step.app, locale)
  return id && app ? { provider: providerName(id, locale), app } : null
}

/** The address a provider's order may name (WeChat's H5): an IPv4 client seen through a dual-stack socket is written as IPv4. */
const clientIp = (ip: string) => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip)

const field = (body: unknown, name: string): string | undefined => {
  const v = (body as Form | undefined)?.[name]
  return typeof v === 'string' ? v : undefined
}

export const checkoutRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const tokenKey = deps.box.derive('page-csrf')

  async function checkoutView(cs: hosted.CustomerSession, { locale }: PageContext, notices: Pick<CheckoutView, 'unavailable' | 'failed' | 'inAppUnavailable'>): Promise<CheckoutView> {
    const { session } = cs
    const open = cs.status === 'pending' || cs.status === 'processing'
    const offers = open ? await hosted.liveOffers(deps, session) : []
    // A pick that could not start says so alone: its attempt stays processing for reconciliation, but nothing is awaited.
    const told = notices.failed ?? notices.unavailable ?? notices.inAppUnavailable
    const waitingOn = !told && session.mode === 'live' && cs.status === 'processing' && session.chosenProvider && isLiveProvider(session.chosenProvider)
      ? providerName(session.chosenProvider, locale)
      : null
    return {
      sessionId: session.id,
      status: cs.status,
      testMode: session.mode === 'test',
      merchantName: cs.merchantName,
      brand: cs.branding,
      description: session.description,
      amount: displayAmount(session.amount, session.currency as Currency, locale),
      secondsLeft: Math.max(0, (session.expiresAt.getTime() - deps.clock().getTime()) / 1000),
      expiresAt: formatTime(session.expiresAt, locale, cs.branding?.timeZone),
      expiresAtIso: session.expiresAt.toISOString(),
      formToken: formToken(tokenKey, session.id),
      canReturn: session.successUrl !== null,
      wayBack: UNPAID_RESULTS.includes(cs.status) ? wayBack({
        sessionId: session.id, cancelUrl: session.cancelUrl, successUrl: session.successUrl,
        supportUrl: cs.branding?.supportUrl ?? null, supportEmail: cs.branding?.supportEmail ?? null,
      }) : null,
      recordId: cs.record?.id ?? null,
      charged: chargedText(cs.record, locale),
      offers: offers.map((o) => ({ provider: o.provider, name: providerName(o.provider, locale) })),
      ...notices,
      waitingOn,
    }
  }

  app.get<Id & { Querystring: { unavailable?: string; failed?: string } }>('/:id', async (req, reply) => {
    const cs = await hosted.loadSession(deps, req.params.id)
    const ctx = pageContext(req, reply, cs.session.locale)
    const v = await checkoutView(cs, ctx, {
      unavailable: namedInQuery(ctx.locale, req.query.unavailable),
      failed: namedInQuery(ctx.locale, req.query.failed),
      inAppUnavailable: inAppUnavailable(ctx.locale, req.query.unavailable),
    })
    // The pay → relay → successUrl (and cancel → relay → cancelUrl) redirect chains are checked against form-action: allow the merchant's origins.
    const merchantOrigins = [originOf(cs.session.successUrl), originOf(cs.session.cancelUrl)].filter((o): o is string => o !== null)
    setPageHeaders(reply, [...new Set(merchantOrigins)])
    return sendHtml(reply, 200, CheckoutPage({ ...ctx, v }))
  })

  /** The session a form was posted for, once its token has been checked. */
  async function postedSession(req: FastifyRequest<Id>) {
    const cs = await hosted.loadSession(deps, req.params.id)
    if (!checkFormToken(tokenKey, cs.session.id, field(req.body, 'token'))) throw new FormTokenInvalid()
    return cs
  }

  /** A second click, or a session that finished meanwhile: the page shows where it stands. */
  async function unlessFinished<T>(action: () => Promise<T>): Promise<T | null> {
    try {
      return await action()
    } catch (e) {
      if (!(e instanceof SessionTerminal)) throw e
      return null
    }
  }

  app.post<Id>('/:id/pay', async (req, reply) => {
    const cs = await postedSession(req)
    const behavior = field(req.body, 'refundBehavior') ?? 'succeed'
    if (!(REFUND_BEHAVIORS as readonly string[]).includes(behavior)) throw new BadForm('refundBehavior')
    await unlessFinished(() => hosted.payInTestMode(deps, cs.session, behavior as RefundBehavior))
    // With successUrl the relay takes the customer back to the merchant; without, the receipt.
    if (cs.session.successUrl) return seeOther(reply, `/c/${cs.session.id}/done`)
    const after = await hosted.loadSession(deps, cs.session.id)
    return seeOther(reply, after.record ? `/r/${after.record.id}` : `/c/${cs.session.id}`)
  })

  app.post<Id>('/:id/fail', async (req, reply) => {
    const cs = await postedSession(req)
    await unlessFinished(() => hosted.failInTestMode(deps, cs.session))
    // The customer sees the failure on the checkout page, with the way back to the merchant.
    return seeOther(reply, `/c/${cs.session.id}`)
  })

  app.post<Id>('/:id/cancel', async (req, reply) => {
    const cs = await postedSession(req)
    await unlessFinished(() => hosted.cancelByCustomer(deps, cs.session))
    // Back to the merchant through the relay (cancelUrl, or successUrl with paid_confirmed=0); without either, the page shows the way back.
    return seeOther(reply, cs.session.cancelUrl || cs.session.successUrl ? `/c/${cs.session.id}/done` : `/c/${cs.session.id}`)
  })

  app.post<Id>('/:id/choose', async (req, reply) => {
    const cs = await postedSession(req)
    const provider = field(req.body, 'provider') ?? ''
    if (cs.status !== 'pending' && cs.status !== 'processing') return seeOther(reply, `/c/${cs.session.id}`)
    const result = await unlessFinished(() => hosted.pickProvider(deps, cs.session, provider, { ip: clientIp(req.ip), userAgent: req.headers['user-agent'] }))
    if (!result) return seeOther(reply, `/c/${cs.session.id}`)
    if (result.kind === 'authorize') return sendToBrowserStep(deps, req, reply, cs.session, result.provider, result.configId)
    const ctx = pageContext(req, reply, cs.session.locale)
    const name = providerName(result.provider, ctx.locale)
    if (result.kind === 'started' && result.action.kind === 'redirect') {
      return sendHtml(reply, 200, RedirectPage({ ...ctx, v: { sessionId: cs.session.id, provider: name, url: result.action.url } }))
    }
    if (result.kind === 'started' && result.action.kind === 'qr') {
      const svg = (await QRCode.toString(result.action.content, { type: 'svg', width: 240, margin: 1, errorCorrectionLevel: 'M' })).trim()
      const amount = displayAmount(cs.session.amount, cs.session.currency as Currency, ctx.locale)
      const scanHelp = moduleOf(result.provider).scanHelp
      const help = scanHelp && inLocale(scanHelp, ctx.locale)
      return sendHtml(reply, 200, QrPage({ ...ctx, v: { sessionId: cs.session.id, provider: name, amount, svg, help, merchantName: cs.merchantName, description: cs.session.description } }))
    }
    if (result.kind === 'started' && result.action.kind === 'none') return seeOther(reply, `/c/${cs.session.id}`)
    if (result.kind === 'failed') return seeOther(reply, `/c/${cs.session.id}?failed=${result.provider}`)
    // Not built yet: the provider's adapter.
    return seeOther(reply, `/c/${cs.session.id}?unavailable=${result.provider}`)
  })
}
