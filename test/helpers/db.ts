/**
 * A fresh database per test file, cloned from the migrated template that scripts/test.sh made, or
 * empty (`migrated: false`) for tests where Till must migrate it itself. When TEST_DATABASE_URL is
 * a transaction pooler (PgBouncer), TEST_DATABASE_DIRECT_URL names PostgreSQL itself: databases are
 * made and dropped there (a pooler's idle server connection to the template would block the
 * clone), and test pools open with it as their direct connection, as DATABASE_DIRECT_URL does.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openPool, type Database, type PoolOptions } from '../../src/store/db.js'

export function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`')
  return url
}

/** PostgreSQL itself, for what a transaction pooler must not carry. */
export function directAdminUrl(): string {
  return process.env.TEST_DATABASE_DIRECT_URL || adminUrl()
}

/** `url` through the run's pooler, if it has one; `directUrl` to PostgreSQL itself. */
export async function freshDatabase({ migrated = true } = {}): Promise<{ url: string; directUrl: string; drop(): Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: directAdminUrl() })
  await client.connect()
  for (let tries = 0; ; tries++) {
    try {
      await client.query(`create database ${name}${migrated ? ' template till_template' : ''}`)
      break
    } catch (e) {
      // Two files cloning the template at the same instant: PostgreSQL asks the second to wait.
      if ((e as { code?: string }).code !== '55006' || tries > 50) throw e
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100))
    }
  }
  await client.end()
  const url = new URL(adminUrl())
  url.pathname = `/${name}`
  const direct = new URL(directAdminUrl())
  direct.pathname = `/${name}`
  return {
    url: url.toString(),
    directUrl: direct.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: directAdminUrl() })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

/** What a Till process needs for this database: behind the run's pooler, its direct URL too (DATABASE_DIRECT_URL). */
export const tillDatabaseEnv = (db: { url: string; directUrl: string }): Record<string, string> =>
  db.url === db.directUrl ? { DATABASE_URL: db.url } : { DATABASE_URL: db.url, DATABASE_DIRECT_URL: db.directUrl }

/**
 * The connection as separate fields, the way Till opens its embedded database (src/store/embedded.ts),
 * not as a URL: pg.Pool then keeps the password where a spread of its options does not copy it, and
 * every test app runs with that shape.
 */
export function poolConfig(url: string): pg.PoolConfig {
  const u = new URL(url)
  return {
    host: u.searchParams.get('host') ?? u.hostname,
    port: Number(u.searchParams.get('port') ?? u.port) || 5432,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
  }
}

/** Till's pool options for a test database at `url`: behind a pooler, its direct connection and unnamed statements. */
export function testPoolOptions(url: string): PoolOptions {
  if (!process.env.TEST_DATABASE_DIRECT_URL) return {}
  const direct = new URL(directAdminUrl())
  direct.pathname = new URL(url).pathname
  return { direct: poolConfig(direct.toString()), statements: 'unnamed' }
}

/** A pool on a test database, opened as Till opens its own (through the pooler, if the run has one). */
export function openTestPool(url: string, max = 10, queryTimeoutMs?: number): Database {
  return openPool(poolConfig(url), max, { ...testPoolOptions(url), queryTimeoutMs })
}

/**
 * A fresh migrated database and Till's pool on it (straight to PostgreSQL: `direct`, for a session
 * setting a pooler would not keep), both closed and dropped when the test ends.
 */
export async function freshPool(t: { after(fn: () => Promise<void>): void }, size = 1, { direct = false, queryTimeoutMs = undefined as number | undefined } = {}): Promise<Database> {
  const db = await freshDatabase()
  const database = direct ? openPool(db.directUrl, size, { queryTimeoutMs }) : openTestPool(db.url, size)
  t.after(async () => {
    await database.close()
    await db.drop()
  })
  return database
}

/**
 * Counts the statements `pool` sends while `fn` runs, on every connection it lends out (pool.query
 * and transactions alike): how many queries a request costs.
 */
export async function statementsDuring(pool: pg.Pool, fn: () => Promise<unknown>): Promise<number> {
  let n = 0
  let counting = true
  const counted = new WeakSet<pg.PoolClient>()
  const count = (client: pg.PoolClient) => {
    if (counted.has(client)) return
    counted.add(client)
    const query = client.query
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      if (counting) n++
      return (query as (...a: unknown[]) => unknown).apply(this, args)
    } as typeof client.query
  }
  pool.on('acquire', count)
  try {
    await fn()
  } finally {
    counting = false
    pool.off('acquire', count)
  }
  return n
}
