/**
 * `till webhooks listen`: a running Till's test-mode events, as they happen, forwarded to a local
 * URL, like the Stripe CLI's `listen`. It uses only Till's public API: it opens an HTTP listener on
 * 127.0.0.1, registers it as a temporary webhook endpoint with the test key (a Till serving this
 * machine alone delivers to loopback by default; others need WEBHOOK_ALLOW_PRIVATE=1), verifies
 * each delivery with that endpoint's secret, re-signs the same raw bytes with a local secret
 * printed at start, forwards them, and answers Till with the outcome: 200 when the
 * local receiver took it (2xx), 502 otherwise, so Till's retry schedule applies. Ctrl-C or SIGTERM
 * deletes the endpoint. A listener killed outright leaves its endpoint behind; the next listen
 * against a Till on this machine finds it (its port no longer answers) and deletes it.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifyWebhookSignature } from '@till-payments/node'
import { randomBase62 } from '../domain/ids.js'
import { EVENT_TYPES } from '../domain/events.js'
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, sign } from '../domain/webhooks.js'
import { generateWebhookSecret } from '../security/api-keys.js'
import { connectionHelp, API_OPTIONS, CliError, integer, optionalString, required, usageError, type Group } from './args.js'
import { TYPES_HELP } from './events.js'
import { merchantApi, type MerchantApi } from './http.js'
import { keptSecret, LOCAL_SECRET } from './listen-secrets.js'
import { print, time } from './output.js'
import { eventFilter, webhookEndpoints } from './webhook-endpoints.js'

const PATH_PREFIX = '/till-listen/'
/** Below Till's 10 s delivery timeout, so Till hears our 502 rather than timing out itself. */
const FORWARD_TIMEOUT_MS = 9_000
const MAX_BODY = 1024 * 1024
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** An absolute http(s) URL; `localhost:3000/hook`, without a scheme, means http (as the Stripe CLI's `listen` takes it). */
export function httpUrl(value: string, flag: string): URL {
  let url: URL | null = null
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`)
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw usageError(`${flag} must be an absolute http(s) URL, not ${JSON.stringify(value)}`)
  return url
}


const describeError = (e: unknown): string => {
  const err = e as Error & { cause?: { code?: string; message?: string } }
  if (err?.name === 'TimeoutError') return `timed out after ${FORWARD_TIMEOUT_MS / 1000} s`
  if (err?.cause?.code === 'ECONNREFUSED') return 'connection refused'
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e)
}

/** POSTs the raw bytes to the local receiver, signed with the local secret; its status, or why there is none. */
async function forward(to: string, raw: Buffer, headers: Record<string, string>): Promise<{ status: number } | { error: string }> {
  try {
    const res = await fetch(to, { method: 'POST', headers, body: new Uint8Array(raw), redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) })
    await res.body?.cancel()
    return { status: res.status }
  } catch (e) {
    return { error: describeError(e) }
  }
}

/** Whether anything answers HTTP at this URL; false only for a refused connection (no listener any more). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
    await res.body?.cancel()
    return true
  } catch (e) {
    return (e as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED'
  }
}

/**
 * Endpoints left by listeners that were killed outright. Only when Till runs on this machine: then
 * a loopback endpoint URL means this machine's loopback, and a refused connection a dead listener.
 */
async function removeStale(api: MerchantApi) {
  if (!LOOPBACK.has(new URL(api.url).hostname)) return
  const { data } = await api.call((till) => till.webhookEndpoints.list())
  for (const e of data) {
    const u = new URL(e.url)
    if (!u.pathname.startsWith(PATH_PREFIX) || !LOOPBACK.has(u.hostname) || (await answers(e.url))) continue
    await api.call((till) => till.webhookEndpoints.delete(e.id))
    process.stderr.write(`Removed ${e.id} (${e.url}), left behind by an earlier till webhooks listen that is gone.\n`)
  }
}

export const webhooks: Group = {
  name: 'webhooks',
  summary: 'webhook endpoints, and test-mode webhooks forwarded to a local URL as they happen',
  commands: {
    endpoints: webhookEndpoints,
    listen: {
      summary: 'receive test-mode events as they happen and forward them to a local URL',
      help: `usage: till webhooks listen --forward-to URL [--events TYPE,…] [--secret SECRET]
                             [--port N] [--host ADDRESS] [--public-url URL]

Receives the test-mode events of the key's merchant as they happen and forwards each to URL,
re-signed with a webhook secret printed at start (X-Service-Signature, as Till signs; the same
secret every time for this Till and URL on this machine, kept in ~/.config/till), and prints
one line per event: time, type, id and your receiver's status (or the error). Needs a test key.

How: it opens a listener on 127.0.0.1 and registers it with Till as a temporary webhook endpoint,
which Ctrl-C, SIGTERM, SIGHUP or a closed output pipe deletes. A Till only this machine reaches (HOST and BASE_URL on loopback,
as npm start has them) delivers to it by default; any other needs WEBHOOK_ALLOW_PRIVATE=1, or use
--public-url. A delivery your receiver does not answer with a 2xx is answered 502 to Till, which
retries it on its usual schedule (1 min, 5 min, …); \`till events resend EVENT_ID\` sends one
again at once.

  --forward-to URL     your local webhook receiver, e.g. http://localhost:3000/hook (no scheme: http)
  --events TYPE,…      only these types, comma-separated (see below)
  --secret SECRET      sign with this whsec_… secret instead of the kept one (a local test
                       secret, not a Till credential)
  --port N             the listener's port (default: any free port)
  --host ADDRESS       the listener's address (default 127.0.0.1)
  --public-url URL     the address Till should deliver to, when Till runs on another machine
                       (e.g. a tunnel to this listener); default http://127.0.0.1:PORT/…
${connectionHelp('api')}

${TYPES_HELP}

example:
  TILL_API_KEY=sk_test_… till webhooks listen --forward-to http://localhost:3000/hook`,
      options: {
        ...API_OPTIONS,
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        secret: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'public-url': { type: 'string' },
      },
      async run({ values }) {
        const forwardTo = httpUrl(required(values, 'forward-to', 'your local receiver, e.g. http://localhost:3000/hook'), '--forward-to').href
        const events = eventFilter(optionalString(values, 'events'))
        const givenSecret = optionalString(values, 'secret')
        if (givenSecret !== undefined && !LOCAL_SECRET.test(givenSecret)) throw usageError('--secret must look like whsec_ followed by at least 16 letters or digits')
        const port = integer(optionalString(values, 'port') ?? '0', '--port', 0, 65535)
        const host = optionalString(values, 'host') ?? '127.0.0.1'
        const publicUrl = optionalString(values, 'public-url')
        if (publicUrl !== undefined) httpUrl(publicUrl, '--public-url')
        const api = merchantApi(values)
        if (api.mode === 'live') throw usageError('webhooks listen forwards test-mode events only: use a test key (sk_test_…)')
        const localSecret = givenSecret ?? keptSecret(`${api.url} ${forwardTo}`, generateWebhookSecret)

        // Registered first: a signal during setup must still remove whatever endpoint exists by then.
        let stopRequested!: (signal: string) => void
        const stopped = new Promise<string>((resolve) => (stopRequested = resolve))
        for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => stopRequested(sig))
        // Output piped into a program that went away (`… | head`): stop as on a signal, removing the endpoint.
        process.stdout.on('error', (e: NodeJS.ErrnoException) => {
          if (e.code === 'EPIPE') stopRequested('EPIPE')
        })

        await removeStale(api)
        const path = `${PATH_PREFIX}${randomBase62(16)}`
        let endpointSecret!: (secret: string) => void
        const verifyWith = new Promise<string>((resolve) => (endpointSecret = resolve))
        const server = http.createServer((req, res) => {
          if (req.url !== path) return res.writeHead(404).end()
          // Answered to the stale-endpoint probe of another listen: this one is alive.
          if (req.method === 'GET') return res.writeHead(200, { 'content-type': 'text/plain' }).end('till webhooks listen\n')
          if (req.method !== 'POST') return res.writeHead(405).end()
          const chunks: Buffer[] = []
          let size = 0
          req.on('data', (c: Buffer) => {
            size += c.length
            if (size <= MAX_BODY) chunks.push(c)
          })
          req.on('end', () => {
            if (size > MAX_BODY) return res.writeHead(413).end()
            relay(Buffer.concat(chunks), req.headers, res).catch((e: Error) => {
              process.stderr.write(`${time(new Date().toISOString())}  could not relay a delivery: ${e.message}\n`)
              if (!res.headersSent) res.writeHead(500).end()
            })
          })
        })

        async function relay(raw: Buffer, headers: http.IncomingHttpHeaders, res: http.ServerResponse) {
          if (!verifyWebhookSignature(raw, headers['x-service-signature'], await verifyWith)) {
            process.stderr.write(`${time(new Date().toISOString())}  ignored a request without a valid Till signature\n`)
            return res.writeHead(400, { 'content-type': 'text/plain' }).end('signature does not match\n')
          }
          const eventId = String(headers['x-service-event-id'] ?? '?')
          const type = String(headers['x-service-event-type'] ?? '?')
          const outcome = await forward(forwardTo, raw, {
            'content-type': 'application/json',
            'user-agent': 'Till-Webhooks/1.0 (till webhooks listen)',
            [EVENT_ID_HEADER]: eventId,
            [EVENT_TYPE_HEADER]: type,
            [SIGNATURE_HEADER]: sign(localSecret, raw),
          })
          const ok = 'status' in outcome && outcome.status >= 200 && outcome.status < 300
          const shown = 'status' in outcome ? String(outcome.status) : `error: ${outcome.error}`
          print(`${time(new Date().toISOString())}  ${type.padEnd(17)}  ${eventId}  → ${shown}`)
          res.writeHead(ok ? 200 : 502, { 'content-type': 'text/plain' }).end(`${forwardTo} answered ${shown}\n`)
        }

        await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve))
        const bound = server.address() as AddressInfo
        const close = () => {
          server.closeAllConnections()
          server.close()
        }
        let endpointId: string
        try {
          // Bound to every address (0.0.0.0, ::): Till on this machine reaches it through loopback.
          const address = bound.address === '0.0.0.0' ? '127.0.0.1' : bound.address === '::' ? '::1' : bound.address
          const url = publicUrl ?? `http://${bound.family === 'IPv6' ? `[${address}]` : address}:${bound.port}${path}`
          const endpoint = await api.call((till) => till.webhookEndpoints.create({ url, ...(events ? { events: events as (typeof EVENT_TYPES)[number][] } : {}) }))
          endpointId = endpoint.id
          endpointSecret(endpoint.secret)
        } catch (e) {
          close()
          throw e
        }
        if (!publicUrl && !LOOPBACK.has(new URL(api.url).hostname)) {
          process.stderr.write(`Warning: Till at ${api.url} may not be on this machine; it delivers to ${bound.address}:${bound.port} here only if it is. Otherwise give --public-url.\n`)
        }
        print(`Ready. Till at ${api.url} sends this merchant's test-mode events${events ? ` (${events.join(', ')})` : ''} to the temporary endpoint ${endpointId};
they are forwarded to ${forwardTo}.
Your webhook signing secret: ${localSecret}
Ctrl-C removes the endpoint and stops.`)

        const signal = await stopped
        process.stderr.write(`${signal}: removing the temporary endpoint ${endpointId}\n`)
        close()
        try {
          await api.call((till) => till.webhookEndpoints.delete(endpointId, { timeoutMs: 5000 }))
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e)
          throw new CliError(`could not remove the temporary endpoint ${endpointId}: ${why}`, 1,
            `remove it with: curl -X DELETE ${api.url}/api/v1/webhook_endpoints/${endpointId} -H "Authorization: Bearer $TILL_API_KEY"`)
        }
      },
    },
  },
}
