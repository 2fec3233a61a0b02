/**
 * Webhook delivery benchmark. Against one local receiver (its own process), it measures:
 *  1. throughput: a backlog of events fanned out to several endpoints, delivered by the real worker
 *     (the `webhooks` job: lease with SKIP LOCKED, signed POST, attempt recorded);
 *  2. latency: events committed one per transaction at a steady rate, from commit to first attempt;
 * and prints each beside the ceiling measured in the same run: the same receiver fed by a plain loop
 * of signed POSTs from one process, with the same concurrency (throughput) or rate (latency).
 *
 * The throughput runs alternate worker and ceiling BENCH_ROUNDS times (3) and report each side's
 * median, with the CPU this process spent per delivery (steadier than the rate on a shared machine).
 *
 * PostgreSQL: BENCH_DATABASE_URL (an empty database it may migrate), else an embedded cluster in a
 * temporary directory, removed afterwards. Knobs: BENCH_EVENTS, BENCH_ENDPOINTS, BENCH_RATE,
 * BENCH_SECONDS, BENCH_ROUNDS; BENCH_PROFILE=DIR writes a CPU profile of each worker round there
 * (read it with `npx tsx bench/profile.ts FILE`).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createHmac, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { loadConfig } from '../src/config.js'
import { createDeps } from '../src/deps.js'
import { USER_AGENT } from '../src/domain/webhooks.js'
import { JOBS, startJobs } from '../src/jobs/runner.js'
import type { Deps } from '../src/services/deps.js'
import { createMerchant } from '../src/services/merchants.js'
import { createEndpoint } from '../src/services/webhook-endpoints.js'
import { openPool, runMigrations, type Database } from '../src/store/db.js'
import { startEmbedded, stopEmbedded } from '../src/store/embedded.js'
import { appendEvent } from '../src/store/repos/events.js'
import { cpuMeter, postmasterOf, type CpuSample } from './cpu.js'
import { perRequest, type PerRequest, type Profile } from './profile.js'
import { context } from './report.js'

const EVENTS = Number(process.env.BENCH_EVENTS) || 2000
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS) || 8
const RATE = Number(process.env.BENCH_RATE) || 200
const SECONDS = Number(process.env.BENCH_SECONDS) || 5
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3
/** The worker's in-flight limit to one endpoint (outbox.ts), times the endpoints: the ceiling loop gets as many. */
const PER_ENDPOINT = 8

const now = () => performance.timeOrigin + performance.now()
const silent = { info() {}, warn() {}, error() {} }

interface Receiver {
  port: number
  reset(): Promise<void>
  dump(): Promise<[string, number][]>
  /** Resolves once `n` requests have arrived since the last reset (the receiver says so; nothing is polled). */
  waitFor(n: number): Promise<[string, number][]>
  stop(): Promise<void>
}

async function startReceiver(): Promise<Receiver> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./receiver.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: 'inherit' })
  const next = <T>(key: string) => new Promise<T>((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (key in m) {
        child.off('message', on)
        resolve(m[key] as T)
      }
    }
    child.on('message', on)
  })
  const port = await next<number>('port')
  const dump = async () => {
    const p = next<[string, number][]>('arrivals')
    child.send({ cmd: 'dump' })
    return p
  }
  return {
    port,
    async reset() {
      const p = next('reset')
      child.send({ cmd: 'reset' })
      await p
    },
    dump,
    async waitFor(n) {
      const arrived = next<number>('arrived')
      child.send({ cmd: 'wait', n })
      await arrived
      return dump()
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.send({ cmd: 'stop' })
      await exited
    },
  }
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const ms = (v: number) => `${v.toFixed(1)} ms`
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

/** With BENCH_PROFILE=DIR, a V8 CPU profile of this process from now until the returned function is called. */
async function profile(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_PROFILE
  if (!dir) return async () => {}
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return async () => {
    const { profile } = await session.post('Profiler.stop')
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile))
    session.disconnect()
  }
}

