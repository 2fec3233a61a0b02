/**
 * SIGKILL in the middle of traffic, then a restart: the real service (a child process on a fresh
 * database of the test server), six clients creating, paying and refunding sessions as fast as it
 * answers, killed once 30 payments were acknowledged. After the restart: every session answered
 * 200 exists, every paid session has exactly one record, every state change has exactly one event,
 * and the webhook worker delivers every event (a delivery in flight at the kill waits out its 60 s
 * lease, so this test takes up to about a minute and a half).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { freshDatabase } from '../helpers/db.js'
import { api, dataDir, demoKey, startTill, stopTill, type Till } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'

const SECRETS_KEY = 'ab'.repeat(32)

interface Acknowledged {
  created: Set<string>
  paid: Map<string, string> // session → record
  refunds: Map<string, string> // refund → status answered
}

/** Six clients in a loop: create, pay, refund 100 of 1000. Returns once the service stops answering. */
function traffic(till: Till, key: string, ack: Acknowledged, onPaid: () => void) {
  let stopped = false
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(till.base + path, {
      method, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    })
    return { status: res.status, body: await res.json() }
  }
  const client = async () => {
    while (!stopped) {
      try {
        const created = await call('POST', '/api/v1/checkout', { amount: 1000, currency: 'CNY', metadata: { order: 'kill' } })
        if (created.status !== 200) continue
        ack.created.add(created.body.id)
        const paid = await call('POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, {})
        if (paid.status !== 200) continue
        assert.equal(paid.body.status, 'paid')
        ack.paid.set(created.body.id, paid.body.record.id)
        onPaid()
        const refund = await call('POST', '/api/v1/refunds', { recordId: paid.body.record.id, amount: 100 })
        if (refund.status === 200) ack.refunds.set(refund.body.refund.id, refund.body.refund.status)
      } catch {
        stopped = true // the process is gone: connection refused or reset
      }
    }
  }
  return Promise.all(Array.from({ length: 6 }, client))
}

test('SIGKILL under load, then restart: nothing acknowledged is lost, each change has one event, every event is delivered', async (t) => {
  const db = await freshDatabase()
  t.after(() => db.drop())
  const dir = dataDir(t)
  const rx = await startReceiver(t)
  const env = { DATABASE_URL: db.url, SECRETS_KEY, RATE_LIMIT_PER_SECOND: '100000' }
  const first = await startTill(dir, env)
  const key = await demoKey(first)
  assert.equal((await api(first, 'POST', '/api/v1/webhook_endpoints', key, { url: rx.url })).status, 201)

  const ack: Acknowledged = { created: new Set(), paid: new Map(), refunds: new Map() }
  let kill: () => void = () => {}
  const enough = new Promise<void>((resolve) => (kill = resolve))
  const load = traffic(first, key, ack, () => ack.paid.size >= 30 && kill())
  await enough
  assert.equal((await stopTill(first, 'SIGKILL')).signal, 'SIGKILL')
  await load
  t.diagnostic(`acknowledged before the kill: ${ack.created.size} sessions, ${ack.paid.size} payments, ${ack.refunds.size} refunds`)

  const second = await startTill(dir, env)
  const client = new pg.Client({ connectionString: db.url })
  client.on('error', () => {}) // the database is dropped under it when the test ends
  await client.connect()
  t.after(() => client.end().catch(() => {}))
  const q = async (text: string, params: unknown[] = []) => (await client.query(text, params)).rows

  // Every session answered 200 exists; every acknowledged payment has its one record, and no session has two.
  const created = [...ack.created]
  assert.equal((await q('select count(*)::int as n from sessions where id = any($1)', [created]))[0].n, created.length)
  const paidRows = await q(`select s.id, s.status, array_agg(r.id) as records from sessions s join records r on r.session_id = s.id where s.id = any($1) group by s.id, s.status`, [[...ack.paid.keys()]])
  assert.deepEqual(paidRows.map((r) => [r.id, r.status, r.records]).sort(), [...ack.paid].map(([s, rec]) => [s, 'paid', [rec]]).sort())
  assert.deepEqual(await q(`select session_id from records group by session_id having count(*) > 1`), [])
  // Refunds answered 200 are stored as answered; the one the kill interrupted may be left pending for reconciliation.
  const refundRows = await q('select id, status from refunds')
  for (const [id, status] of ack.refunds) assert.equal(refundRows.find((r) => r.id === id)?.status, status, id)

  // Every state change has exactly one event: a payment per record, a refund.succeeded per settled refund, nothing else.
  const records = await q(`select r.id, r.session_id from records r`)
  const events = await q(`select id, type, data->>'sessionId' as session, data->>'refundId' as refund from events`)
  const paymentEvents = events.filter((e) => e.type === 'payment.succeeded').map((e) => e.session).sort()
  assert.deepEqual(paymentEvents, records.map((r) => r.session_id).sort())
  const refundEvents = events.filter((e) => e.type.startsWith('refund.')).map((e) => [e.type, e.refund]).sort()
  assert.deepEqual(refundEvents, refundRows.filter((r) => r.status === 'succeeded').map((r) => ['refund.succeeded', r.id]).sort())
  assert.equal(events.length, paymentEvents.length + refundEvents.length, JSON.stringify(events.map((e) => e.type)))

  // Every event reaches the merchant (at least once: a delivery the kill interrupted is sent again).
  const want = new Set(events.map((e) => e.id))
  const deadline = Date.now() + 80_000
  const seen = () => new Set(rx.requests.map((r) => String(r.headers['x-service-event-id'])))
  while ([...want].some((id) => !seen().has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  assert.deepEqual([...want].filter((id) => !seen().has(id)), [], 'events never delivered')
  t.diagnostic(`${want.size} events delivered, ${rx.requests.length} deliveries in all`)

  assert.deepEqual(await stopTill(second), { code: 0, signal: null }, second.stderr())
})
