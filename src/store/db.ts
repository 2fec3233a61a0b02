import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import * as schema from './schema.js'

/** The pool stays reachable (`$client`) for what Drizzle does not do: LISTEN on a dedicated connection. */
export type Db = NodePgDatabase<typeof schema> & { $client: pg.Pool }
/** A transaction handle; repositories take one of these (or the pool-backed Db) first. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type Executor = Db | Tx

export interface Database {
  pool: pg.Pool
  db: Db
  close(): Promise<void>
}

// Timestamps and bigints come back as JS values; int8 counts (count(*)) as numbers.
pg.types.setTypeParser(20, (v) => Number(v))

/**
 * Behind a transaction pooler (PgBouncer, pool_mode=transaction) each transaction may run on another
 * server connection, so what lives in a session must not go through it: LISTEN and the migrations'
 * session advisory lock take a connection of their own to `direct` (DATABASE_DIRECT_URL), and
 * statements go unnamed (`statements: 'unnamed'`), since a statement prepared by name on one server
 * connection is unknown to the next. Unnamed ones are parsed with every run; PgBouncer ≥ 1.21 with
 * max_prepared_statements keeps named ones working, and `statements: 'named'` keeps them.
 */
export interface PoolOptions {
  direct?: pg.ClientConfig | string
  statements?: 'named' | 'unnamed'
}

const directOf = new WeakMap<pg.Pool, pg.ClientConfig>()
/** Pools, and the clients they made, that must not name statements. */
const unnamed = new WeakSet<object>()

/** Whether statements run on this pool or pooled client may be prepared by name (store/prepared.ts). */
export function namesStatements(client: pg.Pool | pg.ClientBase): boolean {
  return !unnamed.has(client)
}

/**
 * Settings for a connection of its own (a LISTEN, the migration lock): the direct connection when
 * the pool has one, else made like the pool's. pg.Pool keeps the password non-enumerable, so a
 * spread of its options drops it: it is copied by name.
 */
export function clientConfig(pool: pg.Pool, extra: pg.ClientConfig = {}): pg.ClientConfig {
  const direct = directOf.get(pool)
  if (direct) return { ...direct, ...extra }
  return { ...pool.options, password: pool.options.password, ...extra }
}

export function openPool(connection: pg.PoolConfig | string, max = 10, options: PoolOptions = {}): Database {
  const config = typeof connection === 'string' ? { connectionString: connection } : connection
  const pool = new pg.Pool({ ...config, max, connectionTimeoutMillis: 5000 })
  // An idle client losing its server (PostgreSQL restarting) must not crash the process.
  pool.on('error', () => {})
  // Nor one checked out for a transaction, which has no listener from the pool then: its queries fail
  // (the request answers 503) and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}))
  if (options.direct) {
    const direct = typeof options.direct === 'string' ? { connectionString: options.direct } : options.direct
    directOf.set(pool, { connectionTimeoutMillis: 5000, ...direct })
  }
  if (options.statements === 'unnamed') {
    unnamed.add(pool)
    pool.on('connect', (client) => unnamed.add(client))
  }
  const db = drizzle(pool, { schema })
  return { pool, db, close: () => pool.end() }
}

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')
export const MIGRATION_LOCK = 7_411_001 // arbitrary, Till's own advisory lock id

/**
 * Applies pending migrations once, even when several instances start together. The lock is a
 * session's, so it is taken on a connection of its own (the direct one behind a pooler).
 */
export async function runMigrations(pool: pg.Pool): Promise<void> {
  const client = new pg.Client(clientConfig(pool, { application_name: 'till-migrations' }))
  client.on('error', () => {})
  await client.connect()
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS })
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {})
    await client.end().catch(() => {})
  }
}
