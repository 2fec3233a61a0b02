/**
 * The load generator, in its own process (forked by load.ts): autocannon against one or more base
 * URLs at once, one autocannon instance per URL, each with its share of the connections and rate.
 * Latencies are taken from each response at microsecond resolution (autocannon's own histogram
 * keeps whole milliseconds); only 2xx answers count as served.
 */
import autocannon from 'autocannon'

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

function run(url: string, spec: LoadSpec, share: number, offset: number): Promise<{ latencies: number[]; codes: Record<string, number>; errors: number; seconds: number }> {
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
      ...(spec.rate ? { overallRate: Math.max(1, Math.round(spec.rate * share)) } : {}),
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
