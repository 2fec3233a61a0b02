/**
 * One webhook POST with undici: a hard deadline, no redirects followed, the first KiB of the answer
 * kept, and every connection dialled only to an address the SSRF rule allows (checked after DNS, then
 * pinned, so a name cannot resolve one way for the check and another way for the connection).
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { ConnectionOptions } from 'node:tls'
import { Agent, buildConnector, request } from 'undici'
import type { Mode } from '../domain/checkout-rules.js'
import { RESPONSE_SNIPPET_BYTES } from '../domain/webhooks.js'
import { classifyAddress, mayConnect } from '../security/private-address.js'

export interface SendResult {
  statusCode: number | null
  latencyMs: number
  responseBody: string | null
  error: string | null
  retryAfter: string | undefined
}

export interface SenderOptions {
  allowPrivate: boolean
  timeoutMs: number
  /** Extra TLS options (tests trust their own certificate authority). */
  tls?: ConnectionOptions
}

class RefusedAddress extends Error {
  constructor(host: string, address: string, kind: string) {
    super(`refused to connect to ${host} (${address}, a ${kind} address): set WEBHOOK_ALLOW_PRIVATE=1 to allow it`)
  }
}

/** Resolves the host and returns the first address the rule allows, or throws naming what it found. */
async function allowedAddress(host: string, allow: (kind: ReturnType<typeof classifyAddress>) => boolean): Promise<string> {
  const found = isIP(host) ? [{ address: host }] : await lookup(host, { all: true })
  const ok = found.find((a) => allow(classifyAddress(a.address)))
  if (ok) return ok.address
  throw new RefusedAddress(host, found[0].address, classifyAddress(found[0].address))
}

function guardedAgent(mode: Mode, o: SenderOptions): Agent {
  const base = buildConnector({ timeout: o.timeoutMs, ...o.tls })
  const connect: buildConnector.connector = (opts, cb) => {
    // The certificate is still checked against the name: TLS takes it from `host`, we only pin the address.
    allowedAddress(opts.hostname, (kind) => mayConnect(kind, mode, o.allowPrivate)).then(
      (address) => base({ ...opts, hostname: address }, cb),
      (err: Error) => cb(err, null),
    )
  }
  return new Agent({ connect, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs, keepAliveTimeout: 4_000 })
}

/** PostgreSQL text cannot hold NUL; a binary answer is kept readable rather than failing to record. */
const storable = (s: string) => s.replace(/\u0000/g, '\uFFFD')

export function createSender(o: SenderOptions) {
  const agents: Record<Mode, Agent> = { test: guardedAgent('test', o), live: guardedAgent('live', o) }

  async function send(mode: Mode, url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now()
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(), o.timeoutMs)
    const elapsed = () => Math.round(performance.now() - started)
    try {
      const res = await request(url, { method: 'POST', headers, body, dispatcher: agents[mode], signal: deadline.signal })
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
      await Promise.all(Object.values(agents).map((a) => a.destroy()))
    },
  }
}

export type Sender = ReturnType<typeof createSender>
