/**
 * A provider's browser step (module.ts BrowserStep), such as WeChat Pay inside WeChat (JSAPI): the
 * pick sends the customer through the provider's silent authorization, which returns them to
 * /c/<step path>/<id> with a code and our state. The state must be this session's HMAC; the code
 * becomes the payer's id, that an attempt, and the page hands the signed parameters to the app's
 * payment bridge. The path is the provider's: it may allow in-app payment only from pages directly
 * in a registered directory (WeChat's payment directory), so the module declares it.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound, SessionTerminal } from '../../domain/errors.js'
import { displayAmount, type Currency } from '../../domain/money.js'
import { moduleOf, PROVIDERS, providerName, type LiveProviderId } from '../../providers/index.js'
import { inLocale, type BrowserStep } from '../../providers/module.js'
import type { Deps } from '../../services/deps.js'
import { browserStepUrl, payAfterStep } from '../../services/browser-step.js'
import * as hosted from '../../services/hosted-checkout.js'
import { OauthStateInvalid } from '../errors.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageContext } from '../context.js'
import { checkOauthState, oauthState } from '../security.js'
import { InAppPage, RedirectPage } from '../views/live-action.js'

type Return = { Params: { id: string }; Querystring: { code?: string; state?: string; retry?: string } }

const stepOf = (provider: LiveProviderId) => moduleOf(provider).browserStep!
const stateScope = (provider: LiveProviderId) => `${provider}-oauth`

/** The step's start for this session, or null when the configuration cannot exchange a code (a missing secret). */
function startUrl(deps: Deps, provider: LiveProviderId, sessionId: string, configId: string, retry: boolean) {
  // `retry` marks the second trip, so a code the provider keeps refusing cannot loop the customer.
  const redirectUri = `${deps.config.baseUrl}/c/${stepOf(provider).path}/${sessionId}${retry ? '?retry=1' : ''}`
  const scope = stateScope(provider)
  return browserStepUrl(deps, provider, configId, { redirectUri, state: oauthState(deps.box.derive(scope), scope, sessionId) })
}

/** The answer to a pick that needs the step: a page that goes on to the provider (a 303 after a form post would break form-action). */
export async function sendToBrowserStep(deps: Deps, req: FastifyRequest, reply: FastifyReply, session: Pick<hosted.CustomerSession['session'], 'id' | 'locale'>, provider: LiveProviderId, configId: string) {
  const sessionId = session.id
  const url = await startUrl(deps, provider, sessionId, configId, false)
  if (!url) {
    deps.log.warn({ sessionId, configId }, stepOf(provider).missing)
    return seeOther(reply, `/c/${sessionId}?unavailable=${provider}-in-app`)
  }
  const ctx = pageContext(req, reply, session.locale)
  return sendHtml(reply, 200, RedirectPage({ ...ctx, v: { sessionId, provider: providerName(provider, ctx.locale), url } }))
}

/** The step's return, for every provider that declares one. */
export const browserStepRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  for (const m of PROVIDERS) if (m.browserStep) stepReturn(deps, app, m.id, m.browserStep)
}

function stepReturn(deps: Deps, app: Parameters<FastifyPluginAsync>[0], provider: LiveProviderId, step: BrowserStep) {
  const scope = stateScope(provider)
  const stateKey = deps.box.derive(scope)

  app.get<Return>(`/${step.path}/:id`, async (req, reply) => {
    const cs = await hosted.loadSession(deps, req.params.id)
    const id = cs.session.id
    if (!checkOauthState(stateKey, scope, id, req.query.state)) throw new OauthStateInvalid()
    if (cs.status !== 'pending' && cs.status !== 'processing') return seeOther(reply, `/c/${id}`)
    const offer = (await hosted.liveOffers(deps, cs.session)).find((o) => o.provider === provider && o.available)
    if (!offer) throw new NotFound()
    const code = req.query.code
    if (!code) return seeOther(reply, `/c/${id}?failed=${provider}`)
    let result
    try {
      result = await payAfterStep(deps, cs.session, provider, offer.configId, code)
    } catch (e) {
      // Finished meanwhile (paid in another tab, expired): the checkout page shows the result.
      if (e instanceof SessionTerminal) return seeOther(reply, `/c/${id}`)
      throw e
    }
    if (result.kind === 'code_refused') {
      // A reload of this page (its code is spent): one more silent trip for a fresh code.
      const again = req.query.retry === '1' ? null : await startUrl(deps, provider, id, offer.configId, true)
      return seeOther(reply, again ?? `/c/${id}?failed=${provider}`)
    }
    if (result.kind === 'failed' || result.action.kind !== 'in_app') return seeOther(reply, `/c/${id}?failed=${provider}`)
    const ctx = pageContext(req, reply, cs.session.locale)
    const amount = displayAmount(cs.session.amount, cs.session.currency as Currency, ctx.locale)
    return sendHtml(reply, 200, InAppPage({ ...ctx, v: {
      sessionId: id, provider, providerName: providerName(provider, ctx.locale), app: inLocale(step.app, ctx.locale), amount,
      params: result.action.params, merchantName: cs.merchantName, description: cs.session.description,
    } }))
  })
}
