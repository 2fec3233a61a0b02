/**
 * WeChat Pay inside WeChat (JSAPI). The pick sends the customer through the official account's
 * silent snsapi_base authorization; WeChat returns them to /c/wechat/<id> with a code and our
 * state. The state must be this session's HMAC; the code becomes the openid, the openid a JSAPI
 * order, and the page hands the signed parameters to WeixinJSBridge.
 *
 * WeChat lets JSAPI run only from pages directly in a registered payment directory (not below
 * it), so the page lives at one fixed directory for every session: {BASE_URL}/c/wechat/.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound, SessionTerminal } from '../../domain/errors.js'
import { displayAmount, type Currency } from '../../domain/money.js'
import type { Deps } from '../../services/deps.js'
import * as hosted from '../../services/hosted-checkout.js'
import { payInsideWechat, wechatAuthorizeUrl } from '../../services/wechat-checkout.js'
import { OauthStateInvalid } from '../errors.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageContext } from '../context.js'
import { checkOauthState, oauthState } from '../security.js'
import { JsapiPage, RedirectPage } from '../views/live-action.js'

type Callback = { Params: { id: string }; Querystring: { code?: string; state?: string; retry?: string } }

/** The authorization for this session, or null when the configuration cannot exchange a code (no appSecret). */
function authorizeUrl(deps: Deps, sessionId: string, configId: string, retry: boolean) {
  // `retry` marks the second trip, so a code WeChat keeps refusing cannot loop the customer.
  const redirectUri = `${deps.config.baseUrl}/c/wechat/${sessionId}${retry ? '?retry=1' : ''}`
  return wechatAuthorizeUrl(deps, configId, { redirectUri, state: oauthState(deps.box.derive('wechat-oauth'), sessionId) })
}

/** The answer to a pick inside WeChat: a page that goes on to WeChat's authorization (a 303 after a form post would break form-action). */
export async function sendToWechatAuthorization(deps: Deps, req: FastifyRequest, reply: FastifyReply, sessionId: string, configId: string) {
  const url = await authorizeUrl(deps, sessionId, configId, false)
  if (!url) {
    deps.log.warn({ sessionId, configId }, 'JSAPI needs the official account appSecret in the WeChat Pay credentials')
    return seeOther(reply, `/c/${sessionId}?unavailable=wechat-in-app`)
  }
  const ctx = pageContext(req, reply)
  return sendHtml(reply, 200, RedirectPage({ ...ctx, v: { sessionId, provider: ctx.t('provider.wechat'), url } }))
}

export const wechatRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const stateKey = deps.box.derive('wechat-oauth')

  app.get<Callback>('/wechat/:id', async (req, reply) => {
    const cs = await hosted.loadSession(deps, req.params.id)
    const id = cs.session.id
    if (!checkOauthState(stateKey, id, req.query.state)) throw new OauthStateInvalid()
    if (cs.status !== 'pending' && cs.status !== 'processing') return seeOther(reply, `/c/${id}`)
    const offer = (await hosted.liveOffers(deps, cs.session)).find((o) => o.provider === 'wechat' && o.available)
    if (!offer) throw new NotFound()
    const code = req.query.code
    if (!code) return seeOther(reply, `/c/${id}?failed=wechat`)
    let result
    try {
      result = await payInsideWechat(deps, cs.session, offer.configId, code)
    } catch (e) {
      // Finished meanwhile (paid in another tab, expired): the checkout page shows the result.
      if (e instanceof SessionTerminal) return seeOther(reply, `/c/${id}`)
      throw e
    }
    if (result.kind === 'code_refused') {
      // A reload of this page (its code is spent): one more silent trip for a fresh code.
      const again = req.query.retry === '1' ? null : await authorizeUrl(deps, id, offer.configId, true)
      return seeOther(reply, again ?? `/c/${id}?failed=wechat`)
    }
    if (result.kind === 'failed' || result.action.kind !== 'jsapi') return seeOther(reply, `/c/${id}?failed=wechat`)
    const ctx = pageContext(req, reply)
    const amount = displayAmount(cs.session.amount, cs.session.currency as Currency, ctx.locale)
    return sendHtml(reply, 200, JsapiPage({ ...ctx, v: { sessionId: id, amount, params: result.action.params, merchantName: cs.merchantName, description: cs.session.description } }))
  })
}
