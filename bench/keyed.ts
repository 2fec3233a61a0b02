/**
 * Idempotency-Key bench (`npm run bench -- keyed`): one Till instance on one PostgreSQL, checkout and
 * refunds without a key and with a fresh key on every request, in alternating rounds (the machine's
 * speed drifts, so the two sides are measured side by side), reported as ratios of throughput and of
 * CPU per request (Node + PostgreSQL); the checkout's statement alone by variant of the keys' table
 * (bench/keyed-statement.ts); then a long keyed checkout run in windows, with what grew in
 * each (the keys' table and its index, WAL, autovacuum and checkpoints), to show whether keyed
 * throughput declines as the keys accumulate.
 *
 * Knobs: BENCH_KEYED_ROUNDS (3), BENCH_KEYED_SECONDS (6 s per run), BENCH_KEYED_LONG (120 s; 0 skips it),
 * BENCH_KEYED_WINDOW (10 s), BENCH_KEYED_ENDPOINTS (checkout,refund), BENCH_KEYED_RATE (requests a second,
 * evenly paced, instead of as fast as answered: CPU per request without the saturated machine's share), BENCH_KEYED_SETUP (SQL run once
 * after the migrations: a variant of the schema to try), BENCH_KEYED_STATEMENTS (600 a run of
 * bench/keyed-statement.ts; 0 skips it), BENCH_KEYED_STATEMENT_ROUNDS (11), BENCH_KEYED_VARIANTS (all: the
 * statement table's rows to run, by index, comma-separated; row 0 always), BENCH_CONNECTIONS (32), DB_POOL_SIZE (10).
 */
import os from 'node:os'
import type pg from 'pg'
import { cpu, meterPostgres, spec, timed, type Measured } from './api.js'
import { cpuMeter, postmasterOf } from './cpu.js'
import { openBenchDb } from './db.js'
import { addPaidRecords } from './fixtures.js'
import { keyedStatements } from './keyed-statement.js'
import { runLoad } from './load.js'
import { context, failures, fmt, pct, table } from './report.js'
import { benchMerchant, startTill } from './till.js'

const ROUNDS = Number(process.env.BENCH_KEYED_ROUNDS) || 3
const SECONDS = Number(process.env.BENCH_KEYED_SECONDS) || 6
const LONG = Number(process.env.BENCH_KEYED_LONG ?? 120)
const WINDOW = Number(process.env.BENCH_KEYED_WINDOW) || 10
const POOL = Number(process.env.DB_POOL_SIZE) || 10
const RECORDS = 2000
const ENDPOINTS = (process.env.BENCH_KEYED_ENDPOINTS ?? 'checkout,refund').split(',')
const SETUP = process.env.BENCH_KEYED_SETUP
const RATE = Number(process.env.BENCH_KEYED_RATE) || 0

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const perReq = (m: Measured) => m.cpu.http + m.cpu.pg
const fresh = { uniqueHeader: 'idempotency-key' }

interface Alternated {
  plain: Measured[]
  keyed: Measured[]
  walPlain: number[]
  walKeyed: number[]
}

/** Each round: the endpoint without a key, then with a fresh key; ratios of the rounds' medians, and of each round. */
function ratios(a: Alternated) {
  if (!a.plain.length) return { rps: NaN, cpu: NaN, rounds: [], cpuRounds: [] }
  const rps = a.keyed.map((k, i) => k.rps / a.plain[i].rps)
  const cpuRatio = a.keyed.map((k, i) => perReq(k) / perReq(a.plain[i]))
  return { rps: median(rps), cpu: median(cpuRatio), rounds: rps, cpuRounds: cpuRatio }
}

