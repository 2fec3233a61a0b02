/**
 * PostgreSQL stops (an immediate shutdown: a crash, as far as it knows) and starts again under
 * load. Till (a real child process) runs on a private cluster this test owns through DATABASE_URL,
 * so the database goes away under a running service. Meanwhile /readyz says 503, every API request
 * is answered quickly with 503 and a JSON error (never a 500, never a hang); once PostgreSQL is
 * back the service recovers on its own (no restart), every session it acknowledged is there, and
 * the background jobs run again (a webhook is delivered).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import pg from 'pg'
import { startEmbedded, stopEmbedded } from '../../src/store/embedded.js'
import { api, dataDir, demoKey, startTill, stopTill, type Till } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'
import { until } from '../helpers/wait.js'

/** An answer must come within this: the pool gives up connecting after 5 s. */
const ANSWER_WITHIN_MS = 7_000
const quiet = { info() {}, warn() {} }

interface Answer {
  what: 'checkout' | 'read' | 'refund'
  status: number
  body: string
  ms: number
  id?: string
}

/** Four clients until stopped, each in turn creating a session, reading one back and refunding 1 unit of a paid record; every answer is kept. */
function traffic(till: Till, key: string, recordId: string) {
  const answers: Answer[] = []
  let stopped = false
  const send = async (what: Answer['what'], method: string, path: string, body?: unknown) => {
    const started = performance.now()
    try {
      const res = await fetch(till.base + path, {
        method, signal: AbortSignal.timeout(ANSWER_WITHIN_MS * 2), body: body === undefined ? undefined : JSON.stringify(body),
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      })
      const text = await res.text()
      const id = res.status !== 200 ? undefined : what === 'refund' ? JSON.parse(text).refund.id : JSON.parse(text).id
      answers.push({ what, status: res.status, body: text, ms: performance.now() - started, id })
    } catch (e) {
      answers.push({ what, status: 0, body: String(e), ms: performance.now() - started })
    }
    // While the database is down every answer is immediate: pace the loop so it does not spin.
    if (answers.at(-1)!.status !== 200) await new Promise((r) => setTimeout(r, 20))
  }
  const client = async () => {
    while (!stopped) {
      await send('checkout', 'POST', '/api/v1/checkout', { amount: 500, currency: 'EUR' })
      const known = answers.filter((a) => a.what === 'checkout' && a.id).at(-1)
      if (known) await send('read', 'GET', `/api/v1/sessions/${known.id}`)
      await send('refund', 'POST', '/api/v1/refunds', { recordId, amount: 1 })
    }
  }
  const done = Promise.all(Array.from({ length: 4 }, client))
  return {
    answers,
    count: (status: number) => answers.filter((a) => a.status === status).length,
    async stop() {
      stopped = true
      await done
    },
  }
}

