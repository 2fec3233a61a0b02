/**
 * One request sender for every resource, after stripe-node's RequestSender: an Idempotency-Key on
 * every POST (the caller's, or a fresh UUID), kept across retries, so a retry can never run twice.
 * Retried: no answer (network error, timeout), 409 (the same key still in flight), 429 and 5xx.
 */
import { randomUUID } from 'node:crypto'
import { TillConnectionError, TillError, parseRetryAfterMs } from './errors.js'

export const VERSION = '0.1.0'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** Per-call options, the last argument of every method. */
export interface RequestOptions {
  /** Sent as Idempotency-Key on a POST instead of a generated one; never replaced, reused on every retry. */
  idempotencyKey?: string
  /** Overrides the client's timeoutMs for this call (each attempt). */
  timeoutMs?: number
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number
}

export interface SenderConfig {
  apiKey: string
  baseUrl: string
  timeoutMs: number
  maxRetries: number
  /** First backoff wait; doubles per retry up to retryMaxMs, with jitter down to half. */
  retryBaseMs: number
  retryMaxMs: number
  /** A Retry-After longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs: number
  fetch: typeof fetch
  sleep: (ms: number) => Promise<void>
}

const RETRYABLE = (status: number) => status === 409 || status === 429 || status >= 500

export class RequestSender {
  constructor(private readonly cfg: SenderConfig) {}

  async request<T>(method: HttpMethod, path: string, input: { body?: unknown; query?: object }, opts: RequestOptions = {}): Promise<T> {
    const url = this.cfg.baseUrl + path + queryString(input.query)
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.cfg.apiKey}`,
      accept: 'application/json',
      'user-agent': `till-node/${VERSION} node/${process.versions.node}`,
    }
    let payload: string | undefined
    if (method === 'POST') {
      // Chosen once per call, so every retry below carries the same key.
      headers['idempotency-key'] = opts.idempotencyKey ?? randomUUID()
    }
    if (method === 'POST' || method === 'PATCH') {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(input.body ?? {})
    }
    const maxRetries = opts.maxRetries ?? this.cfg.maxRetries
    const timeoutMs = opts.timeoutMs ?? this.cfg.timeoutMs

    for (let attempt = 0; ; attempt++) {
      let res: Response
      let text: string
      try {
        // The signal also bounds reading the body, so a server that stalls mid-answer times out too.
        res = await this.cfg.fetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(timeoutMs) })
        text = await res.text()
      } catch (err) {
        if (attempt < maxRetries) {
          await this.cfg.sleep(this.backoff(attempt))
          continue
        }
        const timedOut = (err as Error)?.name === 'TimeoutError'
        const what = timedOut ? `timed out after ${timeoutMs} ms` : `failed: ${describe(err)}`
        throw new TillConnectionError(`${method} ${path} ${what} (${attempt + 1} attempt${attempt ? 's' : ''})`, err, timedOut)
      }
      if (res.ok) return parseBody(text) as T
      const retryAfterMs = parseRetryAfterMs(res.headers.get('retry-after'), Date.now())
      const acceptableWait = retryAfterMs === null || retryAfterMs <= this.cfg.maxRetryAfterMs
      if (attempt < maxRetries && RETRYABLE(res.status) && acceptableWait) {
        await this.cfg.sleep(retryAfterMs ?? this.backoff(attempt))
        continue
      }
      throw TillError.fromResponse(res.status, parseBody(text), res.headers)
    }
  }

  /** Exponential backoff with jitter: spreads the retries of many clients that failed together. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.cfg.retryMaxMs, this.cfg.retryBaseMs * 2 ** attempt)
    return Math.round(ceiling * (0.5 + Math.random() / 2))
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function queryString(query: object | undefined): string {
  if (!query) return ''
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue
    // An object (metadata) goes as OpenAPI's deepObject: metadata[order]=A-1.
    if (typeof v === 'object' && !(v instanceof Date)) for (const [sub, x] of Object.entries(v)) q.append(`${k}[${sub}]`, String(x))
    else q.append(k, v instanceof Date ? v.toISOString() : String(v))
  }
  const s = q.toString()
  return s ? `?${s}` : ''
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } }
  // fetch reports every network failure as "fetch failed"; the useful part is the cause.
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err)
}
