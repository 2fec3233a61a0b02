/**
 * The signed HTTP client: every request carries the Authorization header, Accept and User-Agent
 * (and Wechatpay-Serial in public-key mode); every 2xx answer is verified before it is believed.
 * Platform certificates, when a merchant uses them, are fetched and cached here per configuration.
 */
import type { KeyObject } from 'node:crypto'
import type { Dispatcher } from 'undici'
import { clientDispatcher, exchange, exchangeStream, jsonOrNull, type Exchange } from '../exchange.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { DEFAULT_API_BASE, DEFAULT_GLOBAL_API_BASE, GLOBAL_PATHS, PATHS } from './constants.js'
import { wechatSettingsOf } from './service.js'
import { authorization, decryptResource, nonceStr, privateKeyOf, publicKeyOf, readCertificate, verifySigned, type VerifyKeys, type VerifyResult } from './sign.js'
import { errorFrom, type CertificateEntry, type ErrorBody } from './wire.js'

export interface WechatCredentials {
  mchId: string
  appId: string
  merchantSerialNo: string
  privateKey: string
  apiV3Key: string
  platformPublicKeyId?: string
  platformPublicKey?: string
  appSecret?: string
}

export const credentialsOf = (cfg: ProviderConfig) => cfg.credentials as unknown as WechatCredentials
export const isCrossBorder = (cfg: ProviderConfig) => wechatSettingsOf(cfg.settings).service === 'cross_border'
export const apiBaseOf = (cfg: ProviderConfig) => String(cfg.settings.apiBase ?? (isCrossBorder(cfg) ? DEFAULT_GLOBAL_API_BASE : DEFAULT_API_BASE)).replace(/\/+$/, '')

export interface ClientOptions {
  now: () => Date
  /** Per phase (connect, headers, body); a slow WeChat is an unknown outcome, never a hang. */
  timeoutMs: number
  dispatcher?: Dispatcher
}

const USER_AGENT = `Till/0.1 (WeChatPay-APIv3; ${process.platform}) Node/${process.versions.node}`
/** Certificates are re-read at most this often, and at most once a minute when an unknown serial appears. */
const CERT_TTL_MS = 12 * 3600_000
const CERT_REFRESH_MIN_MS = 60_000

interface CertCache {
  certs: Map<string, KeyObject>
  /** The certificate issued last (latest validFrom), which requests name in Wechatpay-Serial. */
  newest?: string
  fetchedAt: number
}

export interface Reply<T> {
  status: number
  data: T | null
}

export class WechatClient {
  private readonly certCache = new Map<string, CertCache>()
  /** Every request to WeChat goes through it, the OAuth exchange included (oauth.ts). */
  readonly dispatcher: Dispatcher
  readonly close: () => Promise<void>

  constructor(private readonly opts: ClientOptions) {
    ({ dispatcher: this.dispatcher, close: this.close } = clientDispatcher(opts.dispatcher, opts.timeoutMs))
  }

