/**
 * A man in the middle between Till and a provider's fake: it passes every call on, keeps each
 * genuine answer (status, headers, body), and can send another answer instead before Till reads
 * it: bytes appended, a genuine copy wrapped, another call's signed answer replayed, a refusal
 * forged. It holds no provider key, so it cannot sign.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface Exchange {
  method: string
  /** Path and query as asked. */
  path: string
  requestBody: string
  status: number
  headers: Record<string, string>
  /** The answer's body as the provider sent it. */
  text: string
}

/** What the man in the middle sends instead: a body (status and headers kept) or a whole recorded answer. */
export type Rewrite = (call: Exchange) => string | Exchange

const PASSED_HEADERS = ['content-type', 'authorization', 'accept', 'wechatpay-serial', 'x-api-key']

export async function startMitm(t: TestContext) {
  const state: { target: string; rewrite: Rewrite | null; seen: Exchange[] } = { target: '', rewrite: null, seen: [] }
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const requestBody = Buffer.concat(chunks).toString('utf8')
    const headers: Record<string, string> = {}
    for (const h of PASSED_HEADERS) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string
    const upstream = await fetch(new URL(req.url!, state.target), { method: req.method, headers, body: req.method === 'GET' ? undefined : requestBody })
    const call: Exchange = { method: req.method!, path: req.url!, requestBody, status: upstream.status, headers: Object.fromEntries(upstream.headers), text: await upstream.text() }
    state.seen.push(call)
    const out = state.rewrite ? state.rewrite(call) : call
    const answer = typeof out === 'string' ? { ...call, text: out } : out
    const { 'content-length': _, 'transfer-encoding': __, connection: ___, 'keep-alive': ____, ...sent } = answer.headers
    res.writeHead(answer.status, sent).end(answer.text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Where calls go on to: the fake's URL, set once it is known. */
    target(url: string) {
      state.target = url
    },
    rewrite(r: Rewrite | null) {
      state.rewrite = r
    },
    /** The last genuine answer to a call matching `which`. */
    answerTo(which: (c: Exchange) => boolean): Exchange {
      const found = [...state.seen].reverse().find(which)
      if (!found) throw new Error('no such call went through')
      return found
    },
  }
}
