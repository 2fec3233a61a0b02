/**
 * Scale-out: 1, 2 and 3 Till instances (real processes, started together) on one PostgreSQL, the
 * load spread evenly over their base URLs by one load generator (one autocannon per URL, in one
 * process), the same total connections each time. Per instance count: checkout and session reads,
 * throughput, latency and the CPU each request cost. On a 2-core machine every instance, PostgreSQL
 * and the load generator share the same two cores, so this shows what coordination through the
 * database costs, not what more machines would buy.
 *
 * Knobs: BENCH_DURATION (s per run, 10), BENCH_SCALE_CONNECTIONS (48: divisible by 1, 2 and 3).
 */
import os from 'node:os'
import { cpu, meterPostgres, spec, timed, type Measured } from './api.js'
import { openBenchDb } from './db.js'
import { addSessions, sampleSessionIds } from './fixtures.js'
import { context, fmt, ms, table } from './report.js'
import { benchMerchant, startInstances, stopAll } from './till.js'

const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS) || 48
const POOL = Number(process.env.DB_POOL_SIZE) || 10

export async function benchScale(): Promise<string> {
  const db = await openBenchDb()
  const rows: { n: number; checkout: Measured; get: Measured }[] = []
  try {
    await meterPostgres(db.database.pool)
    let merchant: { id: string; key: string } | null = null
    let ids: string[] = []
    console.log(`scale: 1, 2, 3 instances on one ${db.describe}, ${CONNECTIONS} connections in all`)
    for (const n of [1, 2, 3]) {
      const instances = await startInstances(db.url, n, { DB_POOL_SIZE: String(POOL) })
      try {
        if (!merchant) {
          merchant = await benchMerchant(instances[0].base)
          await addSessions(db.database.pool, merchant.id, 10_000)
          ids = await sampleSessionIds(db.database.pool, merchant.id, 10_000)
        }
        const urls = instances.map((i) => i.base)
        const pids = instances.map((i) => i.child.pid!)
        const checkout = await timed(`checkout × ${n}`, pids, spec('checkout', urls, merchant.key, {}, { connections: CONNECTIONS }))
        const get = await timed(`get × ${n}`, pids, spec('get', urls, merchant.key, { sessionIds: ids }, { connections: CONNECTIONS }))
        rows.push({ n, checkout, get })
        console.log(`  ${n} instance(s): checkout ${fmt(checkout.rps)} req/s p99 ${ms(checkout.p99)} cpu ${cpu(checkout)} µs | get ${fmt(get.rps)} req/s p99 ${ms(get.p99)} cpu ${cpu(get)} µs`)
      } finally {
        await stopAll(instances)
      }
    }
  } finally {
    await db.close()
  }
  const one = rows[0]
  return [
    '## Scale-out: instances on one PostgreSQL',
    context([
      `${db.describe}; each instance pool ${POOL}, LOG_LEVEL=warn, jobs on, shared SECRETS_KEY; all started at once`,
      `Load: one autocannon per instance URL, in one load-generator process, ${CONNECTIONS} connections in all, split evenly; ${process.env.BENCH_DURATION || 5} s per run after a 2 s warm-up`,
    ]),
    '',
    table(
      ['instances', 'checkout req/s', 'per instance', 'vs 1', 'p50', 'p99', 'CPU µs/req (Till + PG)', 'GET req/s', 'per instance', 'vs 1', 'p50', 'p99', 'CPU µs/req (Till + PG)'],
      rows.map((r) => [
        r.n,
        fmt(r.checkout.rps), fmt(r.checkout.rps / r.n), `${(r.checkout.rps / one.checkout.rps).toFixed(2)}×`, ms(r.checkout.p50), ms(r.checkout.p99), cpu(r.checkout),
        fmt(r.get.rps), fmt(r.get.rps / r.n), `${(r.get.rps / one.get.rps).toFixed(2)}×`, ms(r.get.p50), ms(r.get.p99), cpu(r.get),
      ]),
    ),
    '',
    `The machine has ${os.cpus().length} cores, shared by every instance, PostgreSQL and the load generator: more instances use what one process leaves idle, then divide the same CPU (the CPU per request shows what each extra process costs). Correctness across instances (each migration once, no duplicate events, sweeps that never act twice, the relay, the rate limit) is tested in test/fault/scale-out.test.ts, test/fault/relay-two-instances.test.ts and test/api/rate-limit.test.ts.`,
  ].join('\n')
}
