/**
 * The Creem HTTP client: the API key in `x-api-key` on every call, JSON both ways, one timeout per
 * phase. Non-2xx answers become ProviderError (wire.errorFrom); a network failure or timeout is an
 * `unknown` outcome, never a failure. The key is read from the configuration for the call only.
 */
import type { Dispatcher } from 'undici'
import { clientDispatcher, exchange, jsonOrNull } from '../exchange.js'
import type { ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { API_KEY_HEADER, DEFAULT_API_BASE } from './constants.js'
import { errorFrom, type ErrorBody } from './wire.js'

export interface CreemCredentials {
  apiKey: string
  webhookSecret: string
}

export const credentialsOf = (cfg: ProviderConfig) => cfg.credentials as unknown as CreemCredentials
export const apiBaseOf = (cfg: ProviderConfig) => String(cfg.settings.apiBase ?? DEFAULT_API_BASE).replace(/\/+$/, '')

const USER_AGENT = `Till/0.1 (Creem; ${process.platform}) Node/${process.versions.node}`

export interface ClientOptions {
  timeoutMs: number
  dispatcher?: Dispatcher
}

export class CreemClient {
  private readonly dispatcher: Dispatcher
  readonly close: () => Promise<void>

  constructor(private readonly opts: ClientOptions) {
    ({ dispatcher: this.dispatcher, close: this.close } = clientDispatcher(opts.dispatcher, opts.timeoutMs))
  }

  async call<T>(cfg: ProviderConfig, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {
      [API_KEY_HEADER]: credentialsOf(cfg).apiKey,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const { status, text } = await exchange(apiBaseOf(cfg) + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.dispatcher,
      timeoutMs: this.opts.timeoutMs,
    }, 'Creem')
    const data = jsonOrNull(text)
    if (status < 200 || status >= 300) throw errorFrom(status, data as ErrorBody | null)
    if (data === null || typeof data !== 'object') throw new ProviderError('unknown', 'malformed_response', `Creem answered ${method} ${path} with no JSON object`)
    return data as T
  }
}
