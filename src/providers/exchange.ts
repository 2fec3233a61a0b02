/**
 * One HTTP exchange with a provider's API, each phase (headers, body) bounded by the timeout. Not
 * getting an answer is an `unknown` outcome, never a failure: the request may have arrived.
 */
import type { Dispatcher } from 'undici'
import { ProviderError } from './types.js'
import { undici } from './undici.js'

export interface Exchange {
  method: Dispatcher.HttpMethod
  headers: Record<string, string>
  body?: string
  dispatcher: Dispatcher
  timeoutMs: number
}

/**
 * A provider client's connections: the dispatcher it was given (Till's guarded agent, deps.ts), or
 * its own keep-alive agent (a test's or a command's adapter), which `close` ends.
 */
export function clientDispatcher(given: Dispatcher | undefined, timeoutMs: number) {
  const dispatcher = given ?? new (undici().Agent)({ connect: { timeout: timeoutMs }, keepAliveTimeout: 10_000 })
  return { dispatcher, close: async () => { if (!given) await dispatcher.close() } }
}

export async function exchange(url: string | URL, o: Exchange, provider: string) {
  try {
    const res = await undici().request(url, { method: o.method, headers: o.headers, body: o.body, dispatcher: o.dispatcher, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs })
    // Bytes, for files (a gzip statement); text for the JSON answers.
    const body = Buffer.from(await res.body.arrayBuffer())
    return { status: res.statusCode, headers: res.headers, body, text: body.toString('utf8') }
  } catch (e) {
    throw new ProviderError('unknown', 'network', `${provider} unreachable or too slow: ${(e as Error).message}`)
  }
}
