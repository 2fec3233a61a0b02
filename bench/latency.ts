/**
 * Latency at a fixed rate, from many short rounds: GET session, POST checkout and POST refunds, each
 * round Till and the ceiling (bench/ceiling.ts) one after the other (which goes first alternates),
 * evenly paced (bench/load-worker.ts). One stall of a few tens of ms decides a p99 over a few
 * seconds, so a single round says little: each side's p99 is reported as the median and spread
 * (min, p25, p75, max) over the rounds.
 *
 * Beside every run a probe times fdatasync of an 8 KiB write on the cluster's file system, every
 * 10 ms, and PostgreSQL's own WAL fsync time is read from pg_stat_io (track_wal_io_timing): rounds
 * are then split into those where the disk stalled and those where it did not, which shows whether
 * the disk's commit stalls decide both sides' p99.
 *
 * PostgreSQL settings for commits are tried in the same run, interleaved round by round (each round
 * runs every configuration, so the machine's drift falls on all alike): applied with ALTER SYSTEM
 * and a reload, reset afterwards. Every configuration keeps fsync=on and synchronous_commit=on (an
 * acknowledged write survives a crash); full_page_writes=off is not tried, since a torn page after
 * a crash could then lose acknowledged writes.
 *
 * Both processes run with V8's --trace-gc-nvp (bench/gc.ts): each run's garbage collections, their
 * pauses and what they moved to the old generation, are reported beside its latency.
 *
 * Knobs: BENCH_LATENCY_ROUNDS (3), BENCH_LATENCY_SECONDS (5 s measured per run, after 1 s),
 * BENCH_FIXED_RATE (1000), BENCH_REFUND_RATE (100), BENCH_LATENCY_CONFIGS (names below, comma-separated).
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, open, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type pg from 'pg'
import { spec, startCeiling, type Ceiling } from './api.js'
import { cpuMeter, postmasterOf, type CpuSample } from './cpu.js'
import { gcMark, gcSince } from './gc.js'
import { openBenchDb } from './db.js'
import { addPaidRecords, addSessions, sampleSessionIds } from './fixtures.js'
import { runLoad, type LoadResult } from './load.js'
import { context, failures, fmt, ms, table } from './report.js'
import { benchMerchant, startTill, type TillProcess } from './till.js'

const ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS) || 3
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS) || 5
const RATE = Number(process.env.BENCH_FIXED_RATE) || 1000
/** Refunds are two transactions and fourteen statements: on 2 cores even the ceiling answers a few hundred a second at most. */
const REFUND_RATE = Number(process.env.BENCH_REFUND_RATE) || 100
const POOL = Number(process.env.DB_POOL_SIZE) || 10
/** A round whose probe saw an fdatasync slower than this had a disk stall (the p99 target). */
const STALL_MS = 10

/** PostgreSQL settings tried, each with fsync=on and synchronous_commit=on unchanged. */
const CONFIGS: Record<string, { settings: Record<string, string>; why: string }> = {
  baseline: { settings: {}, why: 'PostgreSQL 18 defaults (wal_sync_method fdatasync, commit_delay 0)' },
  commit_delay: {
    settings: { commit_delay: '1000', commit_siblings: '2' },
    why: 'group commit: a committing backend waits up to 1 ms when 2 others are in a transaction, so one WAL flush serves several commits',
  },
  open_datasync: {
    settings: { wal_sync_method: 'open_datasync' },
    why: 'WAL written with O_DSYNC instead of write then fdatasync; its writes are the flushes, so pg_stat_io counts next to no fsyncs and its WAL fsync column is not comparable',
  },
  wal_compression: { settings: { wal_compression: 'on' }, why: 'full-page images in the WAL compressed (pglz): fewer bytes to flush after each checkpoint' },
}
// The baseline alone unless told: the settings tried were kept out (docs/benchmarks.md), and `npm run bench` must stay under 25 minutes.
const CONFIG_NAMES = (process.env.BENCH_LATENCY_CONFIGS ?? 'baseline').split(',').map((s) => s.trim()).filter(Boolean)

