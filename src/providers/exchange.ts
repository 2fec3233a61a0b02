/**
 * One HTTP exchange with a provider's API, each phase (headers, body) bounded by the timeout, the
 * whole by a deadline and the body by a byte cap (limits.ts), both enforced while reading: the
 * connection is closed when one is passed. Not getting an answer is an `unknown` outcome, never a
 * failure: the request may have arrived.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Dispatcher } from 'undici'
import { ANSWER_DEADLINE_TIMEOUTS, ANSWER_MAX_BYTES, inMiB } from './limits.js'
import { gathered } from './statement-stream.js'
import { ProviderError } from './types.js'
import { undici } from './undici.js'

export interface Exchange {
  method: Dispatcher.HttpMethod
  headers: Record<string, string>
  body?: string
  dispatcher: Dispatcher
  timeoutMs: number
  /** The most the answer's body may hold: ANSWER_MAX_BYTES unless given (a statement's download gives its own). */
  maxBytes?: number
  /** The whole exchange, headers and body: ANSWER_DEADLINE_TIMEOUTS × timeoutMs unless given. */
  deadlineMs?: number
}

/**
 * Work that must end when Till stops (the statements job, jobs/runner.ts) runs inside this, with
 * the signal aborted on stop: its exchanges in flight end at once, so a download never holds a stop.
 */
export const endedOnStop = new AsyncLocalStorage<AbortSignal>()

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

/** The answer passed its byte cap: refused, the connection closed. */
export const tooLarge = (provider: string, maxBytes: number) =>
  new ProviderError('unknown', 'answer_too_large', `${provider}'s answer is larger than ${inMiB(maxBytes)}; refused`)

/**
 * The same exchange with its answer's body left as a stream, for a file of megabytes (a statement):
 * the caller reads it as it arrives, each wait for more bounded by the timeout, the whole by the
 * deadline and the cap. The caller must read it through (or stop iterating, which frees the connection).
 */
export async function exchangeStream(url: string | URL, o: Exchange, provider: string) {
  const maxBytes = o.maxBytes ?? ANSWER_MAX_BYTES
  const deadlineMs = o.deadlineMs ?? ANSWER_DEADLINE_TIMEOUTS * o.timeoutMs
  const unreachable = (e: unknown) => new ProviderError('unknown', 'network', `${provider} unreachable or too slow: ${(e as Error).message}`)
  const abort = new AbortController()
  const deadline = setTimeout(() => abort.abort(new ProviderError('unknown', 'network', `${provider}'s answer took longer than ${Math.round(deadlineMs / 1000)} s; refused`)), deadlineMs)
  // Not what keeps a process alive: a body never read leaves it set.
  deadline.unref()
  const stop = endedOnStop.getStore()
  const onStop = () => abort.abort(new ProviderError('unknown', 'stopping', `Till stopped while ${provider} answered`))
  stop?.addEventListener('abort', onStop, { once: true })
  if (stop?.aborted) onStop()
  const done = () => {
    clearTimeout(deadline)
    stop?.removeEventListener('abort', onStop)
  }
  // Past the deadline or on stop, the abort's own reason; otherwise what undici said.
  const failure = (e: unknown) => (abort.signal.aborted ? abort.signal.reason : unreachable(e))
  let res
  try {
    res = await undici().request(url, { method: o.method, headers: o.headers, body: o.body, dispatcher: o.dispatcher, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs, signal: abort.signal })
  } catch (e) {
    done()
    throw failure(e)
  }
  const raw = res.body
  const declared = Number(res.headers['content-length'])
  async function* body(): AsyncGenerator<Buffer> {
    let read = 0
    try {
      if (declared > maxBytes) throw tooLarge(provider, maxBytes)
      for await (const c of raw) {
        read += (c as Buffer).length
        if (read > maxBytes) throw tooLarge(provider, maxBytes)
        yield c as Buffer
      }
    } catch (e) {
      if (e instanceof ProviderError) throw e
      throw failure(e)
    } finally {
      done()
      // Left early (a cap passed, the reader stopped): the connection goes, not the rest of the answer.
      if (!raw.readableEnded) raw.destroy()
    }
  }
  return { statusCode: res.statusCode, headers: res.headers, body: body() }
}

/** An answer's JSON, or null when it is empty or not JSON: the caller decides what that means. */
export function jsonOrNull<T = unknown>(text: string): T | null {
  try {
    return text ? (JSON.parse(text) as T) : null
  } catch {
    return null
  }
}
