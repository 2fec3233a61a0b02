/**
 * The relay's wake-up across instances: two Till processes on one PostgreSQL; the customer's relay
 * waits on A for a payment in flight, B confirms it, and A answers once woken by LISTEN/NOTIFY.
 * Per round, both timed from the moment the pay request leaves for B: A's answer to the relay, and
 * beside it the ceiling of the same round, B's own answer to the pay request (the commit seen from
 * where it was made). The tests assert only that A was woken
 * (test/fault/relay-two-instances.test.ts); how fast is measured here.
 *
 * Knob: BENCH_RELAY_ROUNDS (50).
 */
import { loadConfig } from '../src/config.js'
import { createDeps } from '../src/deps.js'
import { parseSecretsKey } from '../src/security/secret-box.js'
import { startAttempt } from '../src/services/attempts.js'
import { openBenchDb } from './db.js'
import { context, ms, table } from './report.js'
import { benchMerchant, SECRETS_KEY, startInstances, stopAll } from './till.js'

const ROUNDS = Number(process.env.BENCH_RELAY_ROUNDS) || 50
const silent = { info() {}, warn() {}, error() {} }

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]

async function post(base: string, path: string, key: string, body: unknown) {
  const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as any }
}

async function waiting(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return Number(/^session_waits (\S+)$/m.exec(text)?.[1])
}

export async function benchRelay(): Promise<string> {
  const db = await openBenchDb(2)
  const [a, b] = await startInstances(db.url, 2, { TILL_JOBS: '0' })
  const wake: number[] = []
  const payRtt: number[] = []
  const reasons: Record<string, number> = {}
  try {
    const merchant = await benchMerchant(a.base, 'Relay bench')
    const deps = createDeps(loadConfig({}), db.database.db, parseSecretsKey(SECRETS_KEY), silent)
    console.log(`relay: ${ROUNDS} rounds, relay on A, payment on B, one ${db.describe}`)
    for (let i = 0; i < ROUNDS; i++) {
      const created = await post(a.base, '/api/v1/checkout', merchant.key, { amount: 1000, currency: 'EUR', successUrl: 'https://shop.example/back' })
      await startAttempt(deps, created.body.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
      const relay = fetch(`${a.base}/c/${created.body.id}/done`, { redirect: 'manual' }).then((res) => ({ res, at: performance.now() }))
      while ((await waiting(a.base)) < 1) await new Promise((r) => setTimeout(r, 5))
      const sent = performance.now()
      const paid = await post(b.base, `/api/v1/test_helpers/sessions/${created.body.id}/pay`, merchant.key, {})
      const paidAt = performance.now()
      if (paid.status !== 200) throw new Error(`pay on B: ${paid.status} ${JSON.stringify(paid.body)}`)
      const { res, at } = await relay
      const reason = /relay;desc=(\w+)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? 'none given'
      reasons[reason] = (reasons[reason] ?? 0) + 1
      wake.push(at - sent)
      payRtt.push(paidAt - sent)
      console.log(`  round ${i + 1}: A answered the relay after ${ms(at - sent)} (${reason}); B answered the payment after ${ms(paidAt - sent)}; ratio ${((at - sent) / (paidAt - sent)).toFixed(2)}`)
    }
    await deps.signals.close()
  } finally {
    await stopAll([a, b])
    await db.close()
  }
  const row = (name: string, xs: number[]) => [name, ms(quantile(xs, 0.5)), ms(quantile(xs, 0.99)), ms(Math.max(...xs))]
  return [
    '## Relay: woken across instances',
    context([
      `${db.describe}; two Till processes, jobs off; ${ROUNDS} rounds one after another`,
      `Why each relay's wait ended (its Server-Timing): ${Object.entries(reasons).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    ]),
    '',
    table(['from the moment the pay request is sent', 'p50', 'p99', 'max'], [
      row('pay sent to B → A answered the relay', wake),
      row('ceiling: pay sent to B → B answered', payRtt),
    ]),
    '',
    `A's answer takes B's commit → PostgreSQL NOTIFY → A's listener → A re-reads the session and answers; B's answer leaves right after the same commit, so the difference between the rows is what the wake-up across instances adds. Correctness (A is woken, not timed out) is tested in test/fault/relay-two-instances.test.ts.`,
  ].join('\n')
}
