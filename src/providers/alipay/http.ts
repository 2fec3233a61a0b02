/**
 * The v2 gateway client: every request signed with RSA2 over its sorted parameters, the common ones
 * in the URL and biz_content in the form body (as the official Node SDK's `exec` sends them); every
 * answer believed only once its signature verifies over the exact `…_response` text Alipay sent.
 * Page pay and wap pay are not calls but signed URLs the customer's browser opens (`pageExec`).
 */
import type { Dispatcher } from 'undici'
import { clientDispatcher, exchange } from '../exchange.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { DEFAULT_API_BASE, GATEWAY_PATH, URL_PARAMS } from './constants.js'
import { credentialsOf, keysOf, type Keys } from './keys.js'
import { responseParts, verifyRsa2, withSign, type Params } from './sign.js'
import { checkAbout } from '../answers.js'
import { answerError, askedIds, beijingTime, isSuccess, type Answer, type AnswerId } from './wire.js'

/** {apiBase}/gateway.do; an apiBase given with /gateway.do already is taken as it is. */
export function gatewayOf(cfg: ProviderConfig): string {
  const base = String(cfg.settings.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, '')
  return base.endsWith(GATEWAY_PATH) ? base : `${base}${GATEWAY_PATH}`
}

const USER_AGENT = `Till/0.1 (Alipay-OpenAPI-2.0; ${process.platform}) Node/${process.versions.node}`

export interface ClientOptions {
  now: () => Date
  /** Per phase (headers, body): a slow Alipay is an unknown outcome, never a hang. */
  timeoutMs: number
  dispatcher?: Dispatcher
}

/** Common parameters beyond method and biz_content that a call or a page carries. */
export interface Extra {
  notify_url?: string
  return_url?: string
}

/** `<key>=<value>&…` with each value URL-encoded, as the SDK appends the body parameters to a page URL. */
const encoded = (params: Record<string, string>) => Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')

export class AlipayClient {
  private readonly dispatcher: Dispatcher
  readonly close: () => Promise<void>

  constructor(private readonly opts: ClientOptions) {
    ({ dispatcher: this.dispatcher, close: this.close } = clientDispatcher(opts.dispatcher, opts.timeoutMs))
  }

  /** The request's parameters, signed: the common ones, certificate serials in certificate mode, biz_content. */
  private signed(cfg: ProviderConfig, keys: Keys, method: string, biz: object, extra: Extra): { url: URL; body: Record<string, string> } {
    const params: Params = {
      app_id: credentialsOf(cfg).appId,
      method,
      format: 'JSON',
      charset: 'utf-8',
      sign_type: 'RSA2',
      timestamp: beijingTime(this.opts.now()),
      version: '1.0',
      ...extra,
      app_cert_sn: keys.certs?.appCertSn,
      alipay_root_cert_sn: keys.certs?.alipayRootCertSn,
      biz_content: JSON.stringify(biz),
    }
    const all = withSign(params, keys.privateKey)
    const url = new URL(gatewayOf(cfg))
    const body: Record<string, string> = {}
    for (const [k, v] of Object.entries(all)) {
      if ((URL_PARAMS as readonly string[]).includes(k)) url.searchParams.set(k, v)
      else body[k] = v
    }
    return { url, body }
  }

  /** The signed GET URL of a page interface (page pay, wap pay) for the customer's browser. */
  pageUrl(cfg: ProviderConfig, method: string, biz: object, extra: Extra): string {
    const { url, body } = this.signed(cfg, keysOf(credentialsOf(cfg)), method, biz, extra)
    return `${url.toString()}&${encoded(body)}`
  }

  /**
   * A call whose answer verifies, is about what was asked and says 10000. Any other code is a
   * ProviderError (wire.answerError); a network failure, a non-200, an unreadable or unverifiable
   * answer, or one naming another trade or refund (checkAbout; `named`: ids a success must name) is `unknown`.
   */
  async call<T extends Answer>(cfg: ProviderConfig, method: string, biz: Record<string, unknown>, extra: Extra = {}, named: readonly AnswerId[] = []): Promise<T> {
    const answer = await this.answer<T>(cfg, method, biz, extra)
    checkAbout('Alipay', method, askedIds(biz), answer, isSuccess(answer) ? named : [])
    if (!isSuccess(answer)) throw answerError(method, answer)
    return answer
  }

  /**
   * A file an answer named (the bill's short-lived download URL), its bytes as sent. Alipay signs the
   * answer that gave the URL, not the file: the caller checks the file itself.
   */
  async download(url: string, bounds: { maxBytes?: number; deadlineMs?: number } = {}): Promise<{ status: number; body: Buffer }> {
    const target = new URL(url)
    if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new ProviderError('unknown', 'malformed_response', `Alipay named a download that is not http(s): ${target.protocol}`)
    const { status, body } = await exchange(target, { method: 'GET', headers: { 'user-agent': USER_AGENT }, dispatcher: this.dispatcher, timeoutMs: this.opts.timeoutMs, ...bounds }, 'Alipay')
    return { status, body }
  }

  private async answer<T extends Answer>(cfg: ProviderConfig, method: string, biz: object, extra: Extra): Promise<T> {
    const keys = keysOf(credentialsOf(cfg))
    const { url, body } = this.signed(cfg, keys, method, biz, extra)
    const { status, text } = await exchange(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded;charset=utf-8', 'user-agent': USER_AGENT },
      body: encoded(body),
      dispatcher: this.dispatcher,
      timeoutMs: this.opts.timeoutMs,
    }, 'Alipay')
    if (status !== 200) throw new ProviderError('unknown', `HTTP_${status}`, `Alipay answered ${method} with HTTP ${status}`)
    return verifiedAnswer<T>(method, text, keys)
  }
}

/**
 * The answer inside a body, once its signature checks out: over the exact text of `<method>_response`
 * (or `error_response`), with the `\/` escapes the official Java SDK also tries unescaped. In
 * certificate mode the answer must name the Alipay certificate Till holds. The answer is that very
 * text parsed, never the body's value under the key (a body may repeat the key after the signed one).
 * An unsigned `error_response` (the gateway refusing the call itself) cannot be believed: `unknown`.
 */
export function verifiedAnswer<T extends Answer>(method: string, text: string, keys: Keys): T {
  const parts = responseParts(text, method)
  if (!parts) throw new ProviderError('unknown', 'malformed_response', `Alipay answered ${method} without ${method.replace(/\./g, '_')}_response`)
  // The very text the signature covers: JSON.parse(body)[key] would take the last of repeated keys.
  const answer = JSON.parse(parts.text) as T
  if (!parts.sign) {
    const refusal = parts.key === 'error_response' ? `: ${answerError(method, answer).message}` : ''
    throw new ProviderError('unknown', 'unsigned_response', `Alipay's answer to ${method} carries no signature${refusal}`)
  }
  if (keys.certs && parts.certSn && parts.certSn !== keys.certs.alipayCertSn) {
    throw new ProviderError('unknown', 'alipay_cert_sn_mismatch', `Alipay signed with certificate ${parts.certSn}, not the one configured (${keys.certs.alipayCertSn}): upload Alipay's current public-key certificate`)
  }
  const ok = verifyRsa2(parts.text, parts.sign, keys.alipayPublicKey) || (parts.text.includes('\\/') && verifyRsa2(parts.text.replace(/\\\//g, '/'), parts.sign, keys.alipayPublicKey))
  if (!ok) throw new ProviderError('unknown', 'invalid_response_signature', `Alipay's answer to ${method} failed verification`)
  return answer
}