  /** A signed call whose 2xx answer is verified. Non-2xx become ProviderError (errorFrom). */
  async call<T>(cfg: ProviderConfig, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply<T>> {
    const res = await this.send(cfg, method, path, body, await this.acceptSerial(cfg))
    if (res.status < 200 || res.status >= 300) throw errorFrom(res.status, jsonOrNull<ErrorBody>(res.text))
    const check = await this.verify(cfg, res.headers, res.text)
    if (!check.ok) throw new ProviderError('unknown', 'invalid_response_signature', `WeChat Pay answer failed verification: ${check.reason}`)
    return { status: res.status, data: res.text ? jsonOrNull<T>(res.text) : null }
  }

  /** Verifies a response or notification, fetching platform certificates when the serial is not yet known. */
  async verify(cfg: ProviderConfig, headers: Record<string, string | string[] | undefined>, rawBody: string): Promise<VerifyResult> {
    const now = this.opts.now()
    let result = verifySigned(headers, rawBody, this.keys(cfg), now)
    if (!result.ok && result.reason === 'unknown_serial' && this.mayRefresh(cfg, now)) {
      try {
        await this.loadCertificates(cfg)
      } catch {
        return result
      }
      result = verifySigned(headers, rawBody, this.keys(cfg), now)
    }
    return result
  }

  /**
   * What Wechatpay-Serial names: the public key's id, or in certificate mode the newest platform
   * certificate (fetched first if none is known yet), as the Go SDK's validator does.
   */
  private async acceptSerial(cfg: ProviderConfig): Promise<string> {
    const c = credentialsOf(cfg)
    if (c.platformPublicKeyId) return c.platformPublicKeyId
    const cached = this.certCache.get(cacheKey(cfg))
    if (cached?.newest && this.opts.now().getTime() - cached.fetchedAt < CERT_TTL_MS) return cached.newest
    if (this.mayRefresh(cfg, this.opts.now())) await this.loadCertificates(cfg)
    return this.certCache.get(cacheKey(cfg))?.newest ?? ''
  }

  private keys(cfg: ProviderConfig): VerifyKeys {
    const c = credentialsOf(cfg)
    const cached = this.certCache.get(cacheKey(cfg))
    return {
      publicKeyId: c.platformPublicKeyId,
      publicKey: c.platformPublicKey ? publicKeyOf(c.platformPublicKey) : undefined,
      certificates: cached && this.opts.now().getTime() - cached.fetchedAt < CERT_TTL_MS ? cached.certs : undefined,
    }
  }

  private mayRefresh(cfg: ProviderConfig, now: Date) {
    const cached = this.certCache.get(cacheKey(cfg))
    return !cached || now.getTime() - cached.fetchedAt >= CERT_REFRESH_MIN_MS || now.getTime() < cached.fetchedAt
  }

  /**
   * GET /v3/certificates: each entry decrypts with the APIv3 key into a PEM certificate. The answer
   * is then verified with the certificates it carries (as the Go SDK's downloader does); the GCM tag
   * under the merchant's own APIv3 key is what makes them trustworthy.
   */
  async loadCertificates(cfg: ProviderConfig): Promise<Map<string, KeyObject>> {
    const now = this.opts.now()
    const before = this.certCache.get(cacheKey(cfg))
    this.certCache.set(cacheKey(cfg), { certs: before?.certs ?? new Map(), newest: before?.newest, fetchedAt: now.getTime() })
    const res = await this.send(cfg, 'GET', isCrossBorder(cfg) ? GLOBAL_PATHS.certificates : PATHS.certificates)
    if (res.status !== 200) throw errorFrom(res.status, jsonOrNull<ErrorBody>(res.text))
    const list = jsonOrNull<{ data?: CertificateEntry[] }>(res.text)?.data ?? []
    const certs = new Map<string, KeyObject>()
    let newest: { serial: string; validFrom: Date } | undefined
    for (const entry of list) {
      const cert = readCertificate(decryptResource(credentialsOf(cfg).apiV3Key, entry.encrypt_certificate))
      if (cert.validTo.getTime() <= now.getTime()) continue
      certs.set(cert.serial, cert.key)
      if (!newest || cert.validFrom > newest.validFrom) newest = cert
    }
    const c = credentialsOf(cfg)
    const keys: VerifyKeys = { publicKeyId: c.platformPublicKeyId, publicKey: c.platformPublicKey ? publicKeyOf(c.platformPublicKey) : undefined, certificates: certs }
    const check = verifySigned(res.headers, res.text, keys, now)
    if (!check.ok) throw new ProviderError('unknown', 'invalid_response_signature', `certificate list failed verification: ${check.reason}`)
    this.certCache.set(cacheKey(cfg), { certs, newest: newest?.serial, fetchedAt: now.getTime() })
    return certs
  }

  private async send(cfg: ProviderConfig, method: 'GET' | 'POST', path: string, body?: unknown, serial = '') {
    // The signed target is the path and query exactly as sent, including any path prefix of the base.
    const target = new URL(apiBaseOf(cfg)).pathname.replace(/\/+$/, '') + path
    const res = await this.signedExchange(cfg, method, target, body === undefined ? undefined : JSON.stringify(body), serial ? { 'Wechatpay-Serial': serial } : {})
    return { status: res.status, headers: res.headers, text: res.body.toString('utf8') }
  }

  /**
   * A signed GET of `target` (path and query on the API's origin) whose answer is not verified here:
   * a bill download carries no WeChat signature, and a WeChat Pay Global statement signs its SHA1
   * header rather than its bytes. The body comes back as a stream of bytes (it may be gzip), to be
   * read through.
   */
  async getFile(cfg: ProviderConfig, target: string, headers: Record<string, string> = {}, bounds: { maxBytes?: number; deadlineMs?: number } = {}) {
    const { url, init } = this.signed(cfg, 'GET', target, undefined, { 'Wechatpay-Serial': await this.acceptSerial(cfg), ...headers })
    const res = await exchangeStream(url, { ...init, ...bounds }, 'WeChat Pay')
    return { status: res.statusCode, headers: res.headers, body: res.body }
  }

  private async signedExchange(cfg: ProviderConfig, method: 'GET' | 'POST', target: string, text: string | undefined, extra: Record<string, string>) {
    const { url, init } = this.signed(cfg, method, target, text, extra)
    const res = await exchange(url, init, 'WeChat Pay')
    return { status: res.status, headers: res.headers, body: res.body }
  }

  /** The request, signed: its URL and what `exchange` takes. */
  private signed(cfg: ProviderConfig, method: 'GET' | 'POST', target: string, text: string | undefined, extra: Record<string, string>): { url: string; init: Exchange } {
    const c = credentialsOf(cfg)
    const timestamp = String(Math.floor(this.opts.now().getTime() / 1000))
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': USER_AGENT,
      Authorization: authorization({ mchId: c.mchId, serialNo: c.merchantSerialNo, privateKey: privateKeyOf(c.privateKey), method, target, body: text ?? '', timestamp, nonce: nonceStr() }),
      ...extra,
    }
    if (text !== undefined) headers['Content-Type'] = 'application/json'
    // Which key Till can verify with (Wechatpay-Serial, in extra): public-key mode must say so, or a
    // merchant mid-migration gets answers signed with the certificate (P3); the certificate list itself is asked for without one.
    if (!headers['Wechatpay-Serial']) delete headers['Wechatpay-Serial']
    return { url: new URL(apiBaseOf(cfg)).origin + target, init: { method, headers, body: text, dispatcher: this.dispatcher, timeoutMs: this.opts.timeoutMs } }
  }
}

const cacheKey = (cfg: ProviderConfig) => `${cfg.id}|${credentialsOf(cfg).mchId}|${apiBaseOf(cfg)}`