test('PostgreSQL stopped and started under load: 503 with a JSON error meanwhile, recovery without a restart, nothing acknowledged lost', async (t) => {
  const pgDir = mkdtempSync(path.join(os.tmpdir(), 'till-pgfault-'))
  t.after(async () => {
    await stopEmbedded(pgDir).catch(() => {})
    rmSync(pgDir, { recursive: true, force: true })
  })
  const c = (await startEmbedded(pgDir, quiet)).connection
  const url = `postgresql://${c.user}:${encodeURIComponent(String(c.password))}@localhost/${c.database}?host=${encodeURIComponent(String(c.host))}&port=${c.port}`
  const rx = await startReceiver(t)
  const till = await startTill(dataDir(t), { DATABASE_URL: url, SECRETS_KEY: 'cd'.repeat(32), RATE_LIMIT_PER_SECOND: '100000' })
  const key = await demoKey(till)
  assert.equal((await api(till, 'POST', '/api/v1/webhook_endpoints', key, { url: rx.url })).status, 201)

  // When the service itself fails, its own account of why is the useful part of the report.
  t.after(() => {
    if (till.child.exitCode !== null && till.child.exitCode !== 0) t.diagnostic(`till exited ${till.child.exitCode}:\n${till.stderr().slice(-3000)}\n${till.stdout().slice(-3000)}`)
  })
  const big = await api(till, 'POST', '/api/v1/checkout', key, { amount: 99_999_999, currency: 'EUR' })
  const paid = await api(till, 'POST', `/api/v1/test_helpers/sessions/${big.body.id}/pay`, key, {})
  const load = traffic(till, key, paid.body.record.id)
  t.after(() => load.stop()) // a failing assertion must not leave the clients looping
  await until('20 sessions acknowledged', 20_000, () => load.count(200) >= 20)
  await stopEmbedded(pgDir, 'immediate')
  const stoppedAt = load.answers.length

  // Not ready, and every request refused the same way, quickly.
  await until('/readyz reports not ready', 10_000, async () => (await fetch(`${till.base}/readyz`)).status === 503)
  const ready = await fetch(`${till.base}/readyz`)
  assert.deepEqual([ready.status, await ready.json()], [503, { status: 'unavailable', error: 'database unreachable' }])
  await until('30 requests refused while PostgreSQL is down', 20_000, () => load.count(503) >= 30)
  assert.ok(load.answers.slice(stoppedAt).some((a) => a.what === 'refund' && a.status === 503), 'refunds refused too')
  const read = await api(till, 'GET', '/api/v1/sessions/sess_000000000000000000000000', key)
  assert.deepEqual([read.status, read.body], [503, { error: 'service unavailable', code: 'service_unavailable' }])
  assert.equal((await fetch(`${till.base}/healthz`)).status, 200, 'the process itself is up')

  await startEmbedded(pgDir, quiet)
  await until('/readyz reports ready again', 20_000, async () => (await fetch(`${till.base}/readyz`)).status === 200)
  const recovered = load.count(200)
  await until('20 more sessions acknowledged after recovery', 20_000, () => load.count(200) >= recovered + 20)
  await load.stop()

  const outage = load.answers.slice(stoppedAt)
  t.diagnostic(`answers: ${load.answers.length} (200: ${load.count(200)}, 503: ${load.count(503)}); slowest while down ${Math.round(Math.max(...outage.filter((a) => a.status !== 200).map((a) => a.ms)))} ms`)
  const unexpected = load.answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.body === '{"error":"service unavailable","code":"service_unavailable"}'))
    .map((a) => ({ what: a.what, status: a.status, body: a.body.slice(0, 200) }))
  if (unexpected.length) t.diagnostic(till.stdout().split('\n').filter((l) => l.includes('"level":50')).slice(0, 3).join('\n'))
  assert.deepEqual(unexpected, [], 'only 200, or 503 with the JSON error')
  assert.deepEqual(load.answers.filter((a) => a.ms > ANSWER_WITHIN_MS).map((a) => [a.status, Math.round(a.ms)]), [], `an answer took longer than ${ANSWER_WITHIN_MS} ms`)

  // Every session and refund the service acknowledged survived the crash; a refund cut off between
  // its reservation and the provider's answer is left pending, for reconciliation, never lost.
  const acked = (what: Answer['what']) => load.answers.filter((a) => a.what === what && a.status === 200).map((a) => a.id!)
  const client = new pg.Client(c)
  await client.connect()
  const sessions = await client.query('select count(*)::int as n from sessions where id = any($1)', [acked('checkout')])
  const refunds = await client.query(`select status, count(*)::int as n from refunds where id = any($1) group by status`, [acked('refund')])
  const record = await client.query('select refunded_amount from records where id = $1', [paid.body.record.id])
  const succeeded = await client.query(`select coalesce(sum(amount), 0)::int as n from refunds where record_id = $1 and status = 'succeeded'`, [paid.body.record.id])
  await client.end()
  assert.equal(sessions.rows[0].n, acked('checkout').length)
  assert.deepEqual(refunds.rows, [{ status: 'succeeded', n: acked('refund').length }])
  assert.equal(record.rows[0].refunded_amount, succeeded.rows[0].n)
  assert.ok(acked('read').length > 0 && acked('refund').length > 0)

  // The background work is back too: a payment made now reaches the webhook endpoint.
  const s = await api(till, 'POST', '/api/v1/checkout', key, { amount: 700, currency: 'EUR' })
  assert.equal((await api(till, 'POST', `/api/v1/test_helpers/sessions/${s.body.id}/pay`, key, {})).status, 200)
  await until('the payment.succeeded webhook', 15_000, () => rx.requests.some((r) => r.json?.data?.sessionId === s.body.id))
  assert.deepEqual(await stopTill(till), { code: 0, signal: null }, till.stderr())
})