type Endpoint = 'get' | 'checkout' | 'refund'
const ENDPOINTS: { e: Endpoint; label: string; rate: number }[] = [
  { e: 'get', label: 'GET /api/v1/sessions/{id}', rate: RATE },
  { e: 'checkout', label: 'POST /api/v1/checkout', rate: RATE },
  { e: 'refund', label: 'POST /api/v1/refunds', rate: Math.min(REFUND_RATE, RATE) },
]

interface Disk {
  /** The probe's fdatasync latencies during the run: p50, p99, max (ms). */
  p50: number
  p99: number
  max: number
  /** PostgreSQL's WAL fsyncs during the run and their mean time (ms), from pg_stat_io. */
  walFsyncs: number
  walFsyncMs: number
}
interface Run extends LoadResult {
  disk: Disk
  /** CPU µs per answered request: the HTTP process, and the whole PostgreSQL cluster. */
  cpu: CpuSample
  /** WAL bytes written per answered request (pg_stat_wal; the other side's runs are not concurrent). */
  walBytes: number
  /** The process's garbage collection: young collections' pause per second (ms), the longest pause (ms), bytes allocated and moved to the old generation per request. */
  gc: { youngPausePerS: number; youngPerS: number; maxPauseMs: number; allocated: number; promoted: number }
}
type Side = 'till' | 'ceiling'
const runs = new Map<string, Run[]>() // `${config}|${endpoint}|${side}`
const keyOf = (c: string, e: Endpoint, s: Side) => `${c}|${e}|${s}`

const q = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN)
const sortNum = (xs: number[]) => xs.filter(Number.isFinite).sort((a, b) => a - b)
const median = (xs: number[]) => {
  const s = sortNum(xs)
  if (!s.length) return NaN
  const k = s.length >> 1
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2
}

/** fdatasync of an 8 KiB write every 10 ms until stopped; returns the latencies (ms). */
function diskProbe(file: string) {
  const lat: number[] = []
  let stop = false
  const done = (async () => {
    const fh = await open(file, 'w')
    const page = Buffer.alloc(8192, 7)
    try {
      while (!stop) {
        const t = performance.now()
        await fh.write(page, 0, page.length, 0)
        await fh.datasync()
        lat.push(performance.now() - t)
        await new Promise((r) => setTimeout(r, 10))
      }
    } finally {
      await fh.close()
    }
  })()
  return async () => {
    stop = true
    await done
    return sortNum(lat)
  }
}

async function walIo(pool: pg.Pool): Promise<{ fsyncs: number; ms: number; bytes: number }> {
  try {
    const { rows } = await pool.query(`select coalesce(sum(fsyncs), 0)::float8 as n, coalesce(sum(fsync_time), 0)::float8 as t,
      (select wal_bytes::float8 from pg_stat_wal) as b from pg_stat_io where object = 'wal'`)
    return { fsyncs: rows[0].n, ms: rows[0].t, bytes: rows[0].b }
  } catch {
    return { fsyncs: NaN, ms: NaN, bytes: NaN }
  }
}

async function applyConfig(pool: pg.Pool, name: string) {
  await pool.query('alter system reset all')
  await pool.query(`alter system set track_wal_io_timing = on`)
  for (const [k, v] of Object.entries(CONFIGS[name].settings)) await pool.query(`alter system set ${k} = '${v}'`)
  await pool.query('select pg_reload_conf()')
  // Backends take the new values at their next command; the probe below checks one of them.
  await new Promise((r) => setTimeout(r, 300))
}

let postmaster: number | null = null
let sizes: { name: string; n: number; bytes: number; heap: number }[] = []

