/**
 * The one I/O step of the JSAPI OAuth: exchanging the redirect's `code` for the payer's openid,
 * through the adapter's dispatcher (the guarded agent, like every call to a provider) and bounded
 * like every provider answer (exchange.ts: a byte cap and a deadline).
 */
import type { Dispatcher } from 'undici'
import { exchange } from '../exchange.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { oauthTokenUrl, openidFromTokenAnswer } from './browser.js'
import { credentialsOf } from './http.js'

export async function fetchOpenid(cfg: ProviderConfig, code: string, dispatcher: Dispatcher, timeoutMs: number): Promise<string> {
  const c = credentialsOf(cfg)
  if (!c.appSecret) throw new ProviderError('rejected', 'app_secret_required', 'JSAPI needs the official account AppSecret in the credentials', false)
  const apiBase = typeof cfg.settings.apiBase === 'string' ? cfg.settings.apiBase : undefined
  const url = oauthTokenUrl({ appId: c.appId, appSecret: c.appSecret, code, apiBase })
  const res = await exchange(url, { method: 'GET', headers: {}, dispatcher, timeoutMs }, 'WeChat OAuth')
  let body: unknown
  try {
    body = JSON.parse(res.text)
  } catch {
    throw new ProviderError('unknown', 'malformed_response', `WeChat OAuth answered HTTP ${res.status} without JSON`)
  }
  const answer = openidFromTokenAnswer(body)
  if ('error' in answer) throw new ProviderError('rejected', 'oauth_failed', answer.error, false)
  return answer.openid
}
