/** The activity log's retention: the hourly purge job drops entries past ACTIVITY_RETENTION_DAYS (400 by default), in batches; 0 keeps them all. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { JOBS } from '../../src/jobs/runner.js'
import { startTestApp, type TestApp } from '../helpers/app.js'

const DAY_MS = 86_400_000

/** `n` entries of the test merchant created at `at`. */
async function entriesAt(ta: TestApp, at: Date, n: number, action: string) {
  await ta.database.pool.query(`insert into console_activity (merchant_id, actor, action, created_at)
    select $1, 'a@example.com', $2, $3 from generate_series(1, $4)`, [ta.merchant.id, action, at, n])
}
const count = async (ta: TestApp, action: string) =>
  (await ta.database.pool.query('select count(*)::int as n from console_activity where action = $1', [action])).rows[0].n as number

test('the activity purge drops what is older than 400 days (more than one batch of it) and keeps the rest', async (t) => {
  const ta = await startTestApp(t)
  assert.equal(ta.deps.config.activityRetentionDays, 400)
  const now = ta.clock().getTime()
  await entriesAt(ta, new Date(now - 400 * DAY_MS - 1000), 12_001, 'sign_in')
  await entriesAt(ta, new Date(now - 400 * DAY_MS + 1000), 3, 'key_created')
  const before = await count(ta, 'merchant_created')
  const purge = JOBS.find((j) => j.name === 'activity-purge')!.start(ta.deps)
  assert.equal(await purge.run(), 12_001)
  assert.equal(await count(ta, 'sign_in'), 0, 'past 400 days')
  assert.equal(await count(ta, 'key_created'), 3, 'within 400 days')
  assert.equal(await count(ta, 'merchant_created'), before, 'today\'s')
  ta.clock.advance(2000)
  assert.equal(await purge.run(), 3, 'a second later, those are past it too')
})

test('ACTIVITY_RETENTION_DAYS=0 keeps every entry; a bad value stops the start', async (t) => {
  const ta = await startTestApp(t, { activityRetentionDays: 0 })
  await entriesAt(ta, new Date(ta.clock().getTime() - 5000 * DAY_MS), 2, 'sign_in')
  assert.equal(await JOBS.find((j) => j.name === 'activity-purge')!.start(ta.deps).run(), 0)
  assert.equal(await count(ta, 'sign_in'), 2)
  assert.equal(loadConfig({ ACTIVITY_RETENTION_DAYS: '30' }).activityRetentionDays, 30)
  assert.throws(() => loadConfig({ ACTIVITY_RETENTION_DAYS: '-1' }), /ACTIVITY_RETENTION_DAYS must be a whole number of days from 0 to 36500, got -1/)
  assert.throws(() => loadConfig({ ACTIVITY_RETENTION_DAYS: '1.5' }), /ACTIVITY_RETENTION_DAYS/)
})