/** CPU µs this process and PostgreSQL spend while `fn` runs. */
async function cpuOf<T>(postmaster: number | null, fn: () => Promise<T>): Promise<[T, CpuSample]> {
  const meter = cpuMeter(process.pid, postmaster)
  const out = await fn()
  return [out, meter()]
}

const cpu = (c: { node: number; pg: number }) => `${fmt(c.node)} + ${fmt(c.pg)}`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const medianCpu = (cs: { node: number; pg: number }[]) => ({ node: median(cs.map((c) => c.node)), pg: median(cs.map((c) => c.pg)) })

/** The ceiling: `concurrency` loops in this process POSTing signed bodies to the receiver. */
async function ceilingThroughput(port: number, total: number, concurrency: number): Promise<number> {
  const agent = new Agent({ keepAliveTimeout: 60_000 })
  const secret = 'whsec_' + randomBytes(16).toString('hex')
  let sent = 0
  const loop = async (path: string) => {
    while (sent < total) {
      sent++
      const body = JSON.stringify({ id: `evt_${sent}`, type: 'payment.succeeded', createdAt: new Date().toISOString(), mode: 'test', data: { amount: 100 } })
      const headers = { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'), 'x-service-event-id': `evt_${sent}` }
      const res = await request(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers, body, dispatcher: agent })
      await res.body.dump()
    }
  }
  const started = now()
  await Promise.all(Array.from({ length: concurrency }, (_, i) => loop(`/ceiling/${i % ENDPOINTS}`)))
  const rate = total / ((now() - started) / 1000)
  await agent.close()
  return rate
}

/** The ceiling's latency: one signed POST every 1/RATE s from a plain loop, timed end to end. */
async function ceilingLatency(port: number): Promise<number[]> {
  const agent = new Agent({ keepAliveTimeout: 60_000 })
  const secret = 'whsec_' + randomBytes(16).toString('hex')
  const times: Promise<number>[] = []
  const started = now()
  for (let i = 0; i < RATE * SECONDS; i++) {
    const body = JSON.stringify({ id: `evt_${i}`, type: 'payment.succeeded', createdAt: new Date().toISOString(), mode: 'test', data: { amount: 100 } })
    const t0 = now()
    times.push(request(`http://127.0.0.1:${port}/ceiling-latency`, {
      method: 'POST', dispatcher: agent, body,
      headers: { 'content-type': 'application/json', 'x-service-signature': createHmac('sha256', secret).update(body).digest('hex') },
    }).then(async (res) => {
      await res.body.dump()
      return now() - t0
    }))
    const due = started + ((i + 1) * 1000) / RATE
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - now())))
  }
  const out = (await Promise.all(times)).sort((a, b) => a - b)
  await agent.close()
  return out
}

async function newEndpoints(deps: Deps, name: string, port: number, n: number) {
  const m = await createMerchant(deps, { name })
  for (let i = 0; i < n; i++) await createEndpoint(deps, { merchantId: m.id, mode: 'test' }, { url: `http://127.0.0.1:${port}/${name}/${i}` })
  return { merchantId: m.id, mode: 'test' as const }
}

const eventData = (i: number) => ({ sessionId: `sess_bench${i}`, status: 'paid', amount: 9900, currency: 'CNY', metadata: { order: `B-${i}` } })

/** EVENTS events fanned out to the scope's endpoints, committed 100 to a transaction, not yet delivered. */
async function backlog(deps: Deps, database: Database, scope: { merchantId: string; mode: 'test' }) {
  for (let i = 0; i < EVENTS; i += 100) {
    await deps.db.transaction(async (tx) => {
      for (let j = i; j < Math.min(EVENTS, i + 100); j++) await appendEvent(tx, scope, 'payment.succeeded', eventData(j), deps.clock())
    })
  }
  // Planner statistics, as autovacuum keeps them on a running system (a table that grew from empty has none).
  await database.pool.query('analyze')
}

