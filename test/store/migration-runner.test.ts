/**
 * The migration runner (src/store/migrate.ts) on migrations of the test's own: an index built
 * CONCURRENTLY while writes go on, a failed concurrent build cleaned up and built again, a plain
 * migration that gives way to writes instead of queueing them behind its lock.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { test, type TestContext } from 'node:test'
import pg from 'pg'
import { isConcurrent } from '../../src/store/migrate.js'
import { runMigrations } from '../../src/store/db.js'
import { freshDatabase, openTestPool } from '../helpers/db.js'
import { until, within } from '../helpers/wait.js'

/** A migrations folder as drizzle-kit writes one, holding `sqls` in order. */
function folder(t: TestContext, sqls: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'till-runner-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(path.join(dir, 'meta'))
  const entries = sqls.map((sql, idx) => {
    const tag = `${String(idx).padStart(4, '0')}_step`
    writeFileSync(path.join(dir, `${tag}.sql`), sql)
    return { idx, version: '7', when: 1_000_000 + idx, tag, breakpoints: true }
  })
  writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify({ version: '7', dialect: 'postgresql', entries }))
  return dir
}

async function database(t: TestContext) {
  const db = await freshDatabase({ migrated: false })
  const till = openTestPool(db.url, 2)
  // Straight to PostgreSQL: the test's own sessions hold transactions open across statements.
  const session = async () => {
    const c = new pg.Client({ connectionString: db.directUrl })
    c.on('error', () => {})
    await c.connect()
    t.after(() => c.end().catch(() => {}))
    return c
  }
  t.after(async () => {
    await till.close()
    await db.drop()
  })
  return { pool: till.pool, session }
}

const TABLE = `CREATE TABLE "items" ("id" serial PRIMARY KEY, "v" integer NOT NULL);
--> statement-breakpoint
INSERT INTO "items" ("v") SELECT g FROM generate_series(1, 1000) g;`