async function oneRun(pool: pg.Pool, probeFile: string, config: string, e: (typeof ENDPOINTS)[number], side: Side, target: TillProcess | Ceiling, key: string, data: object, gcLog: string) {
  const pid = 'child' in target ? target.child.pid! : target.pid
  const mark = gcMark(gcLog)
  const before = await walIo(pool)
  const stopProbe = diskProbe(probeFile)
  const meter = cpuMeter(pid, postmaster)
  const r = await runLoad(spec(e.e, [target.base], key, data, { seconds: SECONDS, rate: e.rate }))
  const used = meter()
  const gc = gcSince(gcLog, mark)
  const lat = await stopProbe()
  // pg_stat_io is flushed by each backend within a second or so of its work: read after a short pause.
  await new Promise((res) => setTimeout(res, 1100))
  const after = await walIo(pool)
  const walFsyncs = after.fsyncs - before.fsyncs
  const disk: Disk = { p50: q(lat, 0.5), p99: q(lat, 0.99), max: lat.at(-1) ?? NaN, walFsyncs, walFsyncMs: walFsyncs > 0 ? (after.ms - before.ms) / walFsyncs : NaN }
  const f = failures(r)
  if (f) console.warn(`  ! ${config} ${e.e} ${side}: answers other than 2xx: ${f}`)
  // The load worker's first (warm-up) second is not in r.requests: counts are per measured request, close enough for a rate held steady.
  const all = r.requests * (1 + 1 / SECONDS)
  const seconds = SECONDS + 1
  const run: Run = {
    ...r, disk, cpu: { http: used.http / all, pg: used.pg / all }, walBytes: (after.bytes - before.bytes) / all,
    gc: { youngPausePerS: gc.youngPauseMs / seconds, youngPerS: gc.young / seconds, maxPauseMs: gc.maxPauseMs, allocated: gc.allocated / all, promoted: gc.promoted / all },
  }
  const k = keyOf(config, e.e, side)
  runs.set(k, [...(runs.get(k) ?? []), run])
  console.log(`    ${config.padEnd(16)} ${e.e.padEnd(8)} ${side.padEnd(7)} ${fmt(r.rps).padStart(5)}/s p50 ${ms(r.p50).padStart(8)} p99 ${ms(r.p99).padStart(8)} max ${ms(r.max).padStart(8)} | disk fdatasync p50 ${ms(disk.p50)} p99 ${ms(disk.p99)} max ${ms(disk.max)}; WAL fsyncs ${fmt(walFsyncs)} mean ${ms(disk.walFsyncMs)} | cpu ${fmt(run.cpu.http)} + ${fmt(run.cpu.pg)} µs/req, WAL ${fmt(run.walBytes)} B/req | GC young ${run.gc.youngPausePerS.toFixed(1)} ms/s, longest ${ms(gc.maxPauseMs)}, promoted ${fmt(run.gc.promoted)} B/req`)
}

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim()
  } catch {
    return ''
  }
}

const spread = (xs: number[]) => {
  const s = sortNum(xs)
  return `${ms(s[0])} / ${ms(q(s, 0.25))} / ${ms(q(s, 0.75))} / ${ms(s.at(-1)!)}`
}

