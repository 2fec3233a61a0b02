/**
 * What the hosted checkout does for WeChat Pay beyond a plain pick (docs/providers.md): showing the
 * same Native QR code again instead of placing a new order, and the JSAPI path inside WeChat,
 * where the payer's openid comes from the official account's silent snsapi_base OAuth first.
 */
import { ProviderError, type Action } from '../providers/types.js'
import { oauthAuthorizeUrl } from '../providers/wechat/browser.js'
import { credentialsOf } from '../providers/wechat/http.js'
import { getAttempt, latestAttemptId, type SessionRow } from '../store/repos/sessions.js'
import type { Deps } from './deps.js'
import { configFor, startAttempt } from './payments.js'

/** A code_url stays valid for 2 hours (docs/providers.md#wechat-pay-wechat). */
const CODE_URL_VALID_MS = 2 * 3600_000

/**
 * The QR code of the session's newest attempt, when that attempt is a Native order of this
 * configuration that is still open and whose code_url is still valid: a reload or a second pick
 * on the same computer shows it again rather than placing (and later closing) another order.
 */
export async function openQrCode(deps: Deps, sessionId: string, configId: string): Promise<Action | null> {
  const latest = await latestAttemptId(deps.db, sessionId)
  const a = latest ? await getAttempt(deps.db, latest) : null
  if (!a || a.status !== 'processing' || a.provider !== 'wechat' || a.providerConfigId !== configId || a.channel !== 'native') return null
  const codeUrl = a.providerData.codeUrl
  if (typeof codeUrl !== 'string' || deps.clock().getTime() - a.createdAt.getTime() >= CODE_URL_VALID_MS) return null
  return { kind: 'qr', content: codeUrl }
}

/**
 * Where to send a customer inside WeChat for their openid, or null when the configuration has no
 * appSecret (the code could not be exchanged, so the trip would be for nothing).
 */
export async function wechatAuthorizeUrl(deps: Deps, configId: string, o: { redirectUri: string; state: string }): Promise<string | null> {
  const cfg = await configFor(deps, deps.db, 'wechat', configId)
  const c = credentialsOf(cfg)
  if (!c.appSecret) return null
  const apiBase = typeof cfg.settings.apiBase === 'string' ? cfg.settings.apiBase : undefined
  return oauthAuthorizeUrl({ appId: c.appId, redirectUri: o.redirectUri, state: o.state, apiBase })
}

export type InsideWechatResult =
  | { kind: 'started'; action: Action }
  /** WeChat refused the code: most often a reload of the callback, whose code was already spent. */
  | { kind: 'code_refused' }
  | { kind: 'failed' }

/** Back from the OAuth redirect: the code becomes the openid, and the openid a JSAPI order. */
export async function payInsideWechat(deps: Deps, session: SessionRow, configId: string, code: string): Promise<InsideWechatResult> {
  try {
    const cfg = await configFor(deps, deps.db, 'wechat', configId)
    const wechat = deps.providers.get('wechat')
    if (!wechat?.openid) throw new Error('the WeChat Pay adapter is not built')
    let openid: string
    try {
      openid = await wechat.openid(cfg, code)
    } catch (e) {
      if (e instanceof ProviderError && e.code === 'oauth_failed') return { kind: 'code_refused' }
      throw e
    }
    const { action } = await startAttempt(deps, session.id, { provider: 'wechat', providerConfigId: configId, channel: 'jsapi', openid })
    return { kind: 'started', action }
  } catch (e) {
    // As for any pick: an attempt that may have reached WeChat stays processing for reconciliation.
    if (!(e instanceof ProviderError)) throw e
    deps.log.warn({ err: e, sessionId: session.id }, 'WeChat Pay could not start a JSAPI payment')
    return { kind: 'failed' }
  }
}
