/**
 * What unnamed statements cost (DATABASE_PREPARED_STATEMENTS=unnamed, the default behind a
 * transaction pooler: docs/operate.md, "Behind PgBouncer"): one Till with the hot path's statements
 * prepared by name, one with them parsed on every run, on the same PostgreSQL, measured in turn for
 * ROUNDS alternating rounds. With BENCH_POOLER_URL (a PgBouncer in transaction mode in front of
 * BENCH_DATABASE_URL, e.g. scripts/pgbouncer.sh) a third Till runs unnamed through it; its CPU is
 * counted with Till's when BENCH_POOLER_PID names PgBouncer's process.
 */
import { cpu, meterPostgres, spec, timed, type Measured } from './api.js'
import { openBenchDb } from './db.js'
import { addSessions, sampleSessionIds } from './fixtures.js'
import { context, fmt, ms, pct, table } from './report.js'
import { benchMerchant, startTill, type TillProcess } from './till.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3
const POOL = Number(process.env.DB_POOL_SIZE) || 10
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

interface Variant {
  name: string
  env: Record<string, string>
  till?: TillProcess
  pids?: number[]
  get: Measured[]
  checkout: Measured[]
}

export async function benchStatements(): Promise<string> {
  const db = await openBenchDb()
  const pooler = process.env.BENCH_POOLER_URL
  const variants: Variant[] = [
    { name: 'named', env: {}, get: [], checkout: [] },
    { name: 'unnamed', env: { DATABASE_PREPARED_STATEMENTS: 'unnamed' }, get: [], checkout: [] },
    ...(pooler ? [{ name: 'unnamed, through PgBouncer', env: { DATABASE_URL: pooler, DATABASE_DIRECT_URL: db.url }, get: [], checkout: [] }] : []),
  ]
  try {
    for (const v of variants) {
      v.till = await startTill(db.url, { DB_POOL_SIZE: String(POOL), ...v.env })
      v.pids = [v.till.child.pid!, ...(v.env.DATABASE_DIRECT_URL && process.env.BENCH_POOLER_PID ? [Number(process.env.BENCH_POOLER_PID)] : [])]
    }
    const m = await benchMerchant(variants[0].till!.base)
    const pool = db.database.pool
    await meterPostgres(pool)
    await addSessions(pool, m.id, 10_000)
    const ids = await sampleSessionIds(pool, m.id, 10_000)
    console.log(`statements: ${variants.map((v) => v.name).join(' / ')}, ${db.describe}, pool ${POOL}, ${ROUNDS} alternating rounds`)
    for (let round = 1; round <= ROUNDS; round++) {
      for (const v of variants) {
        const get = await timed(`${v.name} get`, v.pids!, spec('get', [v.till!.base], m.key, { sessionIds: ids }))
        const checkout = await timed(`${v.name} checkout`, v.pids!, spec('checkout', [v.till!.base], m.key, {}))
        v.get.push(get)
        v.checkout.push(checkout)
        console.log(`  round ${round} ${v.name}: get ${fmt(get.rps)} req/s cpu ${cpu(get)} µs | checkout ${fmt(checkout.rps)} req/s cpu ${cpu(checkout)} µs`)
      }
    }
  } finally {
    for (const v of variants) await v.till?.stop()
    await db.close()
  }
  const named = variants[0]
  const mid = (runs: Measured[], f: (r: Measured) => number) => median(runs.map(f))
  const rows = variants.flatMap((v) => (['get', 'checkout'] as const).map((e) => [
    `${e === 'get' ? 'GET /api/v1/sessions/{id}' : 'POST /api/v1/checkout'}, ${v.name}`,
    fmt(mid(v[e], (r) => r.rps)), ms(mid(v[e], (r) => r.p50)), ms(mid(v[e], (r) => r.p99)),
    `${fmt(mid(v[e], (r) => r.cpu.http))} + ${fmt(mid(v[e], (r) => r.cpu.pg))}`,
    // Each round's variants ran back to back: their ratio holds better than medians taken minutes apart.
    v === named ? '–' : v[e].map((r, i) => pct(r.cpu.pg, named[e][i].cpu.pg)).join(' / '),
    v[e].map((r) => `${fmt(r.rps)} (${cpu(r)})`).join(' / '),
  ]))
  return [
    '## Named and unnamed statements',
    context([
      `${db.describe}; Till: one instance per variant, pool ${POOL}, LOG_LEVEL=warn, jobs on; the variants measured in turn, ${ROUNDS} rounds, medians`,
    ]),
    '',
    table(['run', 'req/s', 'p50', 'p99', 'CPU µs/req (node + PG)', 'PG CPU against named, per round', 'rounds: req/s (CPU µs/req)'], rows),
    '',
    'Unnamed statements are what a transaction pooler without max_prepared_statements needs (docs/operate.md, "Behind PgBouncer"): PostgreSQL parses and plans each one on every run.',
  ].join('\n')
}