async function openDatabase(): Promise<{ database: Database; close(): Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) {
    const database = openPool(process.env.BENCH_DATABASE_URL, 10)
    await runMigrations(database.pool)
    return { database, close: () => database.close() }
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-bench-'))
  const pg = await startEmbedded(dir, { info() {}, warn: (m) => console.error(m) })
  const database = openPool(pg.connection, 10)
  await runMigrations(database.pool)
  return {
    database,
    async close() {
      await database.close()
      await stopEmbedded(dir)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * For `npm run bench -- profile` (bench/profile-bench.ts): one backlog delivered by the worker, then
 * as many signed POSTs by the plain loop, under one CPU profile of this process cut to each's window;
 * CPU µs per delivery by area. The profile is written to `dir`.
 */
export async function profileWebhooks(dir: string): Promise<{ deliveries: number; worker: PerRequest; loop: PerRequest }> {
  const { database, close } = await openDatabase()
  const receiver = await startReceiver()
  const deps = createDeps({ ...loadConfig({}), jobsEnabled: true }, database.db, randomBytes(32), silent)
  const total = EVENTS * ENDPOINTS
  try {
    const bulk = await newEndpoints(deps, 'bulk', receiver.port, ENDPOINTS)
    await backlog(deps, database, bulk)
    await ceilingThroughput(receiver.port, total / 4, ENDPOINTS * PER_ENDPOINT) // warms the loop's code as the backlog above warmed the worker's
    await receiver.reset()
    const session = new Session()
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.start')
    const at = () => Number(process.hrtime.bigint() / 1000n)
    const w0 = at()
    const jobs = startJobs(deps, [webhooks()])
    await receiver.waitFor(total)
    await jobs.stop()
    const w1 = at()
    await ceilingThroughput(receiver.port, total, ENDPOINTS * PER_ENDPOINT)
    const w2 = at()
    const { profile } = await session.post('Profiler.stop')
    session.disconnect()
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, 'webhooks.cpuprofile'), JSON.stringify(profile))
    const p = profile as unknown as Profile
    return { deliveries: total, worker: perRequest(p, { from: w0, to: w1, requests: total }), loop: perRequest(p, { from: w1, to: w2, requests: total }) }
  } finally {
    await receiver.stop()
    await close()
  }
}

const webhooks = () => JOBS.find((j) => j.name === 'webhooks')!

export async function benchWebhooks(): Promise<string> {
  const { database, close } = await openDatabase()
  const receiver = await startReceiver()
  const deps = createDeps({ ...loadConfig({}), jobsEnabled: true }, database.db, randomBytes(32), silent)
  try {
    // 1. Throughput: a backlog of EVENTS × ENDPOINTS deliveries, then the worker starts; then the ceiling.
    const bulk = await newEndpoints(deps, 'bulk', receiver.port, ENDPOINTS)
    const total = EVENTS * ENDPOINTS
    const postmaster = await postmasterOf(database.pool)
    const perDelivery = (c: CpuSample) => ({ node: c.http / total, pg: c.pg / total })
    const rounds: { worker: number; workerCpu: { node: number; pg: number }; ceiling: number; ceilingCpu: { node: number; pg: number } }[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      await backlog(deps, database, bulk)
      await receiver.reset()
      const stopProfile = await profile(`webhooks-worker-${round}`)
      const [arrivals, workerCpu] = await cpuOf(postmaster, async () => {
        const jobs = startJobs(deps, [webhooks()])
        const got = await receiver.waitFor(total)
        await jobs.stop()
        return got.map(([, at]) => at).sort((a, b) => a - b)
      })
      await stopProfile()
      const { rows } = await database.pool.query(`select count(*)::int as n from webhook_deliveries where status = 'delivered'`)
      if (rows[0].n !== total * round) throw new Error(`only ${rows[0].n} of ${total * round} deliveries recorded as delivered`)
      const [ceiling, ceilingCpu] = await cpuOf(postmaster, () => ceilingThroughput(receiver.port, total, ENDPOINTS * PER_ENDPOINT))
      rounds.push({ worker: (total - 1) / ((arrivals.at(-1)! - arrivals[0]) / 1000), workerCpu: perDelivery(workerCpu), ceiling, ceilingCpu: perDelivery(ceilingCpu) })
      const r = rounds.at(-1)!
      console.log(`  round ${round}: worker ${fmt(r.worker)}/s (CPU µs each: ${cpu(r.workerCpu)}), ceiling ${fmt(ceiling)}/s (${cpu(r.ceilingCpu)}), load ${os.loadavg()[0].toFixed(1)}`)
    }
    const workerRate = median(rounds.map((r) => r.worker))
    const ceilingRate = median(rounds.map((r) => r.ceiling))
    // Each round's worker against the ceiling measured right after it: the machine's drift between rounds cancels out.
    const ratios = rounds.map((r) => (100 * r.worker) / r.ceiling)

    // 2. Latency: one event per transaction at RATE/s to one endpoint, the worker running.
    const steady = await newEndpoints(deps, 'steady', receiver.port, 1)
    await receiver.reset()
    const jobs = startJobs(deps, [webhooks()])
    await new Promise((resolve) => setTimeout(resolve, 500)) // its LISTEN connection is up
    const committed = new Map<string, number>()
    const started = now()
    for (let i = 0; i < RATE * SECONDS; i++) {
      const e = await deps.db.transaction((tx) => appendEvent(tx, steady, 'payment.succeeded', eventData(i), deps.clock()))
      committed.set(e.id, now())
      const due = started + ((i + 1) * 1000) / RATE
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - now())))
    }
    const got = await receiver.waitFor(committed.size)
    await jobs.stop()
    const latencies = got.map(([key, at]) => at - committed.get(key.split(' ')[0])!).sort((a, b) => a - b)
    await receiver.reset()
    const plain = await ceilingLatency(receiver.port)

    const lines = [
      `webhooks: one local receiver (own process), PostgreSQL ${process.env.BENCH_DATABASE_URL ? 'from BENCH_DATABASE_URL' : 'embedded'}, pool of 10, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`,
      `  throughput, ${fmt(total)} deliveries (${fmt(EVENTS)} events × ${ENDPOINTS} endpoints), ${ENDPOINTS * PER_ENDPOINT} in flight, median of ${ROUNDS} alternating rounds:`,
      `    outbox worker     ${fmt(workerRate).padStart(8)} deliveries/s   CPU µs per delivery (node + PG) ${cpu(medianCpu(rounds.map((r) => r.workerCpu)))}`,
      `    ceiling (loop)    ${fmt(ceilingRate).padStart(8)} signed POSTs/s CPU µs per POST (node + PG)     ${cpu(medianCpu(rounds.map((r) => r.ceilingCpu)))}    worker at ${median(ratios).toFixed(0)} % of the ceiling (median of the rounds' ratios)`,
      `    rounds (worker vs ceiling, deliveries/s): ${rounds.map((r) => fmt(r.worker)).join(' / ')} vs ${rounds.map((r) => fmt(r.ceiling)).join(' / ')}; ratios ${ratios.map((x) => `${x.toFixed(0)} %`).join(' / ')}`,
      `    CPU µs per delivery by round (node + PG): ${rounds.map((r) => cpu(r.workerCpu)).join(' / ')} vs ${rounds.map((r) => cpu(r.ceilingCpu)).join(' / ')}`,
      `  latency, ${RATE} events/s for ${SECONDS} s, one endpoint:`,
      `    commit → first attempt   p50 ${ms(pct(latencies, 50))}   p99 ${ms(pct(latencies, 99))}   max ${ms(latencies.at(-1)!)}`,
      `    ceiling (loop) POST      p50 ${ms(pct(plain, 50))}   p99 ${ms(pct(plain, 99))}   max ${ms(plain.at(-1)!)}`,
    ]
    for (const l of lines) console.log(l)
    return ['## Webhooks', context(), '', '```', ...lines, '```'].join('\n')
  } finally {
    await receiver.stop()
    await close()
  }
}
