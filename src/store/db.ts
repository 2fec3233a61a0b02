import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { tracedQuery, tracingOn } from '../tracing/db.js'
import { applyMigrations, type MigrateOptions } from './migrate.js'

/**
 * The pool stays reachable (`$client`) for what Drizzle does not do: LISTEN on a dedicated connection.
 * No schema is given to Drizzle: its relational queries (`db.query.…`), unused here, would be built
 * anew for every table on every transaction.
 */
export type Db = NodePgDatabase & { $client: pg.Pool }
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
  /** QUERY_TIMEOUT_MS unless given; 0: none (a bulk load). */
  queryTimeoutMs?: number
}

/** How long Till waits for a connection: from the pool, and a new one's handshake. */
export const CONNECT_TIMEOUT_MS = 5000
/**
 * How long a query may go unanswered before its connection is given up: a server frozen (SIGSTOP)
 * or cut off without a reset never answers, and a request waiting on it must end in a 503 rather
 * than hang. Client-side, so it holds behind a pooler, which does not pass a startup
 * statement_timeout through; generous, so a slow but live server is not cut.
 */
export const QUERY_TIMEOUT_MS = 10_000
/**
 * Work that is long by nature (a statement's day: its lines written 2,000 at a time, its pairs read
 * through a cursor) gets this many times its pool's bound for each query of its transaction
 * (`boundForLongWork`): a busy database may take longer than a request should wait, and such work
 * must not be cut for it. Still a bound, so a frozen server ends it too.
 */
export const LONG_WORK_TIMEOUTS = 12
/** A connection that only waits (LISTEN) asks this often whether its server still answers as a primary. */
export const HEARTBEAT_MS = 5000
const HEARTBEAT_TIMEOUT_MS = 3000
/** Idle connections probe their peer after this long (TCP keepalive), so a dead one is dropped, not reused. */
const KEEPALIVE_DELAY_MS = 10_000

/** A DbClient's settings: pg's, and how long a query may go unanswered (QUERY_TIMEOUT_MS unless given; 0: no limit). */
export interface DbClientConfig extends pg.ClientConfig {
  queryTimeoutMs?: number
}

/**
 * pg's client, made safe for a database that fails over:
 * - a query unanswered for `queryTimeoutMs` ends its connection (every query on it fails, the pool
 *   drops it): pg would leave a timed-out query in flight, so the next one (the transaction's
 *   ROLLBACK) would wait behind it on a server that may never answer. One timer per connection
 *   looks at the query in flight, not pg's `query_timeout`, which arms one for every query: with
 *   it, a GET under load left 1.4 KB to the old generation instead of 0.4, and young collections
 *   paused it twice as long (docs/benchmarks.md, p99 at a fixed rate);
 * - checked out of the pool, a connection that dies is given back (as broken) at once, and a later
 *   release is a no-op: Drizzle's transaction takes a connection and runs BEGIN outside its
 *   try/finally, so a connection lost just then would otherwise never return to the pool, and
 *   after a few such losses the pool would be empty for good;
 * - `heartbeat()` keeps a connection that only waits (LISTEN) honest.
 */
export class DbClient extends pg.Client {
  private give?: (err?: Error | boolean) => void
  private readonly limit: number
  /** The bound now: `limit`, or longer while lent to long work (boundForLongWork). */
  private bound: number

  constructor(config: DbClientConfig = {}) {
    super(config)
    if (typeof (this as unknown as InFlight)._getActiveQuery !== 'function') throw new Error('pg client has no _getActiveQuery: store/db.ts needs updating')
    this.limit = this.bound = config.queryTimeoutMs ?? QUERY_TIMEOUT_MS
    if (this.limit > 0) this.once('connect', () => this.watch())
    this.on('error', (err) => this.release(err))
  }

  // A span per statement when tracing is on (tracing/db.ts); otherwise pg's query as it is.
  override query(...args: any[]): any {
    return tracingOn() ? tracedQuery(args, (a) => super.query(...(a as [any]))) : super.query(...(args as [any]))
  }

  /** Every tenth of the limit, the query in flight: one seen in flight for the bound (at most two tenths of the limit more) ends the connection. */
  private watch() {
    let seen: unknown = null
    let since = 0
    const timer = setInterval(() => {
      const active = (this as unknown as InFlight)._getActiveQuery()
      const now = performance.now()
      if (!active || active !== seen) {
        seen = active
        since = now
      } else if (now - since >= this.bound) this.drop()
    }, this.limit / 10)
    timer.unref()
    this.once('end', () => clearInterval(timer))
  }

  // pg-pool lends a client by setting `release` on it, and takes it back when that is called.
  set release(fn: (err?: Error | boolean) => void) {
    this.give = fn
  }

  get release(): (err?: Error | boolean) => void {
    return (err) => {
      const give = this.give
      this.give = undefined
      this.bound = this.limit
      give?.(err)
    }
  }

