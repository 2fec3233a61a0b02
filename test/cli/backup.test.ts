/**
 * `till backup` while Till runs under a merchant's load, then `till restore` and a new start: every
 * write acknowledged before the backup began is there, with its money state; a write made after the
 * backup is not (the database really came from the file); what DATA_DIR held was kept aside.
 */
import assert from 'node:assert/strict'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { Load } from '../failover/load.js'
import { till } from '../helpers/cli.js'
import { api, dataDir, demoKey, startTill, stopTill } from '../helpers/process.js'
import { until } from '../helpers/wait.js'

test('a backup taken under load and restored holds every write acknowledged before it began', { timeout: 240_000 }, async (t) => {
  const dir = dataDir(t)
  const file = path.join(dir, '..', `${path.basename(dir)}-backup.tar`)
  t.after(() => rmSync(file, { force: true }))
  const env = { RATE_LIMIT_PER_SECOND: '100000' }
  const first = await startTill(dir, env)
  const key = await demoKey(first)
  const load = new Load([first], key)
  load.start(3, 'b')
  await until('writes under way', 60_000, () => load.acked().length >= 30)

  const backupAt = performance.now()
  const backup = await till(['backup', '--out', file], { env: { DATA_DIR: dir } })
  assert.equal(backup.code, 0, backup.stderr)
  assert.match(backup.stdout, /while it ran/)
  const acknowledged = load.answers.filter((a) => a.status === 200 && a.endedAt < backupAt)
  const backupEnd = performance.now()
  await until('writes after the backup', 60_000, () => load.answers.some((a) => a.status === 200 && a.startedAt > backupEnd))
  await load.stop()
  const later = await api(first, 'POST', '/api/v1/checkout', key, { amount: 4321, currency: 'CNY' })
  assert.equal(later.status, 200)
  await stopTill(first)

  const restore = await till(['restore', file], { env: { DATA_DIR: dir } })
  assert.equal(restore.code, 0, restore.stderr)
  assert.ok(readdirSync(dir).some((f) => f.startsWith('before-restore-') && existsSync(path.join(dir, f, 'pg', 'PG_VERSION'))), 'the database that was there is kept')
  const second = await startTill(dir, env)

  const missing: string[] = []
  for (const a of acknowledged) {
    if (a.kind === 'checkout' && (await api(second, 'GET', `/api/v1/sessions/${a.body.id}`, key)).status !== 200) missing.push(`session ${a.body.id}`)
    if (a.kind === 'pay') {
      const record = await api(second, 'GET', `/api/v1/records/${a.body.record.id}`, key)
      // Its refunds acknowledged before the backup count in refundedAmount (later ones may too).
      const refunded = acknowledged.filter((r) => r.kind === 'refund' && r.body.id === a.body.record.id).reduce((sum, r) => sum + r.body.refund.amount, 0)
      if (record.status !== 200 || record.body.amount !== a.body.record.amount || record.body.refundedAmount < refunded) missing.push(`payment ${a.body.record.id}`)
    }
    if (a.kind === 'refund') {
      const refund = await api(second, 'GET', `/api/v1/refunds/${a.body.refund.id}`, key)
      if (refund.status !== 200 || refund.body.status !== a.body.refund.status || refund.body.amount !== a.body.refund.amount) missing.push(`refund ${a.body.refund.id}`)
    }
  }
  assert.deepEqual(missing, [], `of ${acknowledged.length} writes acknowledged before the backup`)
  assert.ok(acknowledged.filter((a) => a.kind === 'refund').length > 0)
  assert.equal((await api(second, 'GET', `/api/v1/sessions/${later.body.id}`, key)).status, 404, 'a checkout made after the backup is not in it')
})

test('restore refuses while Till runs, and refuses a file that is not a backup, changing nothing; a stopped Till is backed up as it is', { timeout: 180_000 }, async (t) => {
  const dir = dataDir(t)
  const running = await startTill(dir)
  const refused = await till(['restore', path.join(dir, 'pg', 'PG_VERSION')], { env: { DATA_DIR: dir } })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /not a till backup/)
  const file = path.join(dir, 'b.tar')
  assert.equal((await till(['backup', '--out', file], { env: { DATA_DIR: dir } })).code, 0)
  const busy = await till(['restore', file], { env: { DATA_DIR: dir } })
  assert.equal(busy.code, 1)
  assert.match(busy.stderr, /stop Till first/)
  assert.equal((await fetch(`${running.base}/readyz`)).status, 200)
  assert.ok(!readdirSync(dir).some((f) => f.startsWith('before-restore-')))

  const key = await demoKey(running)
  const made = await api(running, 'POST', '/api/v1/checkout', key, { amount: 1234, currency: 'CNY' })
  await stopTill(running)
  const cold = path.join(dir, 'cold.tar')
  const offline = await till(['backup', '--out', cold], { env: { DATA_DIR: dir } })
  assert.equal(offline.code, 0, offline.stderr)
  assert.match(offline.stdout, /\(stopped\)/)
  assert.equal((await till(['restore', cold], { env: { DATA_DIR: dir } })).code, 0)
  const again = await startTill(dir)
  assert.equal((await api(again, 'GET', `/api/v1/sessions/${made.body.id}`, key)).body.amount, 1234)
})