async function index(pool: pg.Pool, name: string) {
  const { rows } = await pool.query('select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = $1', [name])
  return rows[0] ?? null
}
const applied = async (pool: pg.Pool) => (await pool.query('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0].n

function recorder() {
  const lines: string[] = []
  return { lines, log: { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(`warn: ${m}`) } }
}

test('an index built CONCURRENTLY, outside a transaction: writes to its table go on while it waits and builds', async (t) => {
  const { pool, session } = await database(t)
  const dir = folder(t, [TABLE, 'CREATE INDEX CONCURRENTLY "items_v_idx" ON "items" ("v");'])
  // An older snapshot held open: a concurrent build waits for it to end, which keeps the build in
  // progress for as long as the test needs.
  const old = await session()
  await runMigrations(pool, { folder: folder(t, [TABLE]) })
  await old.query('begin isolation level repeatable read')
  await old.query('select count(*) from items')

  const migrating = runMigrations(pool, { folder: dir })
  const watcher = await session()
  await until('the index build is under way', 30_000, async () =>
    (await watcher.query("select 1 from pg_stat_activity where query ilike 'create index concurrently%' and state = 'active'")).rowCount === 1)

  const writer = await session()
  await writer.query("set statement_timeout = '10s'") // a blocked write fails the test rather than hanging it
  for (let i = 0; i < 20; i++) {
    await writer.query('insert into items (v) values ($1)', [5000 + i])
    await writer.query('update items set v = v + 1 where id = $1', [i + 1])
  }
  assert.notDeepEqual(await index(pool, 'items_v_idx'), { valid: true }, 'still building while the writes went through')

  await old.query('commit')
  await within(60_000, migrating, 'the migration to finish')
  assert.deepEqual(await index(pool, 'items_v_idx'), { valid: true })
  assert.equal(await applied(pool), 2)
  assert.equal((await pool.query('select count(*)::int as n from items where v >= 5000')).rows[0].n, 20)
})

test('a concurrent build that fails leaves no INVALID index behind; once the data is fixed, the next start builds it', async (t) => {
  const { pool } = await database(t)
  const dir = folder(t, [TABLE + "\n--> statement-breakpoint\nINSERT INTO \"items\" (\"v\") VALUES (7);", 'CREATE UNIQUE INDEX CONCURRENTLY "items_v_key" ON "items" ("v");'])

  await assert.rejects(runMigrations(pool, { folder: dir }), { code: '23505' })
  assert.equal(await index(pool, 'items_v_key'), null, 'the INVALID index was dropped')
  assert.equal(await applied(pool), 1, 'the failed migration is not recorded')

  await pool.query('delete from items where v = 7 and id > 1000')
  await runMigrations(pool, { folder: dir })
  assert.deepEqual(await index(pool, 'items_v_key'), { valid: true })
  assert.equal(await applied(pool), 2)
})

test('an INVALID index left by a build that died with its process is dropped and built again', async (t) => {
  const { pool, session } = await database(t)
  await runMigrations(pool, { folder: folder(t, [TABLE]) })
  // What a build cut short leaves: an index PostgreSQL marks INVALID (here by a failed build of our own).
  await pool.query('insert into items (v) values (7)')
  const other = await session()
  await assert.rejects(other.query('create unique index concurrently "items_v_key" on items (v)'), { code: '23505' })
  assert.deepEqual(await index(pool, 'items_v_key'), { valid: false })
  await pool.query('delete from items where v = 7 and id > 1000')

  const { lines, log } = recorder()
  await runMigrations(pool, { folder: folder(t, [TABLE, 'CREATE UNIQUE INDEX CONCURRENTLY "items_v_key" ON "items" ("v");']), log })
  assert.deepEqual(await index(pool, 'items_v_key'), { valid: true })
  assert.ok(lines.some((l) => /items_v_key was left INVALID .*dropped and built again/.test(l)), lines.join('\n'))
})

test('a plain migration waiting for a lock gives up after lock_timeout and tries again, so writes are not queued behind it', async (t) => {
  const { pool, session } = await database(t)
  await runMigrations(pool, { folder: folder(t, [TABLE]) })
  const reader = await session()
  await reader.query('begin')
  await reader.query('select count(*) from items') // a long transaction holding its lock on the table

  const { lines, log } = recorder()
  const migrating = runMigrations(pool, { folder: folder(t, [TABLE, 'ALTER TABLE "items" ADD COLUMN "note" text;']), lockTimeoutMs: 200, log })
  await until('the migration gave way once', 30_000, () => lines.some((l) => l.startsWith('warn: migration waited')))
  const writer = await session()
  await writer.query("set statement_timeout = '10s'") // queued behind the ALTER's lock, it would wait until the reader ends
  for (let i = 0; i < 10; i++) await writer.query('insert into items (v) values ($1)', [9000 + i])

  await reader.query('commit')
  await within(60_000, migrating, 'the migration to finish')
  assert.equal((await pool.query("select count(*)::int as n from information_schema.columns where table_name = 'items' and column_name = 'note'")).rows[0].n, 1)
  assert.equal(await applied(pool), 2)
})

test('a migration mixing CONCURRENTLY with other statements is refused before anything runs', async (t) => {
  const { pool } = await database(t)
  assert.equal(isConcurrent(['-- comment only\n', 'CREATE INDEX CONCURRENTLY "a" ON "b" ("c");']), true)
  assert.equal(isConcurrent(['CREATE INDEX "a" ON "b" ("c");']), false)
  await assert.rejects(runMigrations(pool, { folder: folder(t, [TABLE + '\n--> statement-breakpoint\nCREATE INDEX CONCURRENTLY "items_v_idx" ON "items" ("v");']) }),
    /must hold nothing else/)
  assert.equal((await pool.query("select to_regclass('items') as t")).rows[0].t, null)
})
