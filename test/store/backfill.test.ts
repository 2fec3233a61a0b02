/** A backfill (src/store/backfill.ts) in batches: each one committed on its own, with its progress in the log, while writes go on. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { runBackfill } from '../../src/store/backfill.js'
import { freshDatabase, openTestPool } from '../helpers/db.js'
import { until, within } from '../helpers/wait.js'

test('a backfill runs in batches, logs its progress, and writes to the rows it has not reached yet go on meanwhile', async (t) => {
  const db = await freshDatabase({ migrated: false })
  const { pool, close } = openTestPool(db.url, 2)
  const writer = new pg.Client({ connectionString: db.directUrl })
  await writer.connect()
  t.after(async () => {
    await writer.end()
    await close()
    await db.drop()
  })
  await pool.query('create table items (id serial primary key, a integer not null, b integer)')
  await pool.query('insert into items (a) select g from generate_series(1, 2500) g')

  // The batch that reaches row 2500 (the third) waits until the writer's update has landed, so the
  // update is certainly to a row not reached yet, however slowly this machine runs either side.
  let wrote!: () => void
  const written = new Promise<void>((resolve) => (wrote = resolve))
  let batches = 0
  const gated = { query: async (text: string, values: unknown[]) => (++batches === 3 && (await written), pool.query(text, values)) } as unknown as pg.Pool

  const lines: string[] = []
  const running = runBackfill(gated, {
    name: 'items.b',
    batch: 'update items set b = a * 2 where id in (select id from items where b is null order by id limit $1 for update skip locked)',
    size: 1000,
    pauseMs: 200,
  }, { info: (m) => lines.push(m) })
  await until('the first batch committed', 30_000, () => lines.length > 0)
  // A row the backfill has not reached: updated at once, not after the whole backfill.
  await writer.query("set statement_timeout = '10s'")
  await writer.query('update items set a = 0 where id = 2500')
  wrote()

  assert.equal(await within(60_000, running, 'the backfill'), 2500)
  assert.deepEqual(lines.map((l) => l.replace(/ \(.*\)$/, '')), [
    'backfill items.b: 1000 rows so far', 'backfill items.b: 2000 rows so far', 'backfill items.b: 2500 rows so far', 'backfill items.b: done, 2500 rows',
  ])
  assert.equal((await pool.query('select count(*)::int as n from items where b is null or b <> a * 2')).rows[0].n, 0)
})