/** Sizes and counters of the keys' table and the cluster, to tell what grows during the long run. */
async function snapshot(pool: pg.Pool) {
  const { rows: [r] } = await pool.query(`select
    (select count(*) from idempotency_keys)::int as keys,
    pg_total_relation_size('idempotency_keys')::bigint as bytes,
    pg_indexes_size('idempotency_keys')::bigint as index_bytes,
    coalesce((select avg(length(response_body)) from (select response_body from idempotency_keys order by created_at desc limit 100) s), 0)::int as body,
    (select n_dead_tup from pg_stat_user_tables where relname = 'idempotency_keys')::int as dead,
    (select autovacuum_count + autoanalyze_count from pg_stat_user_tables where relname = 'idempotency_keys')::int as autovacuums,
    (select coalesce(sum(autovacuum_count), 0) from pg_stat_user_tables)::int as all_autovacuums,
    pg_current_wal_lsn()::text as lsn,
    (select num_timed + num_requested from pg_stat_checkpointer)::int as checkpoints`).catch(async () =>
    // Before PostgreSQL 17 the checkpoints are in pg_stat_bgwriter.
    pool.query(`select (select count(*) from idempotency_keys)::int as keys, pg_total_relation_size('idempotency_keys')::bigint as bytes,
      pg_indexes_size('idempotency_keys')::bigint as index_bytes, 0 as body, 0 as dead, 0 as autovacuums, 0 as all_autovacuums,
      pg_current_wal_lsn()::text as lsn, (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::int as checkpoints`))
  return r as { keys: number; bytes: string; index_bytes: string; body: number; dead: number; autovacuums: number; all_autovacuums: number; lsn: string; checkpoints: number }
}

