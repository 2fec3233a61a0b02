/**
 * One HTTP exchange with a provider's API, each phase (headers, body) bounded by the timeout. Not
 * getting an answer is an `unknown` outcome, never a failure: the request may have arrived.
 */
import { request, type Dispatcher } from 'undici'
import { ProviderError } from './types.js'

export interface Exchange {
  method: Dispatcher.HttpMethod
  headers: Record<string, string>
  body?: string
  dispatcher: Dispatcher
  timeoutMs: number
}

export async function exchange(url: string | URL, o: Exchange, provider: string) {
  try {
    const res = await request(url, { method: o.method, headers: o.headers, body: o.body, dispatcher: o.dispatcher, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs })
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
  } catch (e) {
    throw new ProviderError('unknown', 'network', `${provider} unreachable or too slow: ${(e as Error).message}`)
  }
}
