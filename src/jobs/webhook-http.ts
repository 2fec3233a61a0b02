/**
 * One webhook POST with undici: a hard deadline, no redirects followed, the first KiB of the answer
 * kept, and every connection dialled only to an address the SSRF rule allows (checked after DNS, then
 * pinned, so a name cannot resolve one way for the check and another way for the connection).
 */
import type { ConnectionOptions } from 'node:tls'
import { request, type Agent } from 'undici'
import { RESPONSE_SNIPPET_BYTES } from '../domain/webhooks.js'
import { guardedAgent, type RefusalLog, type Resolve } from '../security/guarded-agent.js'

export interface SendResult {
  statusCode: number | null
  latencyMs: number
  responseBody: string | null
  error: string | null
  retryAfter: string | undefined
}

export interface SenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE (config.ts): loopback, private and link-local receivers too, in both modes. */
  allowPrivate: boolean
  timeoutMs: number
  /** Extra TLS options (tests trust their own certificate authority). */
  tls?: ConnectionOptions
  /** The SSRF check's resolver (tests); node:dns by default. */
  lookup?: Resolve
  /** The server log, for what a refused name resolved to (the merchant's delivery log is not told). */
  log?: RefusalLog
}

function guardedDelivery(o: SenderOptions): Agent {
  return guardedAgent({
    allowPrivate: () => o.allowPrivate,
    flag: 'WEBHOOK_ALLOW_PRIVATE',
    timeoutMs: o.timeoutMs,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    keepAliveTimeout: 4_000,
    tls: o.tls,
    lookup: o.lookup,
    log: o.log,
  })
}

/** PostgreSQL text cannot hold NUL; a binary answer is kept readable rather than failing to record. */
const storable = (s: string) => s.replace(/\u0000/g, '\uFFFD')

export function createSender(o: SenderOptions) {
  const agent = guardedDelivery(o)

  async function send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now()
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(), o.timeoutMs)
    const elapsed = () => Math.round(performance.now() - started)
    try {
      const res = await request(url, { method: 'POST', headers, body, dispatcher: agent, signal: deadline.signal })
      // The status decides; the answer's first KiB is kept for the merchant, read within the same deadline.
      const chunks: Buffer[] = []
      let size = 0
      try {
        for await (const chunk of res.body) {
          chunks.push(chunk as Buffer)
          size += (chunk as Buffer).length
          if (size >= RESPONSE_SNIPPET_BYTES) break
        }
      } catch {
        // A body cut short (the deadline, a reset) still leaves the status code that counts.
      }
      res.body.destroy()
      const retryAfter = res.headers['retry-after']
      return {
        statusCode: res.statusCode,
        latencyMs: elapsed(),
        responseBody: storable(Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8')),
        error: null,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      }
    } catch (e) {
      const err = e as Error & { code?: string }
      const error = deadline.signal.aborted ? `timed out after ${o.timeoutMs} ms` : err.code ? `${err.code}: ${err.message}` : err.message
      return { statusCode: null, latencyMs: elapsed(), responseBody: null, error: storable(error), retryAfter: undefined }
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    send,
    async close() {
      await agent.destroy()
    },
  }
}

export type Sender = ReturnType<typeof createSender>
