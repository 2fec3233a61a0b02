/**
 * SIGKILL in the middle of traffic, then a restart: the real service (a child process on a fresh
 * database of the test server), six clients creating, paying and refunding sessions as fast as it
 * answers, killed once 30 payments were acknowledged. Every answer is recorded: before the kill each
 * must be a 200, and the only failure allowed is a connection error once the kill was sent. After
 * the restart: every session answered 200 exists, every paid session has exactly one record, every
 * record's refunded amount is the sum of its succeeded refunds and never more than the payment,
 * reconciliation leaves no refund pending, every state change has exactly one event, and the
 * webhook worker delivers every event. The delivery lease is 2 s here (TILL_DELIVERY_LEASE_MS), so
 * a delivery the kill interrupted is taken over at once rather than after 60 s.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { loadConfig } from '../../src/config.js'
import { createDeps } from '../../src/deps.js'
import { recordStatus } from '../../src/domain/refund-math.js'
import { drainDue, reconcileRefunds } from '../../src/jobs/reconcile.js'
import { freshDatabase, openTestPool, tillDatabaseEnv } from '../helpers/db.js'
import { api, dataDir, demoKey, startTill, stopTill, type Till } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'
import { until, within } from '../helpers/wait.js'

const SECRETS_KEY = 'ab'.repeat(32)
const silent = { info() {}, warn() {}, error() {} }

interface Acknowledged {
  created: Set<string>
  paid: Map<string, string> // session → record
  refunds: Map<string, string> // refund → status answered
}

/** What one request got: an HTTP answer, or an error thrown by fetch (`killed`: after SIGKILL was sent). */
type Answer = { op: string; status: number; body: unknown } | { op: string; error: unknown; killed: boolean }

/** The errors of a connection the dead process refused or cut: the only failures allowed, and only after the kill. */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])
const connectionError = (e: unknown) => e instanceof TypeError && CONNECTION_ERRORS.has(String((e as { cause?: { code?: unknown } }).cause?.code))

/**
 * Six clients in a loop: create, pay, refund 100 of 1000. Every answer goes into `answers`. A client
 * stops at a connection error after the kill; anything else (a non-200, a body that is not JSON, a
 * connection error before the kill) rejects, and the other clients stop too.
 */
function traffic(till: Till, key: string, ack: Acknowledged, answers: Answer[], state: { killed: boolean }, onPaid: () => void) {
  let stop = false
  const call = async (op: string, path: string, body: unknown): Promise<any> => {
    let status: number
    let text: string
    try {
      const res = await fetch(till.base + path, {
        method: 'POST', body: JSON.stringify(body),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      })
      status = res.status
      text = await res.text()
    } catch (error) {
      answers.push({ op, error, killed: state.killed })
      if (state.killed && connectionError(error)) return null
      throw new Error(`${op}: ${state.killed ? 'not a connection error' : 'failed before the kill'}: ${error} (${(error as { cause?: unknown }).cause})`)
    }
    const parsed: unknown = JSON.parse(text)
    answers.push({ op, status, body: parsed })
    assert.ok(status < 500, `${op} answered ${status} ${text}`)
    assert.equal(status, 200, `${op} answered ${status} ${text}`)
    return parsed
  }
  const client = async () => {
    try {
      while (!stop) {
        const created = await call('checkout', '/api/v1/checkout', { amount: 1000, currency: 'CNY', metadata: { order: 'kill' } })
        if (!created) break
        ack.created.add(created.id)
        const paid = await call('pay', `/api/v1/test_helpers/sessions/${created.id}/pay`, {})
        if (!paid) break
        assert.equal(paid.status, 'paid')
        ack.paid.set(created.id, paid.record.id)
        onPaid()
        const refund = await call('refund', '/api/v1/refunds', { recordId: paid.record.id, amount: 100 })
        if (!refund) break
        ack.refunds.set(refund.refund.id, refund.refund.status)
      }
    } finally {
      stop = true // the process is gone, or this client failed: the others stop too
    }
  }
  return Promise.all(Array.from({ length: 6 }, client))
}

