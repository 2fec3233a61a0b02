/**
 * What tracing costs when it is off (docs/operate.md#tracing): every database statement goes
 * through DbClient.query, which checks whether tracing is on before calling pg's own query. Each
 * round runs the same statement ROUNDS × N times on one connection both ways, alternating, through
 * DbClient.query and straight through pg.Client's query on the same client; the report gives the
 * median time per statement of each and their difference. (Requests, provider calls and deliveries
 * register no hook at all while tracing is off.)
 *
 * Knobs: BENCH_TRACING_ROUNDS (9), BENCH_TRACING_STATEMENTS (3000 per round and way).
 */
import pg from 'pg'
import { clientConfig, DbClient } from '../src/store/db.js'
import { tracingOn } from '../src/tracing/tracer.js'
import { openBenchDb } from './db.js'
import { context, table } from './report.js'

const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS) || 9
const N = Number(process.env.BENCH_TRACING_STATEMENTS) || 3000
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export async function benchTracing(): Promise<string> {
  if (tracingOn()) throw new Error('tracing is on in the bench process')
  const db = await openBenchDb(1)
  const client = new DbClient(clientConfig(db.database.pool))
  await client.connect()
  const plain = pg.Client.prototype.query as (this: pg.Client, text: string, values: unknown[]) => Promise<unknown>
  const run = async (q: (text: string, values: unknown[]) => Promise<unknown>) => {
    const started = performance.now()
    for (let i = 0; i < N; i++) await q('select $1::int as n', [i])
    return ((performance.now() - started) * 1000) / N
  }
  const hooked: number[] = []
  const direct: number[] = []
  try {
    await run((t, v) => client.query(t, v)) // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      hooked.push(await run((t, v) => client.query(t, v)))
      direct.push(await run((t, v) => plain.call(client, t, v)))
    }
  } finally {
    await client.end()
    await db.close()
  }
  const [a, b] = [median(hooked), median(direct)]
  const us = (x: number) => `${x.toFixed(1)} µs`
  const out = [
    '## Tracing off: what a database statement pays',
    '',
    context([db.describe, `${ROUNDS} rounds of ${N} statements each way, alternating, on one connection (\`npm run bench -- tracing\`)`]),
    '',
    table(['one `select $1::int` on one connection', 'median per statement', 'fastest round', 'slowest round'], [
      ['through DbClient.query (tracing off)', us(a), us(Math.min(...hooked)), us(Math.max(...hooked))],
      ["straight through pg's Client.query", us(b), us(Math.min(...direct)), us(Math.max(...direct))],
    ]),
    '',
    `Difference: ${us(a - b)} per statement (${((100 * (a - b)) / b).toFixed(1)} %), against a spread between rounds of ${us(Math.max(...direct) - Math.min(...direct))}.`,
  ].join('\n')
  console.log(out)
  return out
}
