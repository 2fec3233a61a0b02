/**
 * Three Till instances (real processes) started at the same moment on one empty database: the
 * migrations run once and the Demo merchant is made once. Then, with every instance's jobs running,
 * the expiry sweep and refund reconciliation race on all three: each session is expired once and
 * each pending refund settled once, each with exactly one event, and each event reaches the
 * merchant's endpoint exactly once. The relay across instances (LISTEN/NOTIFY) is tested in
 * test/fault/relay-two-instances.test.ts; two workers never attempting one delivery twice in
 * test/webhooks/concurrency.test.ts.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import pg from 'pg'
import { freshDatabase, tillDatabaseEnv } from '../helpers/db.js'
import { api, dataDir, KEY_LINE, ROOT, startTill, stopTill } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'
import { until } from '../helpers/wait.js'

const MIGRATIONS = JSON.parse(readFileSync(`${ROOT}/src/store/migrations/meta/_journal.json`, 'utf8')).entries.length as number

test('three instances on one empty database: migrations once, Demo once, sweeps and reconciliation act once, one event and one delivery each', async (t) => {
  // Empty, not a clone of the migrated template: the instances must migrate it themselves.
  const db = await freshDatabase({ migrated: false })
  t.after(() => db.drop())
  const rx = await startReceiver(t)
  const env = { ...tillDatabaseEnv(db), SECRETS_KEY: 'ef'.repeat(32), RATE_LIMIT_PER_SECOND: '100000' }
  const tills = await Promise.all([0, 1, 2].map(() => startTill(dataDir(t), env)))

  const client = new pg.Client({ connectionString: db.url })
  client.on('error', () => {}) // the database is dropped under it when the test ends
  await client.connect()
  t.after(() => client.end().catch(() => {}))
  const q = async (text: string, params: unknown[] = []) => (await client.query(text, params)).rows

  // Each migration applied once; one instance made Demo and printed its key, the others nothing.
  assert.deepEqual(await q('select count(*)::int as n, count(distinct hash)::int as distinct from drizzle.__drizzle_migrations'), [{ n: MIGRATIONS, distinct: MIGRATIONS }])
  const printed = tills.map((x) => [...x.stdout().matchAll(KEY_LINE)].map((m) => m[1])).flat()
  assert.equal(printed.length, 1, tills.map((x) => x.stdout()).join('\n---\n'))
  assert.deepEqual(await q('select name from merchants'), [{ name: 'Demo' }])
  const key = printed[0]
  assert.equal((await api(tills[0], 'POST', '/api/v1/webhook_endpoints', key, { url: rx.url })).status, 201)

  // Sessions made through all three, then their expiry passes (moved into the past, as time would).
  const sessions: string[] = []
  for (let i = 0; i < 30; i++) {
    const res = await api(tills[i % 3], 'POST', '/api/v1/checkout', key, { amount: 100 + i, currency: 'CNY' })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    sessions.push(res.body.id)
  }
  // And payments whose refunds the provider leaves pending.
  const refunds: string[] = []
  for (let i = 0; i < 9; i++) {
    const s = await api(tills[i % 3], 'POST', '/api/v1/checkout', key, { amount: 1000, currency: 'CNY' })
    const paid = await api(tills[(i + 1) % 3], 'POST', `/api/v1/test_helpers/sessions/${s.body.id}/pay`, key, { refundBehavior: 'pending' })
    const refund = await api(tills[(i + 2) % 3], 'POST', '/api/v1/refunds', key, { recordId: paid.body.record.id, amount: 400 })
    assert.equal(refund.body.refund.status, 'pending', JSON.stringify(refund.body))
    refunds.push(refund.body.refund.id)
  }

  await q(`update sessions set expires_at = now() - interval '1 second' where id = any($1)`, [sessions])
  // The mock provider settles a pending refund asked about 30 s after it was made: make them that old and due.
  await q(`update refunds set created_at = now() - interval '31 seconds', next_check_at = now() where id = any($1)`, [refunds])
  await until('every session expired by the sweeps', 20_000, async () => (await q(`select count(*)::int as n from sessions where id = any($1) and status = 'expired'`, [sessions]))[0].n === 30)
  await until('every refund settled by reconciliation', 30_000, async () => (await q(`select count(*)::int as n from refunds where id = any($1) and status = 'succeeded'`, [refunds]))[0].n === 9)

  const expired = await q(`select data->>'sessionId' as id from events where type = 'session.expired' order by 1`)
  assert.deepEqual(expired.map((e) => e.id), sessions.slice().sort())
  const refundEvents = await q(`select data->>'refundId' as id, array_agg(type order by type) as types from events where type like 'refund.%' group by 1 order by 1`)
  assert.deepEqual(refundEvents, refunds.slice().sort().map((id) => ({ id, types: ['refund.pending', 'refund.succeeded'] })))
  assert.deepEqual(await q(`select type, data->>'sessionId', data->>'refundId' from events group by 1, 2, 3 having count(*) > 1`), [])

  // Every event reaches the endpoint exactly once, whichever instance's worker took it.
  const events = (await q('select id from events')).map((e) => e.id as string)
  await until('every event delivered', 20_000, async () => new Set(rx.requests.map((r) => r.headers['x-service-event-id'])).size >= events.length)
  const deliveredIds = rx.requests.map((r) => String(r.headers['x-service-event-id'])).sort()
  assert.deepEqual(deliveredIds, events.slice().sort())

  for (const x of tills) {
    assert.doesNotMatch(x.stdout(), /"level":50/, 'no errors logged')
    assert.deepEqual(await stopTill(x), { code: 0, signal: null }, x.stderr())
  }
})
