/**
 * The load generator, in its own process (forked by load.ts), against one or more base URLs at once,
 * each with its share of the connections and rate. As fast as they answer: autocannon, one instance
 * per URL. At a fixed rate: an evenly paced open loop (`paced` below). Latencies are taken from
 * each response at microsecond resolution (autocannon's own histogram keeps whole milliseconds);
 * only 2xx answers count as served.
 */
import autocannon from 'autocannon'
import http from 'node:http'

export interface LoadSpec {
  urls: string[]
  method: 'GET' | 'POST'
  headers: Record<string, string>
  /** Request paths, used in turn; one path for all when there is one. */
  paths: string[]
  /** Request bodies, used in turn (POST); none for GET. */
  bodies?: string[]
  /** A header given a value of its own on every request (Idempotency-Key). */
  uniqueHeader?: string
  connections: number
  seconds: number
  /** Requests per second over all URLs; none: as fast as they answer. */
  rate?: number
}

export interface LoadResult {
  requests: number
  seconds: number
  rps: number
  p50: number
  p99: number
  max: number
  non2xx: Record<string, number>
  errors: number
}

interface Part {
  latencies: number[]
  codes: Record<string, number>
  errors: number
  seconds: number
}

function run(url: string, spec: LoadSpec, share: number, offset: number): Promise<Part> {
  if (spec.rate) return paced(url, { ...spec, connections: Math.max(1, Math.round(spec.connections * share)) }, spec.rate * share, offset)
  const latencies: number[] = []
  const codes: Record<string, number> = {}
  let i = offset
  const { paths, bodies } = spec
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const instance = autocannon({
      url,
      method: spec.method,
      headers: spec.headers,
      connections: Math.max(1, Math.round(spec.connections * share)),
      duration: spec.seconds,
      requests: [{
        setupRequest: (req: Record<string, unknown>) => {
          const n = i++
          req.path = paths[n % paths.length]
          if (bodies) req.body = bodies[n % bodies.length]
          if (spec.uniqueHeader) req.headers = { ...spec.headers, [spec.uniqueHeader]: `${process.pid}-${url}-${n}` }
          return req
        },
      }],
      skipAggregateResult: true,
    }, (err: Error | null, result: { errors: number }) => {
      if (err) reject(err)
      else resolve({ latencies, codes, errors: result.errors, seconds: (performance.now() - started) / 1000 })
    })
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms)
      else codes[status] = (codes[status] ?? 0) + 1
    })
  })
}

/**
 * A fixed rate, evenly paced: request n is due at start + n / rate, sent when due whether or not
 * earlier ones have answered (open loop), over a keep-alive pool of `connections` sockets; its
 * latency counts from the send, so waiting for a free socket counts and the timer's own lateness
 * (up to a millisecond) does not. The first second warms this process (JIT, sockets) and is not
 * measured. Not autocannon's `overallRate`, which sends each second's quota back to back at the
 * start of the second (its httpClient's reqsMadeThisSecond): that measures bursts at full speed.
 */
const WARM_MS = 1000

function paced(url: string, spec: LoadSpec, rate: number, offset: number): Promise<Part> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(1, spec.connections) })
  const latencies: number[] = []
  const codes: Record<string, number> = {}
  let errors = 0
  let n = 0
  let open = 0
  const interval = 1000 / rate
  const started = performance.now()
  const measured = started + WARM_MS
  const end = measured + spec.seconds * 1000
  return new Promise((resolve) => {
    const finish = () => {
      if (performance.now() < end || open > 0) return
      agent.destroy()
      resolve({ latencies, codes, errors, seconds: spec.seconds })
    }
    const send = () => {
      const k = offset + n++
      const headers = spec.uniqueHeader ? { ...spec.headers, [spec.uniqueHeader]: `${process.pid}-${url}-${k}` } : spec.headers
      const body = spec.bodies?.[k % spec.bodies.length]
      open++
      const sent = performance.now()
      const req = http.request(url + spec.paths[k % spec.paths.length], { method: spec.method, headers, agent }, (res) => {
        res.resume()
        res.on('end', () => {
          const status = res.statusCode ?? 0
          if (sent >= measured) {
            if (status >= 200 && status < 300) latencies.push(performance.now() - sent)
            else codes[status] = (codes[status] ?? 0) + 1
          }
          open--
          finish()
        })
      })
      req.on('error', () => {
        errors++
        open--
        finish()
      })
      req.end(body)
    }
    const tick = () => {
      const now = performance.now()
      while (started + n * interval <= now && now < end) send()
      if (now < end) setTimeout(tick, Math.max(0, started + n * interval - performance.now()))
      else finish()
    }
    tick()
  })
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN)

export async function load(spec: LoadSpec): Promise<LoadResult> {
  const share = 1 / spec.urls.length
  const stride = Math.ceil((spec.bodies?.length ?? spec.paths.length) / spec.urls.length)
  const parts = await Promise.all(spec.urls.map((u, k) => run(u, spec, share, k * stride)))
  const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b)
  const non2xx: Record<string, number> = {}
  for (const p of parts) for (const [c, n] of Object.entries(p.codes)) non2xx[c] = (non2xx[c] ?? 0) + n
  const seconds = Math.max(...parts.map((p) => p.seconds))
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    non2xx,
    errors: parts.reduce((s, p) => s + p.errors, 0),
  }
}

if (process.send) {
  process.on('message', (spec: LoadSpec) => {
    load(spec).then(
      (result) => process.send!({ result }),
      (e: Error) => process.send!({ error: String(e.stack ?? e) }),
    )
  })
  process.send({ ready: true })
}