test('SIGKILL under load, then restart: nothing acknowledged is lost, refunds add up and settle, each change has one event, every event is delivered', async (t) => {
  const db = await freshDatabase()
  t.after(() => db.drop())
  const dir = dataDir(t)
  const rx = await startReceiver(t)
  const env = { ...tillDatabaseEnv(db), SECRETS_KEY, RATE_LIMIT_PER_SECOND: '100000', TILL_DELIVERY_LEASE_MS: '2000' }
  const first = await startTill(dir, env)
  const key = await demoKey(first)
  assert.equal((await api(first, 'POST', '/api/v1/webhook_endpoints', key, { url: rx.url })).status, 201)

  const ack: Acknowledged = { created: new Set(), paid: new Map(), refunds: new Map() }
  const answers: Answer[] = []
  const state = { killed: false }
  let enough: () => void = () => {}
  const paidEnough = new Promise<void>((resolve) => (enough = resolve))
  const load = traffic(first, key, ack, answers, state, () => ack.paid.size >= 30 && enough())
  // A client that fails before the kill fails the test now, not at its timeout.
  const early = load.then(() => {
    if (!state.killed) assert.fail('the clients stopped before the kill')
  })
  early.catch(() => {}) // a failure after the kill is reported by `within` below
  await Promise.race([paidEnough, early])
  state.killed = true
  assert.equal((await stopTill(first, 'SIGKILL')).signal, 'SIGKILL')
  await within(60_000, load, 'every client stopping once the process is gone')
  const tally = answers.reduce<Record<string, number>>((acc, a) => {
    const k = 'status' in a ? String(a.status) : String((a.error as { cause?: { code?: string } }).cause?.code)
    return { ...acc, [k]: (acc[k] ?? 0) + 1 }
  }, {})
  t.diagnostic(`answers: ${JSON.stringify(tally)}; acknowledged before the kill: ${ack.created.size} sessions, ${ack.paid.size} payments, ${ack.refunds.size} refunds`)
  assert.ok(answers.every((a) => ('status' in a ? a.status === 200 : a.killed && connectionError(a.error))), JSON.stringify(tally))

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
  for (const [id, status] of ack.refunds) assert.equal((await q('select status from refunds where id = $1', [id]))[0]?.status, status, id)

  /** Each record: its refunded amount is the sum of its succeeded refunds, never more than paid, and its status says so. */
  const assertRecordsAddUp = async () => {
    const rows = await q(`
      select r.id, r.amount, r.refunded_amount, r.status,
        coalesce(sum(f.amount) filter (where f.status = 'succeeded'), 0)::int as succeeded,
        count(f.id) filter (where f.status = 'pending')::int as pending
      from records r left join refunds f on f.record_id = r.id group by r.id`)
    for (const r of rows) {
      assert.equal(r.refunded_amount, r.succeeded, `${r.id}: refunded amount against its succeeded refunds`)
      assert.ok(r.refunded_amount <= r.amount, `${r.id}: refunded ${r.refunded_amount} of ${r.amount}`)
      assert.equal(r.status, recordStatus(r.amount, r.refunded_amount, r.pending > 0), r.id)
    }
    return rows
  }
  await assertRecordsAddUp()

  // Reconciliation, driven here rather than waited for: the pending refunds' next check has come.
  const database = openTestPool(db.url, 2)
  t.after(() => database.close())
  const deps = createDeps(loadConfig({}), database.db, Buffer.from(SECRETS_KEY, 'hex'), silent)
  t.after(() => deps.signals.close())
  const pendingBefore = (await q(`update refunds set next_check_at = now() where status = 'pending' returning id`)).length
  await drainDue((n) => reconcileRefunds(deps, n))
  t.diagnostic(`${pendingBefore} refunds pending after the restart, settled by reconciliation`)
  assert.deepEqual(await q(`select id from refunds where status = 'pending'`), [], 'no refund is pending once reconciliation has run')
  const records = await assertRecordsAddUp()
  assert.deepEqual(records.filter((r) => r.status === 'refunding'), [])

  // Every state change has exactly one event: a payment per record, a refund.succeeded per settled refund, nothing else.
  const refundRows = await q('select id, status from refunds')
  const events = await q(`select id, type, data->>'sessionId' as session, data->>'refundId' as refund from events`)
  const paymentEvents = events.filter((e) => e.type === 'payment.succeeded').map((e) => e.session).sort()
  assert.deepEqual(paymentEvents, (await q('select session_id from records')).map((r) => r.session_id).sort())
  const refundEvents = events.filter((e) => e.type.startsWith('refund.')).map((e) => [e.type, e.refund]).sort()
  assert.deepEqual(refundEvents, refundRows.filter((r) => r.status === 'succeeded').map((r) => ['refund.succeeded', r.id]).sort())
  assert.equal(events.length, paymentEvents.length + refundEvents.length, JSON.stringify(events.map((e) => e.type)))

  // Every event reaches the merchant (at least once: a delivery the kill interrupted is sent again once its lease lapses).
  const seen = () => new Set(rx.requests.map((r) => String(r.headers['x-service-event-id'])))
  const missing = () => events.map((e) => e.id).filter((id) => !seen().has(id))
  await until('every event delivered', 60_000, () => missing().length === 0)
  t.diagnostic(`${events.length} events delivered, ${rx.requests.length} deliveries in all`)

  assert.deepEqual(await stopTill(second), { code: 0, signal: null }, second.stderr())
})
