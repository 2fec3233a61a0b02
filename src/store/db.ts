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
 * Settings for a connection of its own (a LISTEN), made like the pool's. pg.Pool keeps the password
 * non-enumerable, so a spread of its options drops it: it is copied by name.
 */
export function clientConfig(pool: pg.Pool, extra: pg.ClientConfig = {}): pg.ClientConfig {
  return { ...pool.options, password: pool.options.password, ...extra }
}

export function openPool(connection: pg.PoolConfig | string, max = 10): Database {
  const config = typeof connection === 'string' ? { connectionString: connection } : connection
  const pool = new pg.Pool({ ...config, max, connectionTimeoutMillis: 5000 })
  // An idle client losing its server (PostgreSQL restarting) must not crash the process.
  pool.on('error', () => {})
  // Nor one checked out for a transaction, which has no listener from the pool then: its queries fail
  // (the request answers 503) and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = drizzle(pool, { schema })
  return { pool, db, close: () => pool.end() }
}

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')
const MIGRATION_LOCK = 7_411_001 // arbitrary, Till's own advisory lock id

/** Applies pending migrations once, even when several instances start together. */
export async function runMigrations(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK])
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS })
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {})
    client.release()
  }
}
