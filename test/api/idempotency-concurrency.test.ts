/**
 * Idempotency-Key under real concurrency and crashes (issue #18): twenty requests with one key at
 * once over HTTP make one session or one refund, and every other answer is the exact 409 or a
 * byte-identical replay; the work interrupted between its phases leaves nothing a retry repeats.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import pg from 'pg'
import { clientConfig } from '../../src/store/db.js'
import type { RefundState } from '../../src/providers/types.js'
import { paidSession, startTestApp, type Api, type TestApp } from '../helpers/app.js'
import { eventsWhere, recordRow, refundRows } from '../helpers/store-queries.js'
import { until, within } from '../helpers/wait.js'

const IN_FLIGHT = { error: 'a request with this idempotency key is still in progress', code: 'idempotency_in_flight' }

const post = (ta: TestApp, path: string, body: unknown, key: string) =>
  ta.request('POST', path, { key: ta.merchant.testKey, body, headers: { 'idempotency-key': key } })

async function keyRow(ta: TestApp, key: string) {
  const { rows } = await ta.database.pool.query('select * from idempotency_keys where merchant_id = $1 and key = $2', [ta.merchant.id, key])
  return rows[0] as Record<string, any> | undefined
}

const count = async (ta: TestApp, table: 'sessions' | 'refunds') =>
  (await ta.database.pool.query(`select count(*)::int as n from ${table} where merchant_id = $1`, [ta.merchant.id])).rows[0].n as number

/** One answer did the work; every other is the exact 409 or that answer replayed byte for byte. */
function oneDidTheWork(answers: Api[]) {
  const original = answers.filter((a) => a.headers.get('idempotent-replayed') === null && a.status !== 409)
  assert.equal(original.length, 1, `one answer did the work: ${answers.map((a) => a.status).join(', ')}`)
  const [first] = original
  assert.equal(first.status, 200)
  for (const a of answers) {
    if (a === first) continue
    if (a.status === 409) assert.deepEqual(a.body, IN_FLIGHT)
    else {
      assert.equal(a.status, 200)
      assert.equal(a.headers.get('idempotent-replayed'), 'true')
      assert.equal(a.text, first.text)
    }
  }
  return first
}

/** The mock provider's refund, counted; `hold` keeps each call waiting until `release`. */
function countRefundCalls(ta: TestApp, t: TestContext, hold = false) {
  const mock = ta.deps.providers.get('mock')!
  const original = mock.refund
  const state = { calls: 0, release: () => {}, reached: Promise.resolve() }
  const released = new Promise<void>((r) => (state.release = r))
  let reached!: () => void
  state.reached = new Promise<void>((r) => (reached = r))
  mock.refund = async (...args): Promise<RefundState> => {
    state.calls++
    reached()
    if (hold) await released
    return original.apply(mock, args)
  }
  t.after(() => {
    mock.refund = original
  })
  return state
}

test('20 checkouts at once with one key make one session; the others answer 409 or replay it byte for byte', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 1000, currency: 'CNY', metadata: { order: 'o-20' } }
  const answers = await Promise.all(Array.from({ length: 20 }, () => post(ta, '/api/v1/checkout', body, 'order-o-20')))
  const first = oneDidTheWork(answers)
  assert.equal(await count(ta, 'sessions'), 1)
  const { rows } = await ta.database.pool.query('select id from sessions where merchant_id = $1', [ta.merchant.id])
  assert.equal(rows[0].id, first.body.id)
})

test('20 refunds at once with one key make one refund and call the provider once; the others answer 409 or replay it', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const provider = countRefundCalls(ta, t)
  const body = { recordId: paid.record.id, amount: 300 }
  const answers = await Promise.all(Array.from({ length: 20 }, () => post(ta, '/api/v1/refunds', body, 'refund-20')))
  const first = oneDidTheWork(answers)
  const refunds = await refundRows(ta, paid.record.id)
  assert.equal(refunds.length, 1)
  assert.equal(refunds[0].id, first.body.refund.id)
  assert.equal(provider.calls, 1)
  assert.equal((await recordRow(ta, paid.record.id)).refunded_amount, 300)
  assert.equal((await eventsWhere(ta, 'refundId', refunds[0].id)).length, 1)
})