export async function benchKeyed(): Promise<string> {
  const db = await openBenchDb()
  const till = await startTill(db.url, { DB_POOL_SIZE: String(POOL) })
  try {
    const m = await benchMerchant(till.base)
    const pool = db.database.pool
    if (SETUP) await pool.query(SETUP)
    await meterPostgres(pool)
    const postmasterPid = await postmasterOf(pool)
    const records = await addPaidRecords(pool, m.id, RECORDS)
    const pid = till.child.pid!
    const runs = { seconds: SECONDS, ...(RATE ? { rate: RATE } : {}) }
    console.log(`keyed: one Till, ${db.describe}, pool ${POOL}, ${ROUNDS} × ${SECONDS} s alternating rounds, load ${os.loadavg()[0].toFixed(1)}`)
    const lsn = async () => (await pool.query('select pg_current_wal_lsn()::text as l')).rows[0].l as string
    // WAL per request, from the rounds after the first (not warmed up: every request of the run counted).
    const walPer = async (run: () => Promise<Measured>, into: number[]) => {
      const from = await lsn()
      const r = await run()
      into.push(Number((await pool.query('select pg_wal_lsn_diff($1, $2)::bigint as d', [await lsn(), from])).rows[0].d) / r.requests)
      return r
    }
    const alternate = async (endpoint: 'checkout' | 'refund', data: object): Promise<Alternated> => {
      const a: Alternated = { plain: [], keyed: [], walPlain: [], walKeyed: [] }
      for (let round = 0; round < ROUNDS; round++) {
        // Statistics as autoanalyze keeps them in service: without, the refunds table stays analyzed empty
        // (the fixture's), a connection's cached generic plan of the key's lookup scans the merchant's
        // every refund (refunds_scope_idx, not refunds_idempotency_uq) and a keyed refund grows dearer by the round.
        await pool.query('analyze refunds, sessions, idempotency_keys')
        const warm = round === 0
        const plain = () => walPer(() => timed(`${endpoint}`, pid, spec(endpoint, [till.base], m.key, data, runs), warm), warm ? [] : a.walPlain)
        const keyed = () => walPer(() => timed(`${endpoint} + key`, pid, spec(endpoint, [till.base], m.key, data, { ...runs, ...fresh }), warm), warm ? [] : a.walKeyed)
        // Which side goes first alternates: neither always meets the machine after the other's writes.
        if (round % 2 === 0) {
          a.plain.push(await plain())
          a.keyed.push(await keyed())
        } else {
          a.keyed.push(await keyed())
          a.plain.push(await plain())
        }
        const bg = (x: Measured) => fmt(x.cpu.pgBackground ?? NaN)
        console.log(`  ${endpoint} round ${round + 1}: without ${fmt(a.plain[round].rps)} req/s ${cpu(a.plain[round])} µs (PG background ${bg(a.plain[round])}) | with a key ${fmt(a.keyed[round].rps)} req/s ${cpu(a.keyed[round])} µs (${bg(a.keyed[round])})${warm ? '' : ` | WAL ${fmt(a.walPlain.at(-1)!)} / ${fmt(a.walKeyed.at(-1)!)} B`} | load ${os.loadavg()[0].toFixed(1)}`)
      }
      return a
    }
    const none: Alternated = { plain: [], keyed: [], walPlain: [], walKeyed: [] }
    const checkout = ENDPOINTS.includes('checkout') ? await alternate('checkout', {}) : none
    const refund = ENDPOINTS.includes('refund') ? await alternate('refund', { recordIds: records }) : none
    // The checkout's statement alone, by variant of the keys' table: what each part of a key costs PostgreSQL.
    const statements = await keyedStatements(db.url, pool, m.id)

    // The long keyed run: back-to-back windows, each with what grew meanwhile.
    const windows: (string | number)[][] = []
    if (LONG > 0) {
      let before = await snapshot(pool)
      for (let t = 0; t < LONG; t += WINDOW) {
        const meter = cpuMeter(pid, postmasterPid)
        const r = await runLoad({ ...spec('checkout', [till.base], m.key, {}, { seconds: WINDOW, ...fresh }) })
        const used = meter()
        const after = await snapshot(pool)
        const wal = Number((await pool.query('select pg_wal_lsn_diff($1, $2)::bigint as d', [after.lsn, before.lsn])).rows[0].d)
        const f = failures(r)
        windows.push([`${t}–${t + WINDOW} s`, fmt(r.rps), `${fmt(used.http / r.requests)} + ${fmt(used.pg / r.requests)}`, fmt(after.keys), `${(Number(after.bytes) / 2 ** 20).toFixed(1)} MB`, `${(Number(after.index_bytes) / 2 ** 20).toFixed(1)} MB`,
          `${fmt(after.body)} B`, fmt(after.dead), after.autovacuums - before.autovacuums, after.all_autovacuums - before.all_autovacuums,
          `${fmt(wal / Math.max(1, r.requests))} B`, after.checkpoints - before.checkpoints, os.loadavg()[0].toFixed(1), f || ''])
        console.log(`  keyed checkout ${windows.at(-1)!.slice(0, 13).join(' | ')}`)
        before = after
      }
    }

    const c = ratios(checkout)
    const r = ratios(refund)
    const row = (name: string, a: Alternated, x: ReturnType<typeof ratios>) => [name,
      a.plain.map((p) => fmt(p.rps)).join(' / '), a.keyed.map((k) => fmt(k.rps)).join(' / '), x.rounds.map((v) => v.toFixed(2)).join(' / '), `**${x.rps.toFixed(2)}**`,
      a.plain.map(cpu).join(' / '), a.keyed.map(cpu).join(' / '), `**${x.cpu.toFixed(2)}×**`, `${fmt(median(a.walPlain))} / ${fmt(median(a.walKeyed))} B`]
    console.log(`  ratios: checkout ${c.rps.toFixed(2)} (cpu ${c.cpu.toFixed(2)}×), refunds ${r.rps.toFixed(2)} (cpu ${r.cpu.toFixed(2)}×)`)
    return [
      '## Idempotency-Key: keyed against plain, side by side',
      context([
        `${db.describe}; Till: one instance, pool ${POOL}, LOG_LEVEL=warn, jobs on`,
        `Load: autocannon in its own process, ${process.env.BENCH_CONNECTIONS || 32} connections; ${ROUNDS} rounds of ${SECONDS} s, each the endpoint without a key and with a fresh key on every request, back to back, which goes first alternating (2 s warm-up before each side's first run); WAL per request from the rounds after the first`,
      ]),
      '',
      `Targets (issue #37): with a fresh key ≥ 0.90 of the throughput without, and Node + PostgreSQL CPU per request ≤ 1.11×. Ratios are the median of the rounds' ratios (each round's two runs measured back to back).`,
      '',
      table(['endpoint', 'without req/s (rounds)', 'with a key req/s', 'ratio by round', 'ratio', 'CPU µs/req without (node + PG)', 'with a key', 'CPU ratio', 'WAL per request without / with'], [
        row('POST /api/v1/checkout', checkout, c),
        row(`POST /api/v1/refunds (1 unit of one of ${fmt(RECORDS)} records)`, refund, r),
      ]),
      ...(statements ? ['', statements] : []),
      ...(windows.length ? [
        '',
        `### ${LONG} s of keyed checkouts, in ${WINDOW} s windows`,
        '',
        table(['window', 'req/s', 'CPU µs/req (node + PG)', 'keys stored', 'keys table + indexes', 'of which indexes', 'stored answer', 'dead rows', 'autovacuums of the keys', 'autovacuums (all tables)', 'WAL per request', 'checkpoints', 'load (1 min)', 'errors'], windows),
      ] : []),
    ].join('\n')
  } finally {
    await till.stop()
    await db.close()
  }
}