  /** Until released, each query may go unanswered LONG_WORK_TIMEOUTS times the limit. */
  forLongWork() {
    this.bound = this.limit * LONG_WORK_TIMEOUTS
  }

  /** Ends the connection at once, without waiting on the server (which may be frozen). */
  drop() {
    (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy()
  }

  /**
   * Asks every HEARTBEAT_MS whether the server is there and a primary; a server that froze, was cut
   * off or became a standby ends the connection (its 'end' event), so its owner reconnects.
   */
  heartbeat(everyMs = HEARTBEAT_MS) {
    const timer = setInterval(() => {
      this.query({ text: 'select pg_is_in_recovery() as standby', query_timeout: HEARTBEAT_TIMEOUT_MS } as pg.QueryConfig)
        .then(({ rows }: pg.QueryResult) => rows[0]?.standby && this.drop(), () => this.drop())
    }, everyMs)
    timer.unref()
    this.once('end', () => clearInterval(timer))
  }
}

/** pg's own accessor for the query it is waiting on (its `activeQuery` getter logs a deprecation). */
interface InFlight {
  _getActiveQuery(): unknown
}

/**
 * Gives the transaction's queries the longer bound of long work (LONG_WORK_TIMEOUTS), until its
 * connection goes back to the pool. Drizzle keeps the connection as the transaction's session client.
 */
export function boundForLongWork(tx: Tx) {
  const session = (tx as unknown as { session?: { client?: unknown } }).session
  if (!session?.client) throw new Error('a transaction without its connection: store/db.ts needs updating')
  // A pool of plain pg clients has no bound to lengthen.
  if (session.client instanceof DbClient) session.client.forLongWork()
}

/** Whether `err` (or its cause) is a connection lost or given up (the bound above): the work may be tried again. */
export function isConnectionLost(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; cause?: unknown } | null
  if (typeof e?.code === 'string' && (e.code.startsWith('08') || e.code === '57P01')) return true
  if (typeof e?.message === 'string' && /Connection terminated|is not queryable/.test(e.message)) return true
  return e?.cause ? isConnectionLost(e.cause) : false
}

/** The unique constraint `err` (or its cause) violated, or null: the write did nothing, and the row it would have made is there. */
export function uniqueViolation(err: unknown): string | null {
  const e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | null
  if (e?.code === '23505') return typeof e.constraint === 'string' ? e.constraint : null
  return e?.cause ? uniqueViolation(e.cause) : null
}

const directOf = new WeakMap<pg.Pool, DbClientConfig>()
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
export function clientConfig(pool: pg.Pool, extra: DbClientConfig = {}): DbClientConfig {
  const direct = directOf.get(pool)
  if (direct) return { ...direct, ...extra }
  return { ...pool.options, password: pool.options.password, ...extra }
}

export function openPool(connection: pg.PoolConfig | string, max = 10, options: PoolOptions = {}): Database {
  const config = typeof connection === 'string' ? { connectionString: connection } : connection
  const bounds = { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, queryTimeoutMs: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS }
  // A client losing its server (PostgreSQL restarting) must not crash the process: DbClient listens
  // for its errors, idle (the pool then drops it) or checked out (its queries fail: a 503).
  const pool = new pg.Pool({ ...config, max, ...bounds, Client: DbClient })
  pool.on('error', () => {})
  if (options.direct) {
    const direct = typeof options.direct === 'string' ? { connectionString: options.direct } : options.direct
    directOf.set(pool, { ...bounds, ...direct })
  }
  if (options.statements === 'unnamed') {
    unnamed.add(pool)
    pool.on('connect', (client) => unnamed.add(client))
  }
  const db = drizzle(pool)
  return { pool, db, close: () => pool.end() }
}

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')
export const MIGRATION_LOCK = 7_411_001 // arbitrary, Till's own advisory lock id
/** How often an instance asks for the migration lock while another holds it. */
const LOCK_POLL_MS = 250

/**
 * Applies pending migrations once, even when several instances start together (store/migrate.ts).
 * The lock is a session's, so it is taken on a connection of its own (the direct one behind a
 * pooler). It is asked for with pg_try_advisory_lock, again and again, not waited on: a waiting
 * statement holds a snapshot, and a CREATE INDEX CONCURRENTLY run by the lock's holder waits for
 * every older snapshot to end, so the two would wait on each other.
 */
export async function runMigrations(pool: pg.Pool, options: MigrateOptions & { folder?: string } = {}): Promise<number> {
  // No query timeout: a migration may take long (an index built concurrently on a large table).
  const client = new DbClient(clientConfig(pool, { application_name: 'till-migrations', queryTimeoutMs: 0 }))
  await client.connect()
  try {
    while (!(await client.query('select pg_try_advisory_lock($1) as got', [MIGRATION_LOCK])).rows[0].got) {
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS))
    }
    return await applyMigrations(client, options.folder ?? MIGRATIONS, options)
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {})
    await client.end().catch(() => {})
  }
}
