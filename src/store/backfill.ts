/**
 * Rewriting existing rows (a backfill) in batches, each its own short transaction, with a pause
 * between them: row locks are held for one batch only, and the pause lets writes and replication
 * keep up. Progress goes to the log. A backfill runs from the release that needs it, after its
 * migrations (docs/operate.md, "Upgrades": expand, migrate, contract), never inside a migration.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'

export interface Backfill {
  name: string
  /**
   * One batch: a statement that changes at most $1 rows, the ones still to do, so that running it
   * again goes on where it stopped, e.g.
   * `update t set b = a where id in (select id from t where b is null limit $1 for update skip locked)`.
   */
  batch: string
  /** Rows per batch. */
  size?: number
  /** The pause between batches. */
  pauseMs?: number
}

/** Runs `backfill` until a batch changes fewer rows than its size; how many rows it changed. */
export async function runBackfill(pool: pg.Pool, backfill: Backfill, log: { info(msg: string): void }): Promise<number> {
  const size = backfill.size ?? 1000
  const started = performance.now()
  let done = 0
  for (let batches = 1; ; batches++) {
    const { rowCount } = await pool.query(backfill.batch, [size])
    done += rowCount ?? 0
    log.info(`backfill ${backfill.name}: ${done} rows so far (${batches} batches, ${Math.round(performance.now() - started)} ms)`)
    if ((rowCount ?? 0) < size) break
    await sleep(backfill.pauseMs ?? 100)
  }
  log.info(`backfill ${backfill.name}: done, ${done} rows`)
  return done
}
