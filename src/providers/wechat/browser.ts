/**
 * What the hosted checkout page needs to drive WeChat Pay in a browser, as pure functions: the
 * channel for a user agent, the snsapi_base OAuth redirect that yields a JSAPI payer's openid, and
 * the code-for-openid exchange request and its answer. Hosts follow settings.apiBase, so the fake
 * plays open.weixin.qq.com and api.weixin.qq.com too.
 */
import { DEFAULT_OAUTH_BASE, DEFAULT_SNS_API_BASE, PATHS, type WechatChannel } from './constants.js'

/** Inside WeChat → JSAPI; other mobile browsers → H5; desktop → Native (a QR code to scan). */
export function channelForUserAgent(userAgent: string | undefined): WechatChannel {
  const ua = userAgent ?? ''
  if (/MicroMessenger\//i.test(ua)) return 'jsapi'
  if (/Android|iPhone|iPad|iPod|HarmonyOS|Mobile|Windows Phone/i.test(ua)) return 'h5'
  return 'native'
}

/** Where the page sends the browser for the openid (an official-account page, scope snsapi_base: no consent screen). */
export function oauthAuthorizeUrl(o: { appId: string; redirectUri: string; state: string; apiBase?: string }): string {
  const base = (o.apiBase ?? DEFAULT_OAUTH_BASE).replace(/\/+$/, '')
  // WeChat requires exactly this parameter order and the #wechat_redirect fragment.
  return `${base}${PATHS.oauthAuthorize}?appid=${encodeURIComponent(o.appId)}&redirect_uri=${encodeURIComponent(o.redirectUri)}` +
    `&response_type=code&scope=snsapi_base&state=${encodeURIComponent(o.state)}#wechat_redirect`
}

/** The server-side call that turns the `code` WeChat appended to redirectUri into the openid. The secret stays on the server. */
export function oauthTokenUrl(o: { appId: string; appSecret: string; code: string; apiBase?: string }): string {
  const base = (o.apiBase ?? DEFAULT_SNS_API_BASE).replace(/\/+$/, '')
  return `${base}${PATHS.oauthAccessToken}?appid=${encodeURIComponent(o.appId)}&secret=${encodeURIComponent(o.appSecret)}` +
    `&code=${encodeURIComponent(o.code)}&grant_type=authorization_code`
}

/** `{openid, access_token, …}` on success; `{errcode, errmsg}` otherwise (e.g. 40029 invalid code, 40163 code used). */
export function openidFromTokenAnswer(body: unknown): { openid: string } | { error: string } {
  const b = (body ?? {}) as { openid?: unknown; errcode?: unknown; errmsg?: unknown }
  if (typeof b.openid === 'string' && b.openid.length > 0) return { openid: b.openid }
  return { error: `${String(b.errcode ?? 'no_openid')}: ${String(b.errmsg ?? 'no openid in the answer')}` }
}
