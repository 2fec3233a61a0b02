/**
 * Memory: one Till process (VmRSS, and the V8 heap from its /metrics) and the embedded PostgreSQL
 * (Pss summed over the cluster's processes, bench/rss.ts), idle, under full load (each endpoint as
 * fast as it answers), and through a soak at a fixed rate (GET, checkout and refunds at once, each
 * paced), sampled every few seconds. The soak states its bound and says whether it held.
 *
 * Knobs: `--soak-minutes N` (or BENCH_SOAK_MINUTES; 2, so that `npm run bench` stays under 25 minutes; the 10-minute soak is `--soak-minutes 10`), BENCH_SOAK_GET (100/s), BENCH_SOAK_CHECKOUT
 * (50/s), BENCH_SOAK_REFUND (5/s), BENCH_SOAK_SAMPLE (s between samples, 5), BENCH_DURATION (s per
 * full-speed run, 10), DB_POOL_SIZE (10).
 */
import { execFileSync } from 'node:child_process'
import { meterPostgres, spec } from './api.js'
import { postmasterOf } from './cpu.js'
import { openBenchDb } from './db.js'
import { addPaidRecords, addSessions, sampleSessionIds } from './fixtures.js'
import { runLoad, type LoadResult } from './load.js'
import { context, failures, fmt, ms, table } from './report.js'
import { clusterMemory, mib, rssOf } from './rss.js'
import { option } from './run-options.js'
import { benchMerchant, startTill, type TillProcess } from './till.js'

const SOAK_MINUTES = Number(option('soak-minutes') ?? process.env.BENCH_SOAK_MINUTES) || 2
const RATES = {
  get: Number(process.env.BENCH_SOAK_GET) || 100,
  checkout: Number(process.env.BENCH_SOAK_CHECKOUT) || 50,
  refund: Number(process.env.BENCH_SOAK_REFUND) || 5,
}
const SAMPLE_S = Number(process.env.BENCH_SOAK_SAMPLE) || 5
const SECONDS = Number(process.env.BENCH_DURATION) || 5
const POOL = Number(process.env.DB_POOL_SIZE) || 10
/** The bound the soak must keep (stated in the report): over the soak's second half, Till's RSS may not trend upwards faster than this… */
const SLOPE_BOUND_MIB_PER_MIN = 1
/** …and its last sample may not exceed the median of the soak's second minute (after warm-up) by more than this. */
const GROWTH_BOUND_MIB = 32

interface Sample {
  t: number
  till: number
  heap: number
  pgPss: number
  pgRss: number
  pgProcesses: number
}

/** V8's used heap from Till's own /metrics (prom-client's default metrics). */
async function heapUsed(base: string): Promise<number> {
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2000) })).text()
    return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? NaN)
  } catch {
    return NaN
  }
}

async function sample(till: TillProcess, postmaster: number, t0: number): Promise<Sample> {
  const pg = clusterMemory(postmaster)
  return { t: (Date.now() - t0) / 1000, till: rssOf(till.child.pid!), heap: await heapUsed(till.base), pgPss: pg.pss, pgRss: pg.rss, pgProcesses: pg.processes }
}

/** Samples every `everyMs` while `work` runs; returns its result and the samples. */
async function sampled<T>(till: TillProcess, postmaster: number, everyMs: number, work: Promise<T>, print?: (s: Sample) => void): Promise<{ result: T; samples: Sample[] }> {
  const t0 = Date.now()
  const samples: Sample[] = [await sample(till, postmaster, t0)]
  let done = false
  const loop = (async () => {
    while (!done) {
      await new Promise((r) => setTimeout(r, everyMs))
      if (done) break
      const s = await sample(till, postmaster, t0)
      samples.push(s)
      print?.(s)
    }
  })()
  const result = await work.finally(() => (done = true))
  await loop
  samples.push(await sample(till, postmaster, t0))
  return { result, samples }
}

const max = (xs: number[]) => Math.max(...xs.filter(Number.isFinite))
const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
/** Least-squares slope of y over t (seconds), per minute. */
function slopePerMinute(samples: Sample[], y: (s: Sample) => number): number {
  const pts = samples.filter((s) => Number.isFinite(y(s)))
  const n = pts.length
  const mt = pts.reduce((a, s) => a + s.t, 0) / n
  const my = pts.reduce((a, s) => a + y(s), 0) / n
  const num = pts.reduce((a, s) => a + (s.t - mt) * (y(s) - my), 0)
  const den = pts.reduce((a, s) => a + (s.t - mt) ** 2, 0)
  return den ? (60 * num) / den : NaN
}

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return ''
  }
}
const line = (label: string, s: Sample) =>
  `  ${label.padEnd(24)} Till RSS ${mib(s.till).padStart(10)} heap ${mib(s.heap).padStart(10)} | PostgreSQL Pss ${mib(s.pgPss).padStart(10)} (RSS sum ${mib(s.pgRss)}, ${s.pgProcesses} processes)`

