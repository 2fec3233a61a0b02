/** A local node:http server that answers each request as a script says: a status, a reset, or silence. */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export type Answer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | 'reset' // the connection is destroyed before any answer
  | 'hang' // no answer at all (until the server closes)

export async function faultServer(t: TestContext, script: (seen: Seen, n: number) => Answer) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      seen.push(s)
      const answer = script(s, seen.length)
      if (answer === 'reset') return req.socket.destroy()
      if (answer === 'hang') return
      const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
      res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${seen.length}`, ...answer.headers })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}
