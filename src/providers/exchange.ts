/**
 * One HTTP exchange with a provider's API, each phase (headers, body) bounded by the timeout. Not
 * getting an answer is an `unknown` outcome, never a failure: the request may have arrived.
 */
import type { Dispatcher } from 'undici'
import { gathered } from './statement-stream.js'
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
  const res = await exchangeStream(url, o, provider)
  // Bytes (a small file's, an error's); text for the JSON answers.
  const body = await gathered(res.body)
  return { status: res.statusCode, headers: res.headers, body, text: body.toString('utf8') }
}

/**
 * The same exchange with its answer's body left as a stream, for a file of megabytes (a statement):
 * the caller reads it as it arrives, each wait for more bounded by the timeout. The caller must
 * read it through (or stop iterating, which frees the connection).
 */
export async function exchangeStream(url: string | URL, o: Exchange, provider: string) {
  const unreachable = (e: unknown) => new ProviderError('unknown', 'network', `${provider} unreachable or too slow: ${(e as Error).message}`)
  let res
  try {
    res = await undici().request(url, { method: o.method, headers: o.headers, body: o.body, dispatcher: o.dispatcher, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs })
  } catch (e) {
    throw unreachable(e)
  }
  const raw = res.body
  async function* body(): AsyncGenerator<Buffer> {
    try {
      for await (const c of raw) yield c as Buffer
    } catch (e) {
      throw unreachable(e)
    }
  }
  return { statusCode: res.statusCode, headers: res.headers, body: body() }
}
