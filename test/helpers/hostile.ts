/**
 * What a merchant's own "provider" could send Till (issue 36): zips, gzip and bodies built to
 * exhaust a process, a server that serves them, and the measures a test takes while Till reads
 * them: the process's memory growth and another merchant's answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import type { TestContext } from 'node:test'
import { createGzip } from 'node:zlib'
import yazl from 'yazl'
import type { TestApp } from './app.js'
import { runQueueWaitMs } from './loop-holds.js'

const MiB = 1 << 20

/** `mib` MiB of zeros, a MiB at a time (never held whole). */
export const zeros = (mib: number) => Readable.from((function* () {
  const block = Buffer.alloc(MiB)
  for (let i = 0; i < mib; i++) yield block
})())

async function collected(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const c of stream) parts.push(c as Buffer)
  return Buffer.concat(parts)
}

/** A zip of these entries (a stream, each deflated as it comes), the size of each given up front (yazl). */
export function zipOf(entries: { name: string; body: Buffer | Readable; size?: number }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const e of entries) {
    if (Buffer.isBuffer(e.body)) zip.addBuffer(e.body, e.name, { compress: e.body.length > 0 })
    else zip.addReadStream(e.body, e.name, { size: e.size })
  }
  zip.end()
  return collected(zip.outputStream)
}

/** `mib` MiB of zeros gzipped (a few hundred KB that unpack to all of it). */
export const gzipBomb = (mib: number) => collected(zeros(mib).pipe(createGzip()))

/** A server answering every request with `serve`, closed with the test; `requests` counts what reached it. */
export async function hostileServer(t: TestContext, serve: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: IncomingMessage[] = []
  let arrived: () => void
  const first = new Promise<void>((resolve) => (arrived = resolve))
  const server = createServer((req, res) => {
    seen.push(req)
    arrived()
    serve(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, first }
}

/** Answers with `body` whole. */
export const serveBytes = (body: Buffer, type = 'application/octet-stream') => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': type })
  res.end(body)
}

/** Answers 200 and sends zeros for as long as the connection stays; `closed` resolves when the reader hangs up. */
export function serveEndless() {
  let hungUp: () => void
  const closed = new Promise<void>((resolve) => (hungUp = resolve))
  const serve = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/zip' })
    const block = Buffer.alloc(64 * 1024)
    const pump = () => {
      while (!res.destroyed && res.write(block));
    }
    res.on('drain', pump)
    res.on('close', () => hungUp())
    pump()
  }
  return { serve, closed }
}

/**
 * Runs `work` while measuring: the process's memory growth (heap and buffers, sampled every 5 ms,
 * against what it used before), and another merchant's GET answered one after another throughout,
 * each one's time and the slowest of 20 asked before, on a quiet process. Each time leaves out what
 * the machine kept this process waiting for a CPU meanwhile (other work on a busy machine), which
 * is not the hostile file holding it up.
 */
export async function measured<T>(ta: TestApp, key: string, work: () => Promise<T>) {
  const waited = runQueueWaitMs()
  const ask = async () => {
    const at = performance.now()
    const stalled = waited()
    const res = await ta.request('GET', '/api/v1/sessions?limit=1', { key })
    if (res.status !== 200) throw new Error(`the other merchant's GET answered ${res.status}`)
    return performance.now() - at - (waited() - stalled)
  }
  const before: number[] = []
  for (let i = 0; i < 20; i++) before.push(await ask())
  const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers }
  const base = used()
  let peak = base
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 5)
  let done = false
  const during: number[] = []
  const asking = (async () => {
    while (!done) during.push(await ask())
  })()
  try {
    const result = await work()
    return { result, growthMiB: (peak - base) / MiB, quietMs: Math.max(...before), slowestMs: Math.max(0, ...during), answered: during.length }
  } finally {
    done = true
    clearInterval(sampler)
    await asking
  }
}
