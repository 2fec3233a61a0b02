/**
 * The one I/O step of the JSAPI OAuth: exchanging the redirect's `code` for the payer's openid,
 * through the adapter's dispatcher (the guarded agent, like every call to a provider).
 */
import type { Dispatcher } from 'undici'
import { undici } from '../undici.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { oauthTokenUrl, openidFromTokenAnswer } from './browser.js'
import { credentialsOf } from './http.js'

export async function fetchOpenid(cfg: ProviderConfig, code: string, dispatcher: Dispatcher, timeoutMs: number): Promise<string> {
  const c = credentialsOf(cfg)
  if (!c.appSecret) throw new ProviderError('rejected', 'app_secret_required', 'JSAPI needs the official account AppSecret in the credentials', false)
  const apiBase = typeof cfg.settings.apiBase === 'string' ? cfg.settings.apiBase : undefined
  let body: unknown
  try {
    const res = await undici().request(oauthTokenUrl({ appId: c.appId, appSecret: c.appSecret, code, apiBase }), { dispatcher, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    body = await res.body.json()
  } catch (e) {
    throw new ProviderError('unknown', 'network', `WeChat OAuth unreachable: ${(e as Error).message}`)
  }
  const answer = openidFromTokenAnswer(body)
  if ('error' in answer) throw new ProviderError('rejected', 'oauth_failed', answer.error, false)
  return answer.openid
}
