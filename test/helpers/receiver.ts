/**
 * A merchant's webhook receiver: a real node:http server on 127.0.0.1 that keeps the raw body bytes
 * and headers of every request, answers as the test says (or never), and lets a test wait for the
 * n-th request through a promise instead of sleeping.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import http, { type IncomingHttpHeaders } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'
import type { TestApp } from './app.js'

export interface Received {
  body: Buffer
  headers: IncomingHttpHeaders
  method: string
  url: string
  /** performance.now() when the body had fully arrived. */
  at: number
  json: any
}

export interface Answer {
  status: number
  body?: string | Buffer
  headers?: Record<string, string>
}

/** What to answer the n-th request (0-based), possibly later; 'hang' never answers. */
export type Respond = (r: Received, n: number) => Answer | 'hang' | Promise<Answer>

export interface Receiver {
  url: string
  port: number
  requests: Received[]
  /** TCP connections accepted, whatever was sent on them (a TLS handshake counts too). */
  connections(): number
  /** Resolves once `n` requests in all have arrived. */
  received(n: number): Promise<Received[]>
  respond(fn: Respond): void
}

/** A self-signed certificate for 127.0.0.1, ::1 and localhost (valid until 2126), for live-mode https receivers. */
export const TEST_TLS = {
  cert: readFileSync(new URL('../fixtures/tls-cert.pem', import.meta.url)),
  key: readFileSync(new URL('../fixtures/tls-key.pem', import.meta.url)),
}
/** What the webhook sender must trust to reach a TLS receiver. */
export const TRUST_TEST_CA = { ca: TEST_TLS.cert }

export async function startReceiver(t: TestContext, respond: Respond = () => ({ status: 200, body: 'ok' }), opts: { tls?: boolean } = {}): Promise<Receiver> {
  const requests: Received[] = []
  const waiters: { n: number; resolve: (r: Received[]) => void }[] = []
  let connections = 0
  let answer = respond
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      let json: unknown = null
      try {
        json = JSON.parse(body.toString('utf8'))
      } catch {}
      const r: Received = { body, headers: req.headers, method: req.method!, url: req.url!, at: performance.now(), json }
      const n = requests.push(r) - 1
      for (const w of waiters.filter((w) => requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(requests.slice())
      }
      const a = answer(r, n)
      if (a === 'hang') return
      void Promise.resolve(a).then((a) => res.writeHead(a.status, a.headers).end(a.body ?? ''))
    })
  }
  const server = opts.tls ? https.createServer(TEST_TLS, handler) : http.createServer(handler)
  // TCP connections, counted before any TLS handshake: a refused delivery never gets this far.
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}/hooks`,
    port,
    requests,
    connections: () => connections,
    received: (n) => (requests.length >= n ? Promise.resolve(requests.slice()) : new Promise((resolve) => waiters.push({ n, resolve }))),
    respond: (fn) => {
      answer = fn
    },
  }
}

/** The merchant's side of the signature: HMAC-SHA256 of the raw bytes, any comma-separated entry may match. */
export function verifySignature(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'))
  return String(header ?? '').split(',').some((s) => {
    const given = Buffer.from(s.trim())
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

/** Registers an endpoint through the API and returns its answer (with the secret). */
export async function createEndpoint(ta: TestApp, url: string, extra: Record<string, unknown> = {}, key = ta.merchant.testKey) {
  const res = await ta.request('POST', '/api/v1/webhook_endpoints', { key, body: { url, ...extra } })
  if (res.status !== 201) throw new Error(`endpoint not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; url: string; mode: string; events: string[] | null; enabled: boolean; secret: string }
}

/** A delivery row as stored. */
export async function deliveryRows(ta: TestApp, where = 'true', params: unknown[] = []) {
  const { rows } = await ta.database.pool.query(`select d.*, e.type from webhook_deliveries d join events e on e.id = d.event_id where ${where} order by d.id`, params)
  return rows as Record<string, any>[]
}
