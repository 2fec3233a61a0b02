/**
 * The console's payments list at a million sessions, beside a GET of one session through the API:
 * one Till process, one merchant with 1,000,000 test sessions, requests made one after another (one
 * connection, so each number is the latency of one page, not throughput). Pages: the newest 25, a
 * page deep in the list (keyset cursor from the middle), a status filter, and a metadata search.
 *
 * Knobs: BENCH_CONSOLE_SESSIONS (1,000,000), BENCH_CONSOLE_REQUESTS (200 per measurement).
 */
import { openBenchDb } from './db.js'
import { addSessions, sampleSessionIds } from './fixtures.js'
import { context, fmt, ms, table } from './report.js'
import { benchMerchant, consoleCookie, startTill } from './till.js'

const SESSIONS = Number(process.env.BENCH_CONSOLE_SESSIONS) || 1_000_000
const REQUESTS = Number(process.env.BENCH_CONSOLE_REQUESTS) || 200

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

async function measure(what: string, url: (i: number) => string, headers: Record<string, string>, expect: RegExp | null) {
  const times: number[] = []
  for (let i = 0; i < REQUESTS + 10; i++) {
    const t0 = performance.now()
    const res = await fetch(url(i), { headers })
    const body = await res.text()
    const took = performance.now() - t0
    if (res.status !== 200 || (expect && !expect.test(body))) throw new Error(`${what}: ${res.status} ${body.slice(0, 200)}`)
    if (i >= 10) times.push(took) // the first ten warm the caches and the connection
  }
  times.sort((a, b) => a - b)
  const row = { what, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length }
  console.log(`  ${what}: p50 ${ms(row.p50)} p99 ${ms(row.p99)}`)
  return row
}

export async function benchConsole(): Promise<string> {
  const db = await openBenchDb()
  const till = await startTill(db.url)
  const rows = []
  try {
    const merchant = await benchMerchant(till.base)
    console.log(`console: ${fmt(SESSIONS)} sessions on ${db.describe}`)
    await addSessions(db.database.pool, merchant.id, SESSIONS)
    const ids = await sampleSessionIds(db.database.pool, merchant.id, REQUESTS + 10)
    const { rows: [middle] } = await db.database.pool.query(`select id from sessions where merchant_id = $1 order by created_at desc, id desc offset $2 limit 1`, [merchant.id, Math.floor(SESSIONS / 2)])
    const cookie = await consoleCookie(till.base, merchant.id)
    const page = (q: string) => () => `${till.base}/console/test/payments${q}`
    const html = { cookie }
    const rowMark = /data-session="sess_/

    rows.push(await measure('API: GET /api/v1/sessions/{id}', (i) => `${till.base}/api/v1/sessions/${ids[i]}`, { authorization: `Bearer ${merchant.key}` }, null))
    rows.push(await measure('Console: payments, newest 25', page(''), html, rowMark))
    rows.push(await measure('Console: payments, a page from the middle (keyset)', page(`?after=${middle.id}`), html, rowMark))
    rows.push(await measure('Console: payments, status=pending', page('?status=pending'), html, rowMark))
    rows.push(await measure('Console: payments, search by metadata value', (i) => `${till.base}/console/test/payments?q=B-${1 + ((i * 7919) % Math.min(SESSIONS, 200_000))}`, html, rowMark))
    rows.push(await measure('Console: one payment\'s page', (i) => `${till.base}/console/test/payments/${ids[i]}`, html, /Refund|Events/))
  } finally {
    await till.stop()
    await db.close()
  }
  return [
    '## Console: the payments list at a million sessions',
    context([
      `${db.describe}; one Till process; one merchant with ${fmt(SESSIONS)} test sessions (bench/fixtures.ts)`,
      `Requests one after another on one connection (latency of one page, not throughput): ${REQUESTS} per row after 10 to warm up; pages of 25, rendered HTML`,
    ]),
    '',
    table(['request', 'p50', 'p99', 'mean'], rows.map((r) => [r.what, ms(r.p50), ms(r.p99), ms(r.mean)])),
    '',
    'The list reads through services/lists.ts, the API\'s own list: a keyset page on the (merchant, mode, created_at, id) index, so a page from the middle of a million costs what the first one does; the metadata search uses the GIN index on metadata (each value here is on 5 sessions: the fixtures number orders per batch of 200,000).',
  ].join('\n')
}
