/**
 * API benchmark: Till (a real child process) against the ceiling (bench/ceiling.ts, a bare node:http
 * server doing the same SQL through a pg Pool of the same size), both on one PostgreSQL, loaded by
 * autocannon from a third process on loopback. Per endpoint: the most each answers (req/s, p50,
 * p99) and the latency at a fixed rate; checkout and refunds with a fresh Idempotency-Key against the
 * same without one; then GET at 10 thousand against a million stored sessions.
 *
 * Knobs: BENCH_DURATION (s per run, 5), BENCH_CONNECTIONS (32), BENCH_FIXED_RATE (1000), BENCH_REFUND_RATE (100), BENCH_ROUNDS (3),
 * BENCH_LARGE (sessions for the lookup at scale, e.g. 1000000; none by default, so that `npm run bench` stays under 25 minutes), DB_POOL_SIZE (10, both sides), BENCH_PROFILE (dir: Till with --cpu-prof).
 */
import { closeSync, openSync } from 'node:fs'
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { cpuMeter, postmasterOf, type CpuSample } from './cpu.js'
import { openBenchDb, type BenchDb } from './db.js'
import { addPaidRecords, addSessions, sampleSessionIds } from './fixtures.js'
import { runLoad, type LoadResult, type LoadSpec } from './load.js'
import { context, failures, fmt, ms, pct, table } from './report.js'
import { benchMerchant, startTill, type TillProcess } from './till.js'

const SECONDS = Number(process.env.BENCH_DURATION) || 5
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS) || 32
const FIXED_RATE = Number(process.env.BENCH_FIXED_RATE) || 1000
const LARGE = Number(process.env.BENCH_LARGE) || 0
const SMALL = 10_000
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3
/**
 * Refunds take two transactions and a provider call each: on 2 CPUs even the ceiling answers a few
 * hundred a second, so 1,000/s would only measure a queue growing. They are paced at a rate both sides sustain.
 */
const REFUND_RATE = Number(process.env.BENCH_REFUND_RATE) || 100
const fixedRate = (e: Endpoint) => (e === 'refund' ? Math.min(REFUND_RATE, FIXED_RATE) : FIXED_RATE)
const POOL = Number(process.env.DB_POOL_SIZE) || 10
/** Paid records per side for the refund runs: requests spread over them rarely meet on one row lock. */
const RECORDS = 2000

export interface Ceiling {
  base: string
  pid: number
  stop(): Promise<void>
}

/**
 * `profileDir`: the ceiling runs with --cpu-prof, its profile written there when it stops; `gcLog`: its
 * output goes to that file, with one line per garbage collection (bench/gc.ts).
 */
export async function startCeiling(databaseUrl: string, merchantId: string, profileDir?: string, gcLog?: string): Promise<Ceiling> {
  const out = gcLog ? openSync(gcLog, 'a') : 'inherit'
  const child = fork(fileURLToPath(new URL('./ceiling.ts', import.meta.url)), {
    execArgv: [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(gcLog ? ['--trace-gc-nvp'] : []), '--import', 'tsx'],
    env: { ...process.env, DATABASE_URL: databaseUrl, POOL_SIZE: String(POOL), MERCHANT_ID: merchantId },
    stdio: ['ignore', out, out, 'ipc'],
  })
  if (typeof out === 'number') closeSync(out)
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port))
    child.once('exit', (code) => reject(new Error(`ceiling exited with ${code}`)))
  })
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.send({ cmd: 'stop' })
      await exited
    },
  }
}

type Endpoint = 'checkout' | 'get' | 'refund'

