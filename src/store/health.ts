/**
 * Whether the database can serve Till now (/readyz): reachable, and taking writes. `select 1` is not
 * enough: a standby, or a primary demoted during a failover that a proxy still routes to, answers
 * reads and refuses every write (SQLSTATE 25006).
 */
import type pg from 'pg'

export type DatabaseState = 'ready' | 'unreachable' | 'read-only'

/** A load balancer's health check must be answered well within its own timeout. */
export const READY_TIMEOUT_MS = 2000

const CHECK = `select pg_is_in_recovery() as recovery, current_setting('transaction_read_only') = 'on' as read_only`

/** Asks through the pool, as requests would; an answer not there within `timeoutMs` counts as unreachable. */
export async function databaseState(pool: pg.Pool, timeoutMs = READY_TIMEOUT_MS): Promise<DatabaseState> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'unreachable'>((resolve) => (timer = setTimeout(() => resolve('unreachable'), timeoutMs)))
  // The query ends by itself later (its own timeout, the pool's connection timeout); only its answer is dropped.
  const asked = pool.query<{ recovery: boolean; read_only: boolean }>({ text: CHECK, query_timeout: timeoutMs } as pg.QueryConfig)
    .then(({ rows: [r] }): DatabaseState => (r.recovery || r.read_only ? 'read-only' : 'ready'), (): DatabaseState => 'unreachable')
  try {
    return await Promise.race([asked, late])
  } finally {
    clearTimeout(timer)
  }
}