export async function benchLatency(): Promise<string> {
  for (const c of CONFIG_NAMES) if (!CONFIGS[c]) throw new Error(`unknown configuration ${c}; known: ${Object.keys(CONFIGS).join(', ')}`)
  // ALTER SYSTEM rewrites the server's configuration: only on the benchmark's own embedded cluster, never a BENCH_DATABASE_URL.
  const ownCluster = !process.env.BENCH_DATABASE_URL
  if (!ownCluster && CONFIG_NAMES.some((c) => c !== 'baseline')) throw new Error('commit settings are compared on the benchmark\'s own embedded cluster only: set BENCH_LATENCY_CONFIGS=baseline with BENCH_DATABASE_URL')
  const db = await openBenchDb()
  const gcDir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-gc-'))
  const gcLogs: Record<Side, string> = { till: path.join(gcDir, 'till.log'), ceiling: path.join(gcDir, 'ceiling.log') }
  const till = await startTill(db.url, { DB_POOL_SIZE: String(POOL) }, undefined, gcLogs.till)
  let ceiling: Ceiling | null = null
  const pool = db.database.pool
  const uptimes: string[] = [uptime()]
  try {
    const m = await benchMerchant(till.base)
    ceiling = await startCeiling(db.url, m.id, undefined, gcLogs.ceiling)
    postmaster = await postmasterOf(pool)
    await addSessions(pool, m.id, 10_000)
    const ids = await sampleSessionIds(pool, m.id, 10_000)
    const data: Record<Side, Record<Endpoint, object>> = {
      till: { get: { sessionIds: ids }, checkout: {}, refund: { recordIds: await addPaidRecords(pool, m.id, 2000) } },
      ceiling: { get: { sessionIds: ids }, checkout: {}, refund: { recordIds: await addPaidRecords(pool, m.id, 2000) } },
    }
    // The probe writes beside the cluster's data directory (its file system); with BENCH_DATABASE_URL, in the temporary directory.
    const probeFile = ownCluster
      ? path.join(path.dirname((await pool.query('show data_directory')).rows[0].data_directory as string), 'fsync-probe')
      : path.join(os.tmpdir(), `till-fsync-probe-${process.pid}`)
    const durable = (await pool.query(`select string_agg(name || '=' || setting, ', ' order by name) as s from pg_settings where name in ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'wal_buffers', 'shared_buffers', 'checkpoint_timeout', 'max_wal_size')`)).rows[0].s as string
    await pool.query('vacuum analyze')
    await pool.query('checkpoint')
    console.log(`latency: ${ROUNDS} rounds × ${CONFIG_NAMES.join(', ')}; ${SECONDS} s per run at ${RATE}/s (refunds ${ENDPOINTS[2].rate}/s); ${db.describe}; ${durable}`)
    console.log(`  ${uptimes[0]}`)
    // Warm both sides (JIT, prepared statements, pools) before anything is measured.
    for (const e of ENDPOINTS) for (const side of ['till', 'ceiling'] as Side[]) {
      await runLoad(spec(e.e, [side === 'till' ? till.base : ceiling.base], m.key, data[side][e.e], { seconds: 2, rate: e.rate }))
    }
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`  round ${round + 1}/${ROUNDS}: ${uptime()}`)
      for (const config of CONFIG_NAMES) {
        if (ownCluster) await applyConfig(pool, config)
        for (const e of ENDPOINTS) {
          const order: Side[] = (round + ENDPOINTS.indexOf(e)) % 2 ? ['till', 'ceiling'] : ['ceiling', 'till']
          for (const side of order) await oneRun(pool, probeFile, config, e, side, side === 'till' ? till : ceiling, m.key, data[side][e.e], gcLogs[side])
        }
      }
    }
    uptimes.push(uptime())
    // What the rows written cost on disk, indexes included: the growth figures of docs/scaling.md.
    await pool.query('vacuum analyze')
    sizes = (await pool.query(`select c.relname as name, c.reltuples::float8 as n, pg_total_relation_size(c.oid)::float8 as bytes,
        pg_relation_size(c.oid)::float8 as heap from pg_class c where c.relname in ('sessions', 'records', 'refunds', 'events') order by 1`)).rows
  } finally {
    if (!ownCluster) await rm(path.join(os.tmpdir(), `till-fsync-probe-${process.pid}`), { force: true })
    if (ownCluster) {
      await pool.query('alter system reset all').catch(() => {})
      await pool.query('select pg_reload_conf()').catch(() => {})
    }
    await ceiling?.stop()
    await till.stop()
    await db.close()
    await rm(gcDir, { recursive: true, force: true })
  }

  // Summary: per endpoint and configuration, each side's p99 over the rounds.
  const rows: string[][] = []
  for (const e of ENDPOINTS) {
    for (const c of CONFIG_NAMES) {
      const t = runs.get(keyOf(c, e.e, 'till')) ?? []
      const ce = runs.get(keyOf(c, e.e, 'ceiling')) ?? []
      const disk = [...t, ...ce]
      rows.push([
        c === CONFIG_NAMES[0] ? e.label : '', c, `${fmt(e.rate)}/s`,
        `**${ms(median(t.map((r) => r.p99)))}**`, spread(t.map((r) => r.p99)), ms(median(t.map((r) => r.p50))),
        `**${ms(median(ce.map((r) => r.p99)))}**`, spread(ce.map((r) => r.p99)), ms(median(ce.map((r) => r.p50))),
        `${(median(t.map((r) => r.p99)) / median(ce.map((r) => r.p99))).toFixed(2)}×`,
        `${ms(median(disk.map((r) => r.disk.p99)))} / ${ms(Math.max(...disk.map((r) => r.disk.max)))}`,
        ms(median(disk.map((r) => r.disk.walFsyncMs))),
        `${fmt(median(t.map((r) => r.cpu.http)))} + ${fmt(median(t.map((r) => r.cpu.pg)))}`,
        `${fmt(median(ce.map((r) => r.cpu.http)))} + ${fmt(median(ce.map((r) => r.cpu.pg)))}`,
        `${fmt(median(t.map((r) => r.walBytes)))} / ${fmt(median(ce.map((r) => r.walBytes)))}`,
      ])
    }
  }
  // Stalls: a run's p99 beside the slowest disk flush the probe saw during it. A p99 above it is
  // longer than any one flush could explain (queueing for CPU); one within it may be the disk's.
  const stallRows: string[][] = []
  for (const e of ENDPOINTS) {
    for (const side of ['till', 'ceiling'] as Side[]) {
      const all = CONFIG_NAMES.flatMap((c) => runs.get(keyOf(c, e.e, side)) ?? [])
      const slow = all.filter((r) => r.p99 > STALL_MS)
      stallRows.push([
        side === 'till' ? e.label : '', side === 'till' ? 'Till' : 'ceiling', String(all.length),
        ms(median(all.map((r) => r.p99))), ms(median(all.map((r) => r.disk.max))),
        `${slow.length}`, `${slow.filter((r) => r.disk.max > STALL_MS && r.p99 <= r.disk.max).length}`,
        `${slow.filter((r) => r.p99 > r.disk.max).length}`, `${slow.filter((r) => r.disk.max <= STALL_MS).length}`,
      ])
    }
  }
  const gcRows: string[][] = []
  for (const e of ENDPOINTS) {
    for (const side of ['till', 'ceiling'] as Side[]) {
      const all = CONFIG_NAMES.flatMap((c) => runs.get(keyOf(c, e.e, side)) ?? [])
      gcRows.push([
        side === 'till' ? e.label : '', side === 'till' ? 'Till' : 'ceiling',
        median(all.map((r) => r.gc.youngPerS)).toFixed(1), ms(median(all.map((r) => r.gc.youngPausePerS))),
        ms(median(all.map((r) => r.gc.youngPausePerS / r.gc.youngPerS))), ms(Math.max(...all.map((r) => r.gc.maxPauseMs))),
        fmt(median(all.map((r) => r.gc.allocated / 1024))), fmt(median(all.map((r) => r.gc.promoted))),
      ])
    }
  }
  const roundsLine = (c: string, e: Endpoint, side: Side) => (runs.get(keyOf(c, e, side)) ?? []).map((r) => ms(r.p99).replace(' ms', '')).join(', ')
  return [
    '## Latency at a fixed rate: p99 over many rounds, and the disk',
    context([
      `${CONFIG_NAMES.length > 1 ? 'PostgreSQL commit settings compared in the same run: ' + CONFIG_NAMES.join(', ') : `PostgreSQL commit settings: ${CONFIG_NAMES.join(', ')} (others with BENCH_LATENCY_CONFIGS)`}; fsync=on and synchronous_commit=on throughout`,
      `${ROUNDS} rounds; in each, every configuration, and for each endpoint Till and the ceiling one after the other (which goes first alternates), ${SECONDS} s measured after 1 s, evenly paced (open loop, up to 32 connections, bench/load-worker.ts). Refunds at ${fmt(ENDPOINTS[2].rate)}/s: two transactions and fourteen statements each, of which even the ceiling answers only a few hundred a second on 2 cores (the api section), so 1,000/s would measure a growing queue`,
      `Disk probe: fdatasync of an 8 KiB write on the cluster's file system every 10 ms during each run; PostgreSQL's WAL fsync time from pg_stat_io (track_wal_io_timing on)`,
      `\`uptime\` at the start: ${uptimes[0]}; at the end: ${uptimes[1] ?? '–'}`,
    ]),
    '',
    `p99 per round, then over the rounds: the median, and min / p25 / p75 / max (the spread). Target: p99 < 10 ms at ${fmt(RATE)} req/s.`,
    '',
    table(['endpoint', 'PostgreSQL', 'rate', 'Till p99 (median)', 'Till p99 min / p25 / p75 / max', 'Till p50', 'ceiling p99 (median)', 'ceiling p99 min / p25 / p75 / max', 'ceiling p50', 'Till ÷ ceiling', 'disk fdatasync p99 (median) / max', 'WAL fsync mean', 'Till CPU µs/req (node + PG)', 'ceiling CPU µs/req', 'WAL bytes/req (Till / ceiling)'], rows),
    '',
    ...CONFIG_NAMES.map((c) => `- ${c}: ${CONFIGS[c].why}${Object.keys(CONFIGS[c].settings).length ? ` (${Object.entries(CONFIGS[c].settings).map(([k, v]) => `${k}=${v}`).join(', ')})` : ''}`),
    '',
    `### Do the disk's stalls decide the p99?`,
    '',
    `Every run of every configuration: its p99 beside the slowest fdatasync the probe saw during it. A p99 over ${STALL_MS} ms within a disk stall of at least its length may be the disk's; one longer than the run's slowest flush, or in a run without a flush over ${STALL_MS} ms, is not (requests queued for CPU).`,
    '',
    table(['endpoint', 'side', 'runs', 'median p99', 'median slowest disk flush in the run', `runs with p99 > ${STALL_MS} ms`, 'of which within a disk stall as long', 'longer than the run\'s slowest flush', 'in a run without a disk stall'], stallRows),
    '',
    '### Garbage collection during the runs',
    '',
    'Both processes under V8\'s `--trace-gc-nvp` (bench/gc.ts), over every run (warm-up second included): young-generation collections (scavenges) a second and their pause time a second (medians over the runs), the mean pause of one, the longest pause of any collection in any run, and per request the memory allocated and the bytes a young collection moved to the old generation (what survived it: the more, the longer the pause). A pause stops every request in flight: collections of a few ms several times a second are enough to decide a p99 of a few ms.',
    '',
    table(['endpoint', 'side', 'young collections / s', 'their pause per s (median)', 'mean young pause', 'longest pause (any run)', 'KiB allocated / request', 'bytes promoted / request'], gcRows),
    '',
    '### What the rows cost on disk (after the run, indexes and TOAST included)',
    '',
    table(['table', 'rows', 'total', 'bytes per row (total)', 'bytes per row (heap only)'], sizes.map((r) => [r.name, fmt(r.n), `${(r.bytes / 2 ** 20).toFixed(1)} MiB`, fmt(r.bytes / r.n), fmt(r.heap / r.n)])),
    '',
    '### Every round (p99 in ms, in order)',
    '',
    table(['endpoint', 'PostgreSQL', 'Till', 'ceiling'], ENDPOINTS.flatMap((e) => CONFIG_NAMES.map((c) => [c === CONFIG_NAMES[0] ? e.label : '', c, roundsLine(c, e.e, 'till'), roundsLine(c, e.e, 'ceiling')]))),
  ].join('\n')
}
