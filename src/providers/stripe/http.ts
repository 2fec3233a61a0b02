/**
 * The Stripe HTTP client: the secret key as a Bearer token, form-encoded bodies, JSON answers, an
 * Idempotency-Key on every POST that creates money state, one timeout per phase (exchange.ts).
 * Non-2xx answers become ProviderError (wire.errorFrom); a network failure or timeout is an
 * `unknown` outcome, never a failure. The key is read from the configuration for the call only.
 */
import type { Dispatcher } from 'undici'
import { clientDispatcher, exchange, jsonOrNull } from '../exchange.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { DEFAULT_API_BASE } from './constants.js'
import { errorFrom, formEncode, type ErrorBody } from './wire.js'

export interface StripeCredentials {
  secretKey: string
  webhookSecret?: string
}

export const credentialsOf = (cfg: ProviderConfig) => cfg.credentials as unknown as StripeCredentials
export const apiBaseOf = (cfg: ProviderConfig) => String(cfg.settings.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, '')

const USER_AGENT = `Till/0.1 (Stripe; ${process.platform}) Node/${process.versions.node}`

export interface CallOptions {
  body?: Record<string, unknown>
  idempotencyKey?: string
}

export class StripeClient {
  private readonly dispatcher: Dispatcher
  readonly close: () => Promise<void>

  constructor(private readonly opts: { timeoutMs: number; dispatcher?: Dispatcher }) {
    ({ dispatcher: this.dispatcher, close: this.close } = clientDispatcher(opts.dispatcher, opts.timeoutMs))
  }

  async call<T>(cfg: ProviderConfig, method: 'GET' | 'POST' | 'DELETE', path: string, o: CallOptions = {}): Promise<T> {
    return this.callWith<T>(apiBaseOf(cfg), credentialsOf(cfg).secretKey, method, path, o)
  }

  /** A call with a key not yet saved (configuration checks before the save). */
  async callWith<T>(apiBase: string, secretKey: string, method: 'GET' | 'POST' | 'DELETE', path: string, o: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${secretKey}`, accept: 'application/json', 'user-agent': USER_AGENT }
    const body = method === 'POST' ? formEncode(o.body ?? {}) : undefined
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey
    const { status, text } = await exchange(apiBase + path, { method, headers, body, dispatcher: this.dispatcher, timeoutMs: this.opts.timeoutMs }, 'Stripe')
    const data = jsonOrNull(text)
    if (status < 200 || status >= 300) throw errorFrom(status, data as ErrorBody | null)
    if (data === null || typeof data !== 'object') throw new ProviderError('unknown', 'malformed_response', `Stripe answered ${method} ${path} with no JSON object`)
    return data as T
  }
}
