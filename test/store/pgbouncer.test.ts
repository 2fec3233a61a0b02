/**
 * Behind PgBouncer in transaction-pooling mode (docs/operate.md, "Behind PgBouncer"), as the
 * PostgreSQL 15 stage of scripts/test.sh runs the storage, API, webhook and relay suites: their
 * connections really go through the pooler, what needs a session (LISTEN, the migration lock) goes
 * straight to PostgreSQL, and statements prepared by name break there while Till's unnamed ones hold.
 * Without a pooler in the run (TEST_PGBOUNCER_ADMIN_URL unset) there is nothing to check.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { MIGRATION_LOCK, openPool, runMigrations } from '../../src/store/db.js'
import { getSessionUnscoped } from '../../src/store/repos/sessions.js'
import { startTestApp } from '../helpers/app.js'
import { freshDatabase, openTestPool, poolConfig, testPoolOptions } from '../helpers/db.js'
import { until } from '../helpers/wait.js'

const ADMIN = process.env.TEST_PGBOUNCER_ADMIN_URL
const skip = ADMIN ? false : 'no PgBouncer in this run (TEST_PGBOUNCER_ADMIN_URL)'

/** A SHOW command on PgBouncer's admin console (simple protocol only). */
async function show(what: 'clients' | 'pools' | 'servers'): Promise<Record<string, unknown>[]> {
  const admin = new pg.Client({ connectionString: ADMIN })
  await admin.connect()
  try {
    return (await admin.query(`show ${what}`)).rows
  } finally {
    await admin.end()
  }
}

const nameOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1))

test('the app\'s pool goes through PgBouncer in transaction mode; its LISTEN connection goes straight to PostgreSQL', { skip }, async (t) => {
  const ta = await startTestApp(t)
  const database = nameOf(ta.databaseUrl)
  const [pool] = (await show('pools')).filter((p) => p.database === database)
  assert.ok(pool, `PgBouncer has a pool for ${database}: the app's queries went through it`)
  assert.equal(pool.pool_mode, 'transaction')
  assert.ok((await show('clients')).some((c) => c.database === database), 'the app\'s connections are PgBouncer\'s clients')

  await ta.deps.signals.subscribe('sess_PGBOUNCERPGBOUNCERPGBOUN')
  const { rows } = await ta.database.pool.query("select count(*)::int as n from pg_stat_activity where application_name = 'till-session-signals' and datname = current_database()")
  assert.equal(rows[0].n, 1, 'PostgreSQL sees the LISTEN connection')
  assert.ok(!(await show('clients')).some((c) => c.application_name === 'till-session-signals'), 'PgBouncer does not carry it')
})

test('a statement prepared by name is lost when PgBouncer moves the client to another server connection; unnamed, it runs', { skip }, async (t) => {
  // A database of its own, so that PgBouncer's server connections to it are exactly the ones made here.
  const db = await freshDatabase()
  t.after(() => db.drop())
  const run = async (statements: 'named' | 'unnamed') => {
    const till = openPool(poolConfig(db.url), 1, { statements })
    const other = new pg.Client(poolConfig(db.url))
    await other.connect()
    try {
      await getSessionUnscoped(till.db, 'sess_X') // prepared on server connection S1, then S1 goes back to PgBouncer
      await other.query('begin')
      await other.query('select 1') // the other client's transaction now holds S1
      return await getSessionUnscoped(till.db, 'sess_X') // so this runs on a new server connection
    } finally {
      await other.query('rollback').catch(() => {})
      await other.end()
      await till.close()
    }
  }
  // PostgreSQL's 26000: "prepared statement … does not exist" (pg's error as it is: the session read is plain SQL).
  await assert.rejects(run('named'), (e: { code?: string }) => e.code === '26000')
  assert.equal(await run('unnamed'), null)
})

test('migrations wait for their session lock on a direct connection to PostgreSQL, not on one of PgBouncer\'s', { skip }, async (t) => {
  const db = await freshDatabase({ migrated: false })
  t.after(() => db.drop())
  // Another instance migrating: it holds the lock, so this one asks for it again and again where it was sent.
  const other = new pg.Client(testPoolOptions(db.url).direct as pg.ClientConfig)
  other.on('error', () => {}) // dropping the database ends it
  await other.connect()
  t.after(() => other.end())
  await other.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
  const till = openTestPool(db.url, 2)
  t.after(() => till.close())
  await till.pool.query('select 1') // PgBouncer now has a server connection to this database
  const migrating = runMigrations(till.pool)

  let waiter = 0
  await until('the migrations ask for the lock', 30_000, async () => {
    const { rows } = await other.query("select pid from pg_stat_activity where datname = current_database() and application_name = 'till-migrations' and query ilike '%pg_try_advisory_lock%'")
    waiter = rows[0]?.pid ?? 0
    return waiter !== 0
  })
  const servers = (await show('servers')).map((s) => Number(s.remote_pid))
  assert.ok(servers.length > 0, 'PgBouncer has server connections to compare with')
  assert.ok(!servers.includes(waiter), `the waiting backend ${waiter} is not one of PgBouncer's (${servers.join(', ')})`)

  await other.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK])
  await migrating
  assert.equal((await till.pool.query('select count(*)::int as n from merchants')).rows[0].n, 0, 'migrated')
})