export function spec(endpoint: Endpoint, urls: string[], key: string, data: { sessionIds?: string[]; recordIds?: string[] }, extra: Partial<LoadSpec> = {}): LoadSpec {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` }
  const base = { urls, headers, connections: CONNECTIONS, seconds: SECONDS, ...extra }
  if (endpoint === 'get') return { ...base, method: 'GET', paths: data.sessionIds!.map((id) => `/api/v1/sessions/${id}`) }
  headers['content-type'] = 'application/json'
  if (endpoint === 'checkout') {
    return { ...base, method: 'POST', paths: ['/api/v1/checkout'], bodies: [JSON.stringify({ amount: 9900, currency: 'CNY', metadata: { order: 'bench-1' } })] }
  }
  return { ...base, method: 'POST', paths: ['/api/v1/refunds'], bodies: data.recordIds!.map((id) => JSON.stringify({ recordId: id, amount: 1 })) }
}

/** A run with the CPU each side spent on it, in µs per answered request. */
export interface Measured extends LoadResult {
  cpu: CpuSample
}

interface Pair {
  till: Measured
  ceiling: Measured
  tillFixed: Measured
  ceilingFixed: Measured
  fixedRate: number
  rounds: { till: Measured[]; ceiling: Measured[]; tillFixed: Measured[]; ceilingFixed: Measured[] }
}

let postmaster: number | null = null
/** Counts PostgreSQL's CPU too, when the cluster the pool reaches runs on this machine. */
export async function meterPostgres(pool: pg.Pool) {
  postmaster = await postmasterOf(pool)
}

/** Warms up (2 s, unless `warm` is false), then measures one run and the CPU it cost. */
export async function timed(what: string, pid: number | number[], s: LoadSpec, warm = true): Promise<Measured> {
  if (warm) await runLoad({ ...s, seconds: 2 })
  const meter = cpuMeter(pid, postmaster)
  const r = await runLoad(s)
  const used = meter()
  const f = failures(r)
  if (f) console.warn(`  ! ${what}: answers other than 2xx: ${f}`)
  return { ...r, cpu: { http: used.http / r.requests, pg: used.pg / r.requests, pgBackground: (used.pgBackground ?? NaN) / r.requests } }
}

export const cpu = (m: Measured) => `${fmt(m.cpu.http)} + ${fmt(m.cpu.pg)}`

/**
 * Before each endpoint: the rows just written vacuumed and analyzed and the checkpoint taken now, so
 * that neither autovacuum nor a checkpoint of the previous runs' writes lands in the next runs.
 * CHECKPOINT needs a superuser (or pg_checkpoint); on a BENCH_DATABASE_URL without it, it is skipped.
 */
async function settle(pool: pg.Pool) {
  await pool.query('vacuum analyze')
  await pool.query('checkpoint').catch(() => {})
}

/** The run of median throughput: one slow or fast run on a shared machine does not decide the ratio. */
const median = (runs: Measured[]) => runs.slice().sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]
const medianP99 = (runs: Measured[]) => runs.slice().sort((a, b) => a.p99 - b.p99)[Math.floor(runs.length / 2)]

/**
 * ROUNDS rounds of ceiling then Till at full speed (the machine's speed drifts over minutes, so the
 * two sides alternate and each keeps its median run); then both at the endpoint's fixed rate.
 */
async function measure(endpoint: Endpoint, till: TillProcess, ceiling: Ceiling, key: string, tillData: object, ceilingData: object): Promise<Pair> {
  const cs: Measured[] = []
  const ts: Measured[] = []
  for (let round = 0; round < ROUNDS; round++) {
    cs.push(await timed(`ceiling ${endpoint}`, ceiling.pid, spec(endpoint, [ceiling.base], key, ceilingData), round === 0))
    ts.push(await timed(`till ${endpoint}`, till.child.pid!, spec(endpoint, [till.base], key, tillData), round === 0))
  }
  const [c, t] = [median(cs), median(ts)]
  const rate = fixedRate(endpoint)
  // The same at the fixed rate: one stall of a few tens of ms decides a p99 over 10 s, so each side keeps its median p99.
  const cfs: Measured[] = []
  const tfs: Measured[] = []
  for (let round = 0; round < ROUNDS; round++) {
    cfs.push(await timed(`ceiling ${endpoint} fixed`, ceiling.pid, spec(endpoint, [ceiling.base], key, ceilingData, { rate }), false))
    tfs.push(await timed(`till ${endpoint} fixed`, till.child.pid!, spec(endpoint, [till.base], key, tillData, { rate }), false))
  }
  const [cf, tf] = [medianP99(cfs), medianP99(tfs)]
  console.log(`  ${endpoint.padEnd(8)} till ${fmt(t.rps).padStart(6)} req/s p50 ${ms(t.p50)} p99 ${ms(t.p99)} cpu ${cpu(t)} µs | ceiling ${fmt(c.rps).padStart(6)} req/s p50 ${ms(c.p50)} p99 ${ms(c.p99)} cpu ${cpu(c)} µs | ratio ${pct(t.rps, c.rps)} (rounds: till ${ts.map((r) => fmt(r.rps)).join(', ')}; ceiling ${cs.map((r) => fmt(r.rps)).join(', ')}) | at ${rate}/s p99 till ${ms(tf.p99)} ceiling ${ms(cf.p99)} (rounds: till ${tfs.map((r) => ms(r.p99)).join(', ')}; ceiling ${cfs.map((r) => ms(r.p99)).join(', ')})`)
  return { till: t, ceiling: c, tillFixed: tf, ceilingFixed: cf, fixedRate: rate, rounds: { till: ts, ceiling: cs, tillFixed: tfs, ceilingFixed: cfs } }
}

interface KeyedPair {
  plain: Measured
  keyed: Measured
  ceiling: Measured
  rounds: { plain: Measured[]; keyed: Measured[]; ceiling: Measured[] }
}

/**
 * Till's endpoint with a fresh Idempotency-Key on every request against the same endpoint without
 * one (target: ≥ 90 %), and the ceiling with a fresh key (its minimal keyed statements), ROUNDS
 * alternating rounds, each side's median run kept.
 */
async function measureKeyed(endpoint: Endpoint, till: TillProcess, ceiling: Ceiling, key: string, data: object, ceilingData: object): Promise<KeyedPair> {
  const plain: Measured[] = []
  const keyed: Measured[] = []
  const ceil: Measured[] = []
  const fresh = { uniqueHeader: 'idempotency-key' }
  for (let round = 0; round < ROUNDS; round++) {
    ceil.push(await timed(`ceiling ${endpoint} + Idempotency-Key`, ceiling.pid, spec(endpoint, [ceiling.base], key, ceilingData, fresh), round === 0))
    plain.push(await timed(`till ${endpoint}`, till.child.pid!, spec(endpoint, [till.base], key, data), round === 0))
    keyed.push(await timed(`till ${endpoint} + Idempotency-Key`, till.child.pid!, spec(endpoint, [till.base], key, data, fresh), round === 0))
  }
  const [p, k, c] = [median(plain), median(keyed), median(ceil)]
  console.log(`  ${endpoint.padEnd(8)} with a fresh key ${fmt(k.rps).padStart(6)} req/s p99 ${ms(k.p99)} cpu ${cpu(k)} µs | without ${fmt(p.rps).padStart(6)} req/s p99 ${ms(p.p99)} cpu ${cpu(p)} µs | ratio ${pct(k.rps, p.rps)} | ceiling with a key ${fmt(c.rps)} req/s (rounds: keyed ${keyed.map((r) => fmt(r.rps)).join(', ')}; without ${plain.map((r) => fmt(r.rps)).join(', ')}; ceiling keyed ${ceil.map((r) => fmt(r.rps)).join(', ')})`)
  return { plain: p, keyed: k, ceiling: c, rounds: { plain, keyed, ceiling: ceil } }
}

export async function benchApi(): Promise<string> {
  const db: BenchDb = await openBenchDb()
  const till = await startTill(db.url, { DB_POOL_SIZE: String(POOL) })
  let ceiling: Ceiling | null = null
  try {
    const m = await benchMerchant(till.base)
    ceiling = await startCeiling(db.url, m.id)
    const pool = db.database.pool
    await meterPostgres(pool)
    await addSessions(pool, m.id, SMALL)
    const small = await sampleSessionIds(pool, m.id, SMALL)
    const tillRecords = await addPaidRecords(pool, m.id, RECORDS)
    const ceilingRecords = await addPaidRecords(pool, m.id, RECORDS)
    console.log(`api: Till vs the ceiling, ${db.describe}, pool ${POOL}, ${CONNECTIONS} connections, ${SECONDS} s per run`)

    // GET first, while the table holds the 10 thousand sessions (checkout runs add more).
    const count = async () => (await pool.query('select count(*)::int as n from sessions')).rows[0].n as number
    const atSmall = await count()
    await settle(pool)
    const get = await measure('get', till, ceiling, m.key, { sessionIds: small }, { sessionIds: small })
    await settle(pool)
    const checkout = await measure('checkout', till, ceiling, m.key, {}, {})
    await settle(pool)
    const refund = await measure('refund', till, ceiling, m.key, { recordIds: tillRecords }, { recordIds: ceilingRecords })

    // What Till does beyond the ceiling, priced: its key lookup with a rate-limit claim, made on every
    // request (Till makes it once per key per window or block of tokens); then an Idempotency-Key (on Till).
    const withAuth = { headers: { authorization: `Bearer ${m.key}`, 'x-ceiling-extra': 'auth' } }
    const ceilingAuth = await timed('ceiling get + auth', ceiling.pid, spec('get', [ceiling.base], m.key, { sessionIds: small }, withAuth))
    const ceilingAuthCheckout = await timed('ceiling checkout + auth', ceiling.pid, spec('checkout', [ceiling.base], m.key, {}, withAuth))
    await settle(pool)
    const keyedCheckout = await measureKeyed('checkout', till, ceiling, m.key, {}, {})
    await settle(pool)
    const keyedRefund = await measureKeyed('refund', till, ceiling, m.key, { recordIds: tillRecords }, { recordIds: ceilingRecords })

    // With BENCH_LARGE, lookups against that many stored sessions: the table grows, the ids read are spread over all of it.
    const lookups = [[fmt(atSmall), fmt(get.till.rps), ms(get.till.p50), ms(get.till.p99), ms(get.tillFixed.p50), ms(get.tillFixed.p99), fmt(get.ceiling.rps), pct(get.till.rps, get.ceiling.rps)]]
    let largeNote = `BENCH_LARGE=1000000 adds a row for a million stored sessions (a 1,000,000-session table is about 500 MB with its indexes); the console section reads one session among a million.`
    if (LARGE) {
      await addSessions(pool, m.id, LARGE - (await count()))
      const large = await sampleSessionIds(pool, m.id, 50_000)
      await settle(pool)
      const largeMax = await timed('till get large', till.child.pid!, spec('get', [till.base], m.key, { sessionIds: large }))
      const largeFixed = await timed('till get large fixed', till.child.pid!, spec('get', [till.base], m.key, { sessionIds: large }, { rate: FIXED_RATE }), false)
      const largeCeiling = await timed('ceiling get large', ceiling.pid, spec('get', [ceiling.base], m.key, { sessionIds: large }))
      const { rows: size } = await pool.query(`select pg_size_pretty(pg_total_relation_size('sessions')) as total`)
      console.log(`  lookups: ${fmt(atSmall)} sessions p50 ${ms(get.tillFixed.p50)} p99 ${ms(get.tillFixed.p99)}; ${fmt(LARGE)} sessions p50 ${ms(largeFixed.p50)} p99 ${ms(largeFixed.p99)} (${fmt(largeMax.rps)} req/s max)`)
      lookups.push([fmt(LARGE), fmt(largeMax.rps), ms(largeMax.p50), ms(largeMax.p99), ms(largeFixed.p50), ms(largeFixed.p99), fmt(largeCeiling.rps), pct(largeMax.rps, largeCeiling.rps)])
      largeNote = `The ${fmt(LARGE)} table (${size[0].total} with its indexes) is read at 50,000 ids spread over all of it.`
    }

    const row = (name: string, p: Pair) => [
      name, fmt(p.till.rps), ms(p.till.p50), ms(p.till.p99), fmt(p.ceiling.rps), ms(p.ceiling.p50), ms(p.ceiling.p99),
      `**${pct(p.till.rps, p.ceiling.rps)}**`, `${fmt(p.fixedRate)}/s`, ms(p.tillFixed.p99), ms(p.ceilingFixed.p99), `**${(p.tillFixed.p99 / p.ceilingFixed.p99).toFixed(2)}×**`, cpu(p.till), cpu(p.ceiling),
      `${p.rounds.till.map((r) => fmt(r.rps)).join(' / ')} vs ${p.rounds.ceiling.map((r) => fmt(r.rps)).join(' / ')}`,
      `${p.rounds.tillFixed.map((r) => ms(r.p99)).join(' / ')} vs ${p.rounds.ceilingFixed.map((r) => ms(r.p99)).join(' / ')}`,
    ]
    return [
      '## API against the ceiling',
      context([
        db.describe + `; Till: one instance, pool ${POOL}, LOG_LEVEL=warn, jobs on, the rate limiter on (its limit set out of reach: one claim per second)`,
        `Load: autocannon in its own process on loopback, ${CONNECTIONS} connections, ${SECONDS} s per run after a 2 s warm-up; latencies of 2xx answers, per request. Full speed, then the fixed rate: ${ROUNDS} rounds of ceiling then Till each; each side's median run is reported (by req/s, and by p99 at the fixed rate; every round in the last two columns)`,
        `Fixed rate: ${fmt(FIXED_RATE)} req/s (refunds ${fmt(fixedRate('refund'))} req/s), evenly paced by the same separate process: an open loop over up to ${CONNECTIONS} keep-alive connections, ${SECONDS} s measured after 1 s (bench/load-worker.ts \`paced\`; autocannon's own rate option sends each second's quota in one burst)`,
      ]),
      '',
      `Targets (issue #28): Till at ≥ 85 % of the ceiling's throughput on each endpoint, and its p99 at the fixed rate at most 1.5× the ceiling's in the same rounds.`,
      '',
      table(
        ['endpoint', 'Till req/s', 'p50', 'p99', 'ceiling req/s', 'p50', 'p99', 'ratio', 'fixed rate', 'Till p99 at it', 'ceiling p99 at it', 'p99 Till ÷ ceiling', 'Till CPU µs/req (node + PG)', 'ceiling CPU µs/req', 'rounds: req/s (Till vs ceiling)', 'rounds: p99 at the fixed rate'],
        [
          row('POST /api/v1/checkout', checkout),
          row(`GET /api/v1/sessions/{id} (${fmt(SMALL)} stored)`, get),
          row('POST /api/v1/refunds (1 unit)', refund),
        ],
      ),
      '',
      'CPU µs/req: CPU time the HTTP process and the PostgreSQL cluster spent during the full-speed run, divided by the requests answered (from /proc): unlike req/s it hardly moves when other work shares the machine.',
      '',
      `Refunds: each request refunds 1 unit of one of ${fmt(RECORDS)} paid records (amount 99,999,999), taken in turn, so concurrent requests rarely wait on the same row lock; Till and the ceiling each get their own ${fmt(RECORDS)} records. The mock provider answers \`succeeded\` at once, so both do the reserve and the settle transactions.`,
      '',
      '### What Till does beyond the ceiling, priced',
      '',
      table(['run', 'req/s', 'p50', 'p99', 'CPU µs/req (node + PG)', 'compared with'], [
        ['ceiling GET + key lookup with rate-limit claim, every request', fmt(ceilingAuth.rps), ms(ceilingAuth.p50), ms(ceilingAuth.p99), cpu(ceilingAuth), `ceiling GET ${fmt(get.ceiling.rps)} req/s, ${cpu(get.ceiling)} µs; Till GET ${fmt(get.till.rps)} req/s, ${cpu(get.till)} µs = ${pct(get.till.rps, ceilingAuth.rps)} of this`],
        ['ceiling checkout + key lookup with rate-limit claim, every request', fmt(ceilingAuthCheckout.rps), ms(ceilingAuthCheckout.p50), ms(ceilingAuthCheckout.p99), cpu(ceilingAuthCheckout), `ceiling checkout ${fmt(checkout.ceiling.rps)} req/s, ${cpu(checkout.ceiling)} µs; Till checkout ${fmt(checkout.till.rps)} req/s, ${cpu(checkout.till)} µs = ${pct(checkout.till.rps, ceilingAuthCheckout.rps)} of this`],
      ]),
      '',
      '### Idempotency-Key: the same endpoint with a fresh key on every request',
      '',
      `Target: with a key, ≥ 90 % of the same endpoint's throughput without one. ${ROUNDS} alternating rounds (ceiling with a key, Till without, Till with), each side's median run. The ceiling with a key runs the minimal keyed statements (bench/ceiling.ts): the claim in the session's INSERT; a refund's claim in its reservation and its answer in its settlement.`,
      '',
      table(['endpoint', 'with a key req/s', 'p50', 'p99', 'CPU µs/req (node + PG)', 'without req/s', 'p50', 'p99', 'CPU µs/req', 'ratio', 'ceiling with a key req/s', 'CPU µs/req', 'Till with ÷ ceiling with', 'rounds: req/s (with vs without vs ceiling with)'], [
        ['POST /api/v1/checkout', keyedCheckout],
        ['POST /api/v1/refunds (1 unit)', keyedRefund],
      ].map(([name, k]) => {
        const { keyed, plain, ceiling: c, rounds } = k as KeyedPair
        return [name as string, fmt(keyed.rps), ms(keyed.p50), ms(keyed.p99), cpu(keyed), fmt(plain.rps), ms(plain.p50), ms(plain.p99), cpu(plain),
          `**${pct(keyed.rps, plain.rps)}**`, fmt(c.rps), cpu(c), pct(keyed.rps, c.rps),
          `${rounds.keyed.map((r) => fmt(r.rps)).join(' / ')} vs ${rounds.plain.map((r) => fmt(r.rps)).join(' / ')} vs ${rounds.ceiling.map((r) => fmt(r.rps)).join(' / ')}`]
      })),
      '',
      '### Lookup latency against the number of stored sessions',
      '',
      table(['stored sessions', 'Till req/s', 'p50', 'p99', `Till p50 @ ${fmt(FIXED_RATE)}/s`, `p99 @ ${fmt(FIXED_RATE)}/s`, 'ceiling req/s', 'ratio'], lookups),
      '',
      `The smaller table is ${fmt(SMALL)} open sessions plus the ${fmt(2 * RECORDS)} paid ones for the refund runs, read before the checkout runs added rows. ${largeNote}`,
    ].join('\n')
  } finally {
    await ceiling?.stop()
    await till.stop()
    await db.close()
  }
}
