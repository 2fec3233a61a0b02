/**
 * An https front for Medusa on loopback: Till sends live-mode webhooks to https addresses only, and
 * Medusa's test runner serves plain http. It terminates TLS with Till's test certificate (which the
 * Till of these tests trusts) and passes each request, body and headers unchanged, to Medusa.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { TEST_CERT, TEST_KEY } from './till'

export async function startHttpsFront(backendPort: () => number) {
  const server = https.createServer({ cert: readFileSync(TEST_CERT), key: readFileSync(TEST_KEY) }, (req, res) => {
    const upstream = http.request({ host: '127.0.0.1', port: backendPort(), method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
