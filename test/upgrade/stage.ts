/**
 * The rolling-upgrade (version skew) stage (scripts/rolling-upgrade.sh; CI=true, or TEST_UPGRADE=1):
 * two instances of the previous release on PostgreSQL 15 under a merchant's mixed load, then the
 * new code started beside them (it applies the new migrations while the old ones serve), and each
 * old instance taken out of rotation, stopped with SIGTERM and replaced by a new one, as
 * docs/operate.md "Upgrades" tells operators to. Measured through the API: every answer a 200 (no
 * 5xx), every acknowledged write there once with its money state, no webhook delivered twice.
 * Run as a test file: `npx tsx --test test/upgrade/stage.ts` (not *.test.ts: the normal suite leaves it out).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import pg from 'pg'
import { Load } from '../failover/load.js'
import { startWebhookSink, type WebhookSink } from '../failover/sink.js'
import { api, demoKey, startTill, stopTill, type Till } from '../helpers/process.js'
import { until } from '../helpers/wait.js'

const ADMIN_URL = process.env.UPGRADE_PG_URL ?? ''
const OLD_ROOT = process.env.UPGRADE_OLD_ROOT ?? ''
const SECRETS_KEY = 'ab'.repeat(32)
const report: string[] = []
const started: Till[] = []
const dirs: string[] = []
let sink: WebhookSink | null = null

after(async () => {
  for (const t of started) if (t.child.exitCode === null && t.child.signalCode === null) await stopTill(t)
  await sink?.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  console.log(`\nrolling upgrade from ${process.env.UPGRADE_OLD_COMMIT?.slice(0, 12)}, measured:\n${report.join('\n')}`)
})

async function database(): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query('drop database if exists till_upgrade with (force)')
  await admin.query('create database till_upgrade')
  await admin.end()
  const url = new URL(ADMIN_URL)
  url.pathname = '/till_upgrade'
  return url.toString()
}

test('previous and new releases side by side, rolled one instance at a time: no 5xx, no lost or doubled write, no webhook twice', { timeout: 600_000 }, async () => {
  assert.ok(ADMIN_URL && OLD_ROOT, 'run through scripts/rolling-upgrade.sh')
  const url = await database()
  const env = { DATABASE_URL: url, SECRETS_KEY, RATE_LIMIT_PER_SECOND: '100000', WEBHOOK_ALLOW_PRIVATE: '1' }
  const start = async (root?: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'till-upgrade-'))
    dirs.push(dir)
    const t = await startTill(dir, env, { root })
    started.push(t)
    return t
  }
  const stageStarted = performance.now()
  const oldA = await start(OLD_ROOT)
  const key = await demoKey(oldA)
  const oldB = await start(OLD_ROOT)
  sink = await startWebhookSink()
  assert.equal((await api(oldA, 'POST', '/api/v1/webhook_endpoints', key, { url: sink.url })).status, 201)

  // The load balancer's rotation: Load sends each request to one of these.
  const rotation: Till[] = [oldA, oldB]
  const load = new Load(rotation, key)
  load.start(4, 'u')
  const writes = async (n: number, what: string) => {
    const from = load.acked().length
    await until(what, 120_000, () => load.acked().length >= from + n, 100)
  }
  await writes(40, 'writes on the previous release')

  const migrateStarted = performance.now()
  const newA = await start()
  report.push(`  new instance started (migrations applied) beside two old ones under load: ${((performance.now() - migrateStarted) / 1000).toFixed(1)} s`)
  rotation[0] = newA // oldA out of rotation, then stopped
  await stopTill(oldA)
  await writes(40, 'writes with one old and one new instance')
  const newB = await start()
  rotation[1] = newB
  await stopTill(oldB)
  await writes(40, 'writes on the new release')
  await load.stop()

  const answers = load.answers
  const bad = answers.filter((a) => a.status !== 200).map((a) => `${a.kind} ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`)
  assert.deepEqual(bad, [], 'every answer a 200')

  // Each Idempotency-Key acknowledged once, and every acknowledged write there as acknowledged.
  const problems: string[] = []
  const refunds = new Map<string, number>()
  for (const a of answers) if (a.kind === 'refund') refunds.set(a.body.id, (refunds.get(a.body.id) ?? 0) + a.body.refund.amount)
  for (const a of answers) {
    if (a.kind === 'checkout' && (await api(newA, 'GET', `/api/v1/sessions/${a.body.id}`, key)).status !== 200) problems.push(`session ${a.body.id} lost`)
    if (a.kind === 'pay') {
      const record = await api(newA, 'GET', `/api/v1/records/${a.body.record.id}`, key)
      if (record.status !== 200 || record.body.refundedAmount !== (refunds.get(a.body.record.id) ?? 0)) {
        problems.push(`payment ${a.body.record.id}: refunded ${record.body?.refundedAmount}, acknowledged ${refunds.get(a.body.record.id) ?? 0}`)
      }
    }
    if (a.kind === 'refund' && (await api(newA, 'GET', `/api/v1/refunds/${a.body.refund.id}`, key)).status !== 200) problems.push(`refund ${a.body.refund.id} lost`)
  }
  assert.deepEqual(problems, [])
  const sessions = await all(newA, key, 'sessions')
  const acknowledged = new Set(answers.filter((a) => a.kind === 'checkout').map((a) => a.body.id))
  assert.equal(sessions.size, acknowledged.size, 'as many sessions as checkouts acknowledged: none doubled')

  const events = await all(newA, key, 'events')
  await until('every event delivered', 120_000, () => [...events].every((id) => sink!.received.has(id)), 250)
  const twice = sink.deliveries.length - new Set(sink.deliveries.map((d) => d.id)).size
  assert.equal(twice, 0, 'no webhook delivered twice')
  assert.deepEqual([...sink.received].filter((id) => !events.has(id)), [], 'nothing delivered that Till does not hold')

  const slowest = Math.max(...answers.map((a) => a.endedAt - a.startedAt))
  report.push(`  writes: ${answers.length}, all answered 200 and all there once (slowest ${Math.round(slowest)} ms); events delivered once each: ${events.size}`)
  report.push(`  stage: ${((performance.now() - stageStarted) / 1000).toFixed(1)} s`)
})

/** Every id of a merchant's list (sessions, events), page by page. */
async function all(t: Till, key: string, list: string): Promise<Set<string>> {
  const ids = new Set<string>()
  let after = ''
  for (;;) {
    const page = await api(t, 'GET', `/api/v1/${list}?limit=100${after ? `&starting_after=${after}` : ''}`, key)
    assert.equal(page.status, 200, JSON.stringify(page.body))
    for (const e of page.body.data) ids.add(e.id)
    if (!page.body.hasMore || page.body.data.length === 0) return ids
    after = page.body.data.at(-1).id
  }
}