test('a checkout whose database session dies mid-work leaves no key and no session: the retry does it once', async (t) => {
  const ta = await startTestApp(t)
  const pool = ta.database.pool
  // Every session insert waits on an advisory lock the test holds: the work stops half-way.
  await pool.query(`create function hold_checkout() returns trigger language plpgsql as $$ begin perform pg_advisory_xact_lock(4242); return new; end $$;
    create trigger hold_checkout before insert on sessions for each row execute function hold_checkout()`)
  const body = { amount: 1000, currency: 'CNY' }
  // A session lock, so on a connection of its own (a transaction pooler would lend its server to the checkout).
  const holder = new pg.Client(clientConfig(pool))
  await holder.connect()
  try {
    await holder.query('select pg_advisory_lock(4242)')
    const first = post(ta, '/api/v1/checkout', body, 'crash-1')
    let pid = 0
    await until('the checkout waiting inside its insert', 30_000, async () => {
      const { rows } = await pool.query("select pid from pg_locks where locktype = 'advisory' and not granted")
      pid = rows[0]?.pid ?? 0
      return pid !== 0
    })
    assert.equal(await keyRow(ta, 'crash-1'), undefined, 'nothing of the key is committed while the work runs')
    // The work's connection dies (as with a crash of the process, nothing after this point runs for it).
    await pool.query('select pg_terminate_backend($1)', [pid])
    const died = await within(30_000, first, 'the interrupted checkout answering')
    assert.ok(died.status >= 500, `a server error: ${died.status}`)
  } finally {
    // Closed (its lock with it) before the test ends: the pool's end waits for it.
    await holder.end()
  }
  await pool.query('drop trigger hold_checkout on sessions')
  assert.equal(await keyRow(ta, 'crash-1'), undefined)
  assert.equal(await count(ta, 'sessions'), 0)

  const retry = await post(ta, '/api/v1/checkout', body, 'crash-1')
  assert.equal(retry.status, 200)
  assert.equal(retry.headers.get('idempotent-replayed'), null)
  const replay = await post(ta, '/api/v1/checkout', body, 'crash-1')
  assert.equal(replay.text, retry.text)
  assert.equal(await count(ta, 'sessions'), 1)
})

test('a refund whose process dies during the provider call: 409 within the lease, then its state, never a second provider call', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const provider = countRefundCalls(ta, t, true)
  const body = { recordId: paid.record.id, amount: 300 }
  // The first request reserves and reaches the provider, then never comes back (its process died).
  const first = post(ta, '/api/v1/refunds', body, 'refund-crash')
  await within(30_000, provider.reached, 'the refund reaching the provider')
  const claimed = await keyRow(ta, 'refund-crash')
  assert.equal(claimed!.response_status, null, 'the key is claimed in flight with the reservation')

  const early = await post(ta, '/api/v1/refunds', body, 'refund-crash')
  assert.equal(early.status, 409)
  assert.deepEqual(early.body, IN_FLIGHT)

  ta.clock.advance(61_000) // the first request's lease lapses
  const retry = await post(ta, '/api/v1/refunds', body, 'refund-crash')
  assert.equal(retry.status, 200)
  assert.equal(retry.headers.get('idempotent-replayed'), null)
  const [refund] = await refundRows(ta, paid.record.id)
  assert.equal(retry.body.refund.id, refund.id)
  assert.equal(retry.body.refund.status, 'pending', 'left to reconciliation, which asks the provider by the same refund id')
  assert.equal(retry.body.status, 'refunding')
  assert.equal(provider.calls, 1)
  const replay = await post(ta, '/api/v1/refunds', body, 'refund-crash')
  assert.equal(replay.text, retry.text)
  assert.equal((await refundRows(ta, paid.record.id)).length, 1)
  assert.equal(provider.calls, 1)
  // Let the stuck call end, so the server can close.
  provider.release()
  await first
})

test('a refund that fails after its reservation (a 5xx) is not remembered: the retry answers that refund without calling the provider again', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const provider = countRefundCalls(ta, t)
  const pool = ta.database.pool
  // The settlement's write fails once the provider has answered.
  await pool.query(`create function break_settle() returns trigger language plpgsql as $$ begin raise exception 'injected'; end $$;
    create trigger break_settle before update on refunds for each row execute function break_settle()`)
  const body = { recordId: paid.record.id, amount: 300 }
  const broken = await post(ta, '/api/v1/refunds', body, 'refund-5xx')
  assert.equal(broken.status, 500)
  assert.equal(broken.body.code, 'internal_error')
  assert.equal(await keyRow(ta, 'refund-5xx'), undefined, 'a 5xx releases the key')
  const [reserved] = await refundRows(ta, paid.record.id)
  assert.equal(reserved.status, 'pending')
  assert.equal(provider.calls, 1)
  await pool.query('drop trigger break_settle on refunds')

  const retry = await post(ta, '/api/v1/refunds', body, 'refund-5xx')
  assert.equal(retry.status, 200)
  assert.equal(retry.headers.get('idempotent-replayed'), null)
  assert.equal(retry.body.refund.id, reserved.id)
  assert.equal(provider.calls, 1, 'the reservation already reached the provider: never twice')
  const replay = await post(ta, '/api/v1/refunds', body, 'refund-5xx')
  assert.equal(replay.headers.get('idempotent-replayed'), 'true')
  assert.equal(replay.text, retry.text)
  assert.equal((await refundRows(ta, paid.record.id)).length, 1)
})