export async function benchMemory(): Promise<string> {
  const db = await openBenchDb()
  const till = await startTill(db.url, { DB_POOL_SIZE: String(POOL) })
  try {
    const pool = db.database.pool
    await meterPostgres(pool)
    const postmaster = (await postmasterOf(pool))!
    if (!postmaster) throw new Error('the memory bench needs the PostgreSQL cluster on this machine (Linux /proc)')
    const m = await benchMerchant(till.base)
    await addSessions(pool, m.id, 10_000)
    const ids = await sampleSessionIds(pool, m.id, 10_000)
    const records = await addPaidRecords(pool, m.id, 2000)
    await pool.query('vacuum analyze')
    const uptimeBefore = uptime()
    console.log(`memory: one Till (pid ${till.child.pid}), ${db.describe}, pool ${POOL}; ${uptimeBefore}`)

    // Idle: Till started, migrated, one merchant made; nothing asked of it for 10 s.
    await new Promise((r) => setTimeout(r, 10_000))
    const idle = await sample(till, postmaster, Date.now())
    console.log(line('idle', idle))

    // Full load: each endpoint as fast as it answers, sampled every half second.
    const full: { name: string; load: LoadResult; samples: Sample[] }[] = []
    for (const [name, s] of [
      ['GET /api/v1/sessions/{id}', spec('get', [till.base], m.key, { sessionIds: ids }, { seconds: SECONDS })],
      ['POST /api/v1/checkout', spec('checkout', [till.base], m.key, {}, { seconds: SECONDS })],
      ['POST /api/v1/refunds', spec('refund', [till.base], m.key, { recordIds: records }, { seconds: SECONDS })],
    ] as const) {
      const { result, samples } = await sampled(till, postmaster, 500, runLoad(s))
      const f = failures(result)
      if (f) console.warn(`  ! ${name}: ${f}`)
      full.push({ name, load: result, samples })
      const peak: Sample = { ...samples[0], till: max(samples.map((x) => x.till)), heap: max(samples.map((x) => x.heap)), pgPss: max(samples.map((x) => x.pgPss)), pgRss: max(samples.map((x) => x.pgRss)), pgProcesses: max(samples.map((x) => x.pgProcesses)) }
      console.log(line(`full: ${name} ${fmt(result.rps)}/s`, peak))
    }
    const afterFull = await sample(till, postmaster, Date.now())
    console.log(line('after full load', afterFull))

    // The soak: three paced loads at once for SOAK_MINUTES.
    await pool.query('vacuum analyze')
    const seconds = SOAK_MINUTES * 60
    console.log(`  soak: ${SOAK_MINUTES} min at GET ${RATES.get}/s + checkout ${RATES.checkout}/s + refunds ${RATES.refund}/s, a sample every ${SAMPLE_S} s`)
    const loads = Promise.all([
      runLoad(spec('get', [till.base], m.key, { sessionIds: ids }, { seconds, rate: RATES.get })),
      runLoad(spec('checkout', [till.base], m.key, {}, { seconds, rate: RATES.checkout })),
      runLoad(spec('refund', [till.base], m.key, { recordIds: records }, { seconds, rate: RATES.refund })),
    ])
    const soak = await sampled(till, postmaster, SAMPLE_S * 1000, loads, (s) => console.log(line(`soak t=${s.t.toFixed(0)} s`, s)))
    console.log(`  soak done; ${uptime()}`)
    for (const [i, r] of soak.result.entries()) {
      const f = failures(r)
      if (f) console.warn(`  ! soak ${['get', 'checkout', 'refund'][i]}: ${f}`)
    }
    const ss = soak.samples
    const start = ss[0]
    const end = ss[ss.length - 1]
    const minute2 = ss.filter((s) => s.t >= 60 && s.t < 120)
    const second = ss.filter((s) => s.t >= seconds / 2)
    const base2 = median(minute2.map((s) => s.till))
    const slope = slopePerMinute(second, (s) => s.till)
    const growth = end.till - base2
    const held = slope <= SLOPE_BOUND_MIB_PER_MIN * 2 ** 20 && growth <= GROWTH_BOUND_MIB * 2 ** 20
    const pgSlope = slopePerMinute(second, (s) => s.pgPss)
    const verdict = `${held ? 'held' : '**not held**'}: RSS trend over the second half ${(slope / 2 ** 20).toFixed(2)} MiB/min (bound ${SLOPE_BOUND_MIB_PER_MIN}), last sample − median of minute 2 = ${(growth / 2 ** 20).toFixed(1)} MiB (bound ${GROWTH_BOUND_MIB})`
    console.log(`  bound ${verdict}; PostgreSQL Pss trend ${(pgSlope / 2 ** 20).toFixed(2)} MiB/min`)

    const served = soak.result.map((r) => `${fmt(r.rps)}/s (p99 ${ms(r.p99)})`).join(', ')
    const soakRow = (label: string, pick: (s: Sample) => number) => [
      label, mib(pick(start)), mib(median(minute2.map(pick))), mib(pick(end)), mib(max(ss.map(pick))), mib(Math.min(...ss.map(pick).filter(Number.isFinite))), `${(slopePerMinute(second, pick) / 2 ** 20).toFixed(2)} MiB/min`,
    ]
    const minutes = Array.from({ length: SOAK_MINUTES }, (_, k) => ss.filter((s) => s.t >= k * 60 && s.t < (k + 1) * 60))
    return [
      '## Memory: one Till process and the embedded PostgreSQL',
      context([
        `${db.describe}; Till: one instance, pool ${POOL}, LOG_LEVEL=warn, jobs on; one merchant, 10,000 open sessions and 2,000 paid records to refund`,
        `Till: VmRSS of its one process (/proc/<pid>/status) and V8's used heap (its /metrics). PostgreSQL: Pss summed over the postmaster and its children (/proc/<pid>/smaps_rollup), which counts the shared buffers once; the RSS sum beside it counts them once per process`,
        `\`uptime\` before: ${uptimeBefore}`,
      ]),
      '',
      table(['state', 'Till RSS', 'Till V8 heap used', 'PostgreSQL Pss', 'PostgreSQL RSS sum', 'PostgreSQL processes', 'load'], [
        ['idle (after start, 10 s without requests)', mib(idle.till), mib(idle.heap), mib(idle.pgPss), mib(idle.pgRss), idle.pgProcesses, '–'],
        ...full.map((f) => [
          `full load: ${f.name} (max of samples every 0.5 s)`, mib(max(f.samples.map((s) => s.till))), mib(max(f.samples.map((s) => s.heap))), mib(max(f.samples.map((s) => s.pgPss))), mib(max(f.samples.map((s) => s.pgRss))), max(f.samples.map((s) => s.pgProcesses)),
          `${fmt(f.load.rps)} req/s, p99 ${ms(f.load.p99)}, ${SECONDS} s`,
        ]),
        ['after the full-load runs', mib(afterFull.till), mib(afterFull.heap), mib(afterFull.pgPss), mib(afterFull.pgRss), afterFull.pgProcesses, '–'],
        [`end of the ${SOAK_MINUTES}-minute soak`, mib(end.till), mib(end.heap), mib(end.pgPss), mib(end.pgRss), end.pgProcesses, served],
      ]),
      '',
      `### Soak: ${SOAK_MINUTES} minutes at GET ${RATES.get}/s, checkout ${RATES.checkout}/s and refunds ${RATES.refund}/s at once (each paced, bench/load-worker.ts), a sample every ${SAMPLE_S} s`,
      '',
      `Served: GET, checkout, refunds ${served}.`,
      '',
      table(['measure', 'start', 'minute 2 (median)', 'end', 'max', 'min', 'trend over the second half'], [
        soakRow('Till RSS', (s) => s.till),
        soakRow('Till V8 heap used', (s) => s.heap),
        soakRow('PostgreSQL Pss (sum)', (s) => s.pgPss),
        soakRow('PostgreSQL RSS (sum)', (s) => s.pgRss),
      ]),
      '',
      `Till's RSS by minute (median of that minute's samples): ${minutes.map((ms) => (ms.length ? (median(ms.map((s) => s.till)) / 2 ** 20).toFixed(0) : '–')).join(', ')} MiB; PostgreSQL Pss: ${minutes.map((ms) => (ms.length ? (median(ms.map((s) => s.pgPss)) / 2 ** 20).toFixed(0) : '–')).join(', ')} MiB.`,
      '',
      `Bound (stated before the run): Till's RSS may trend upwards by at most ${SLOPE_BOUND_MIB_PER_MIN} MiB a minute over the soak's second half (least squares over its samples), and its last sample may exceed the median of minute 2 (after JIT and pools have warmed) by at most ${GROWTH_BOUND_MIB} MiB. Result: ${verdict}. \`uptime\` after: ${uptime()}`,
    ].join('\n')
  } finally {
    await till.stop()
    await db.close()
  }
}
