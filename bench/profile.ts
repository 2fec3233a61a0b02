/**
 * Reads a V8 .cpuprofile (from BENCH_PROFILE=DIR, i.e. node --cpu-prof) and prints where the time
 * went: self time per function and per package, inclusive time of chosen frames, and self time by
 * area of a request (`byArea`: authentication, SQL, Fastify…), which `npm run bench -- profile`
 * (bench/profile-bench.ts) tabulates for each load beside the ceiling's.
 * Usage: npx tsx bench/profile.ts FILE.cpuprofile [top=30] [from to]
 */
import { readFileSync } from 'node:fs'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount: number
  children?: number[]
}
export interface Profile {
  nodes: Node[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** The areas a request's CPU time is summed into, in the order reports list them. */
export const AREAS = [
  'HTTP server (node:http)', 'sockets (node:net, to clients and PostgreSQL)', 'Fastify (routing, hooks, reply)', 'validation', 'authentication', 'rate limit', 'idempotency',
  'handler and service', 'SQL (Drizzle, pg driver, socket I/O)', 'serialisation (JSON)', 'logging', 'metrics', 'crypto', 'HTTP client (undici)', 'garbage collection', 'other',
] as const
export type Area = (typeof AREAS)[number]

const PACKAGE_AREAS: [RegExp, Area][] = [
  [/^(pg|pg-pool|pg-protocol|pg-types|pgpass|postgres-\w+|drizzle-orm)$/, 'SQL (Drizzle, pg driver, socket I/O)'],
  [/^(fastify|find-my-way|avvio|light-my-request|@fastify\/.+|fast-querystring|fast-uri|toad-cache|process-warning|rfdc|abstract-logging|secure-json-parse)$/, 'Fastify (routing, hooks, reply)'],
  [/^(ajv|ajv-formats|fast-deep-equal|json-schema-traverse)$/, 'validation'],
  [/^(fast-json-stringify|@fastify\/fast-json-stringify-compiler|fast-decode-uri-component)$/, 'serialisation (JSON)'],
  [/^undici$/, 'HTTP client (undici)'],
  [/^(prom-client|bintrees|tdigest)$/, 'metrics'],
  [/^(pino|pino-std-serializers|sonic-boom|thread-stream|on-exit-leak-free|quick-format-unescaped|fast-redact)$/, 'logging'],
]
const TILL_AREAS: [RegExp, Area][] = [
  [/^api\/plugins\/validation|^api\/plugins\/json-depth|schema\.ts$/, 'validation'],
  [/^api\/plugins\/auth|^security\/api-keys/, 'authentication'],
  [/rate-limit/, 'rate limit'],
  [/idempotency/, 'idempotency'],
  [/^store\//, 'SQL (Drizzle, pg driver, socket I/O)'],
  [/^logging/, 'logging'],
  [/^metrics\//, 'metrics'],
  [/^security\/secret-box/, 'crypto'],
  [/^api\/plugins\/(errors|methods)/, 'Fastify (routing, hooks, reply)'],
]

const pathOf = (url: string) => url.replace(/^file:\/\//, '')
const packageOf = (url: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(pathOf(url))?.[1]

/**
 * The area of a frame, or null when its caller decides (Node's internals and V8's builtins are
 * counted to the code that called them: a socket write under pg is SQL, under Fastify's reply HTTP).
 */
function ownArea(fn: string, url: string): Area | null {
  if (fn === '(garbage collector)') return 'garbage collection'
  if (!url) return /^JSON\.|^stringify$|^parse$/.test(fn) ? 'serialisation (JSON)' : null
  const pkg = packageOf(url)
  if (pkg) return PACKAGE_AREAS.find(([re]) => re.test(pkg))?.[1] ?? 'other'
  const path = pathOf(url)
  if (path.includes('/src/')) {
    const rel = path.split('/src/').at(-1)!
    return TILL_AREAS.find(([re]) => re.test(rel))?.[1] ?? 'handler and service'
  }
  if (path.includes('/bench/')) return 'handler and service' // the ceiling's own code
  if (/^node:(internal\/)?crypto/.test(url)) return 'crypto'
  if (/^node:(_http_|http$|internal\/http)/.test(url)) return 'HTTP server (node:http)'
  if (/^node:(net$|internal\/stream_base_commons|internal\/net)/.test(url)) return 'sockets (node:net, to clients and PostgreSQL)'
  return null
}

/**
 * Self time (µs) per area of the samples taken between `from` and `to` (µs on the profile's clock,
 * CLOCK_MONOTONIC on Linux: what `process.hrtime` reads in any process). Idle and `(program)` (V8
 * outside JavaScript) are left out; `busy` is the sum of the rest.
 */
export function byArea(p: Profile, from = -Infinity, to = Infinity): { areas: Map<Area, number>; busy: number } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const areaOfNode = new Map<number, Area | 'skip'>()
  const resolve = (id: number): Area | 'skip' => {
    const known = areaOfNode.get(id)
    if (known) return known
    const n = byId.get(id)!
    let area: Area | 'skip' | null = /^\((idle|program|root)\)$/.test(n.callFrame.functionName) ? 'skip' : null
    for (let cur: number | undefined = id; !area && cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame
      area = ownArea(f.functionName, f.url)
    }
    area ??= 'other'
    areaOfNode.set(id, area)
    return area
  }
  const areas = new Map<Area, number>()
  let busy = 0
  let t = p.startTime
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0
    if (t < from || t > to) return
    const area = resolve(id)
    if (area === 'skip') return
    const dt = p.timeDeltas[i + 1] ?? 0 // a sample stands for the interval up to the next one
    areas.set(area, (areas.get(area) ?? 0) + dt)
    busy += dt
  })
  return { areas, busy }
}

/** µs per request by area, and in all. */
export interface PerRequest {
  areas: Map<Area, number>
  busy: number
}
export function perRequest(p: Profile, w: { from: number; to: number; requests: number }): PerRequest {
  const { areas, busy } = byArea(p, w.from, w.to)
  return { areas: new Map([...areas].map(([a, t]) => [a, t / w.requests])), busy: busy / w.requests }
}

/** `from`, `to`: a window on the profile's clock (a load's, from windows.json of `npm run bench -- profile`). */
export function summarize(file: string, top = 30, from = -Infinity, to = Infinity): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  let at = p.startTime
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0
    if (at >= from && at <= to) self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i + 1] ?? 0))
  })
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const where = (n: Node) => {
    const url = n.callFrame.url.replace(/^file:\/\//, '')
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.includes('/src/') ? 'till:' + url.split('/src/')[1] : url.startsWith('node:') ? url : url ? 'other' : '(native)')
    return pkg
  }
  const fn = new Map<string, number>()
  const pkg = new Map<string, number>()
  for (const [id, t] of self) {
    const n = byId.get(id)!
    const name = `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`
    fn.set(name, (fn.get(name) ?? 0) + t)
    const k = where(n).startsWith('till:') ? 'till' : where(n)
    pkg.set(k, (pkg.get(k) ?? 0) + t)
  }
  const pctOf = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1])
  const out = [`${file}: ${(total / 1e6).toFixed(1)} s sampled`, '', 'self time by package:']
  for (const [k, t] of sorted(pkg).slice(0, 20)) out.push(`  ${pctOf(t)}  ${k}`)
  out.push('', 'self time by function:')
  for (const [k, t] of sorted(fn).slice(0, top)) out.push(`  ${pctOf(t)}  ${k}`)
  // Inclusive time: a function's own samples and everything it called (each frame counted once per stack).
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const incl = new Map<string, number>()
  for (const [id, t] of self) {
    const seen = new Set<string>()
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!
      const name = `${n.callFrame.functionName || '(anonymous)'} ${where(n)}:${n.callFrame.lineNumber + 1}`
      if (seen.has(name)) continue
      seen.add(name)
      incl.set(name, (incl.get(name) ?? 0) + t)
    }
  }
  out.push('', 'inclusive time by function:')
  for (const [k, t] of sorted(incl).filter(([k]) => !/^\(root\)|^\(program\)|^\(idle\)/.test(k)).slice(0, top)) out.push(`  ${pctOf(t)}  ${k}`)
  return out.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top, from, to] = process.argv.slice(2)
  const window = [from ? Number(from) : -Infinity, to ? Number(to) : Infinity] as const
  console.log(summarize(file, Number(top) || 30, ...window))
  const { areas, busy } = byArea(JSON.parse(readFileSync(file, 'utf8')) as Profile, ...window)
  console.log('\nself time by area (callers take their builtins):')
  for (const a of AREAS) if (areas.get(a)) console.log(`  ${((100 * areas.get(a)!) / busy).toFixed(1).padStart(5)} %  ${a}`)
}
