/**
 * One busy payment's console page against another merchant's API, on one Till process and its pool
 * of 10: the other merchant's GET /api/v1/sessions/{id} at a steady rate, alone, then while console
 * viewers load the busy payment's page (200 events, each with its delivery and two attempts), in
 * rounds of the same run, and as a control while the same viewers load a payment with one event.
 * The result is the ratio of the p99s, each the median over the rounds (one round's p99 is a
 * handful of requests: one stall of a shared machine moves it). Jobs are off, so nothing else uses the pool.
 *
 * Knobs: BENCH_PAGE_VIEWERS (12 viewers, each loading the page once a second), BENCH_PAGE_SECONDS
 * (8 per phase), BENCH_PAGE_RATE (the other merchant's GETs per second, 50), BENCH_PAGE_ROUNDS (3).
 */
import { appendEvent } from '../src/store/repos/events.js'
import { openBenchDb } from './db.js'
import { runLoad, type LoadResult } from './load.js'
import { context, failures, fmt, ms, table } from './report.js'
import { benchMerchant, consoleCookie, startTill } from './till.js'

const VIEWERS = Number(process.env.BENCH_PAGE_VIEWERS) || 12
const SECONDS = Number(process.env.BENCH_PAGE_SECONDS) || 8
const RATE = Number(process.env.BENCH_PAGE_RATE) || 50
const ROUNDS = Number(process.env.BENCH_PAGE_ROUNDS) || 3
const EVENTS = 200

async function api(base: string, key: string, path: string, body: unknown) {
  const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = (await res.json()) as Record<string, any>
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

export async function benchConsolePage(): Promise<string> {
  const db = await openBenchDb()
  const till = await startTill(db.url, { TILL_JOBS: '0' })
  const rounds: { alone: LoadResult; loaded: LoadResult; page: LoadResult; quiet: LoadResult; quietPage: LoadResult }[] = []
  try {
    // The busy merchant: an endpoint, a paid payment, and events on it up to 200, every delivery tried twice.
    const busy = await benchMerchant(till.base, 'Busy')
    await api(till.base, busy.key, '/api/v1/webhook_endpoints', { url: 'https://hooks.example.com/till' })
    const session = await api(till.base, busy.key, '/api/v1/checkout', { amount: 5000, currency: 'CNY' })
    const paid = await api(till.base, busy.key, `/api/v1/test_helpers/sessions/${session.id}/pay`, {})
    const scope = { merchantId: busy.id, mode: 'test' as const }
    const { rows: [made] } = await db.database.pool.query(`select count(*) as n from events where data->>'sessionId' = $1`, [session.id])
    for (let i = made.n; i < EVENTS; i++) await appendEvent(db.database.db, scope, 'refund.failed', { sessionId: session.id, recordId: paid.record.id }, new Date())
    await db.database.pool.query(`insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms)
      select d.id, now(), 500, 3 from webhook_deliveries d join events e on e.id = d.event_id, generate_series(1, 2) where e.data->>'sessionId' = $1`, [session.id])
    // The control: the same page for a payment with only its own event.
    const calm = await api(till.base, busy.key, '/api/v1/checkout', { amount: 5000, currency: 'CNY' })
    await api(till.base, busy.key, `/api/v1/test_helpers/sessions/${calm.id}/pay`, {})
    const cookie = await consoleCookie(till.base, busy.id)
    const shown = (await (await fetch(`${till.base}/console/test/payments/${session.id}`, { headers: { cookie } })).text()).match(/data-event="/g)?.length
    if (shown !== EVENTS) throw new Error(`the payment's page shows ${shown} events, not ${EVENTS}`)

    // The other merchant: one session, read through the API.
    const other = await benchMerchant(till.base, 'Other')
    const read = await api(till.base, other.key, '/api/v1/checkout', { amount: 100, currency: 'CNY' })
    const otherGet = { urls: [till.base], method: 'GET' as const, headers: { authorization: `Bearer ${other.key}` }, paths: [`/api/v1/sessions/${read.id}`], connections: 4, seconds: SECONDS, rate: RATE }

    console.log(`console-page: ${VIEWERS} viewers of a payment with ${EVENTS} events; the other merchant's GET at ${RATE}/s; ${ROUNDS} rounds of ${SECONDS} s per phase`)
    const viewers = (id: string) => runLoad({ urls: [till.base], method: 'GET', headers: { cookie }, paths: [`/console/test/payments/${id}`], connections: VIEWERS, seconds: SECONDS, rate: VIEWERS })
    for (let r = 0; r < ROUNDS; r++) {
      const alone = await runLoad(otherGet)
      const [loaded, page] = await Promise.all([runLoad(otherGet), viewers(session.id)])
      const [quiet, quietPage] = await Promise.all([runLoad(otherGet), viewers(calm.id)])
      console.log(`  round ${r + 1}: alone p99 ${ms(alone.p99)}; busy page loaded ${ms(loaded.p99)} (page p99 ${ms(page.p99)} ${failures(page)}); one-event page loaded ${ms(quiet.p99)}`)
      rounds.push({ alone, loaded, page, quiet, quietPage })
    }
  } finally {
    await till.stop()
    await db.close()
  }
  const median = (pick: (r: (typeof rounds)[number]) => number) => rounds.map(pick).sort((a, b) => a - b)[Math.floor(rounds.length / 2)]
  const alone = median((r) => r.alone.p99)
  const loaded = median((r) => r.loaded.p99)
  const quiet = median((r) => r.quiet.p99)
  const row = (what: string, pick: (r: (typeof rounds)[number]) => LoadResult) => {
    const all = rounds.map(pick)
    const codes = all.map(failures).filter(Boolean).join('; ')
    return [what, fmt(all.reduce((n, x) => n + x.requests, 0)), ms(median((r) => pick(r).p50)), ms(median((r) => pick(r).p99)), all.map((x) => ms(x.p99)).join(', '), codes || '–']
  }
  return [
    '## Console: one busy payment\'s page beside another merchant\'s API',
    context([
      `${db.describe}; one Till process, pool of 10, jobs off`,
      `The busy payment: ${EVENTS} events, each with a delivery tried twice; ${VIEWERS} viewers each loading its page once a second (paced)`,
      `The other merchant: GET /api/v1/sessions/{id} at ${RATE}/s (paced), alone, while the busy page is loaded, and while the same viewers load a payment with one event (the control); ${ROUNDS} rounds of ${SECONDS} s per phase`,
    ]),
    '',
    table(['requests', 'served', 'p50 (median)', 'p99 (median)', 'p99 of each round', 'not 2xx'], [
      row('other merchant\'s GET, alone', (r) => r.alone),
      row('other merchant\'s GET, busy page loaded', (r) => r.loaded),
      row('the busy payment\'s page', (r) => r.page),
      row('other merchant\'s GET, one-event page loaded', (r) => r.quiet),
      row('a one-event payment\'s page', (r) => r.quietPage),
    ]),
    '',
    `**The other merchant's p99 with the busy page loaded: ${(loaded / alone).toFixed(2)}× its p99 alone, and ${(loaded / quiet).toFixed(2)}× its p99 beside the same viewers on a payment with one event.** The page reads its events and a summary of their deliveries in two queries, whatever their number (test/console/payments.test.ts counts the page's queries).`,
  ].join('\n')
}
