/** Fixed-window request counters in PostgreSQL, shared by every instance on the database. */
import { lt } from 'drizzle-orm'
import type { Db, Executor } from '../db.js'
import { rateLimitCounters } from '../schema.js'

/**
 * The key lookup every API request makes, with the request counted in the key's window in the same
 * statement: rate limiting costs no extra round trip. Only a live key is counted (keyed by its id,
 * never by the secret). The commit does not wait for the WAL flush (synchronous_commit off for this
 * statement's transaction only): a counter lost in a crash costs nothing, while waiting would queue
 * every request of a key behind the row lock of the previous one's flush. Prepared once per connection.
 */
const FIND_AND_COUNT = {
  name: 'till_api_key_counted',
  text: `with k as (
      select id, merchant_id, mode from api_keys where key_hash = $1 and revoked_at is null
    ), counted as (
      insert into rate_limit_counters (key, window_start, count)
      select k.id, $2, 1 from k, (select set_config('synchronous_commit', 'off', true)) async_commit
      on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
      returning count
    )
    select k.id, k.merchant_id, k.mode, counted.count from k, counted`,
}

export interface CountedKey {
  keyId: string
  merchantId: string
  mode: 'test' | 'live'
  /** Requests of this key in the window so far, this one included. */
  count: number
}

/** The live key with this hash, its request counted in the window starting at `windowStart` (ms); null for no such key. */
export async function findKeyCounting(db: Db, keyHash: string, windowStart: number): Promise<CountedKey | null> {
  const { rows } = await db.$client.query<{ id: string; merchant_id: string; mode: 'test' | 'live'; count: number }>({
    ...FIND_AND_COUNT,
    values: [keyHash, windowStart],
  })
  const r = rows[0]
  return r ? { keyId: r.id, merchantId: r.merchant_id, mode: r.mode, count: r.count } : null
}

/** Drops the windows that started before `before` (ms since the epoch); returns how many rows went. */
export async function purgeWindows(tx: Executor, before: number): Promise<number> {
  const res = await tx.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStart, before))
  return res.rowCount ?? 0
}
