/** Fixed-window request counters in PostgreSQL, shared by every instance on the database. */
import { lt } from 'drizzle-orm'
import type { Db, Executor } from '../db.js'
import { rawStatement } from '../prepared.js'
import { rateLimitCounters } from '../schema.js'

/**
 * Looks a live key up and claims `$3` tokens from its counter for the window starting at `$2`, in
 * one statement (security/rate-limit.ts spends them). Keyed by the key's id, never the secret.
 * The commit does not wait for the WAL flush (synchronous_commit off for this statement's
 * transaction only): a counter lost in a crash costs nothing. Prepared once per connection (store/prepared.ts).
 */
const findAndClaim = rawStatement<{ id: string; merchant_id: string; mode: 'test' | 'live'; count: number }>('api_key_claim', `with k as (
      select id, merchant_id, mode from api_keys where key_hash = $1 and revoked_at is null
    ), used as (
      -- "Last used" in the console, written at most once a minute per key.
      update api_keys set last_used_at = now() from k
      where api_keys.id = k.id and (api_keys.last_used_at is null or api_keys.last_used_at < now() - interval '1 minute')
    ), counted as (
      insert into rate_limit_counters (key, window_start, count)
      select k.id, $2, $3 from k, (select set_config('synchronous_commit', 'off', true)) async_commit
      on conflict (key, window_start) do update set count = rate_limit_counters.count + excluded.count
      returning count
    )
    select k.id, k.merchant_id, k.mode, counted.count from k, counted`)

export interface ClaimedKey {
  keyId: string
  merchantId: string
  mode: 'test' | 'live'
  /** The key's counter in the window after this claim. */
  count: number
}

/** The live key with this hash, `tokens` claimed in the window starting at `windowStart` (ms); null for no such key. */
export async function findKeyClaiming(db: Db, keyHash: string, windowStart: number, tokens: number): Promise<ClaimedKey | null> {
  const { rows } = await findAndClaim(db, [keyHash, windowStart, tokens])
  const r = rows[0]
  return r ? { keyId: r.id, merchantId: r.merchant_id, mode: r.mode, count: r.count } : null
}

/** Drops the windows that started before `before` (ms since the epoch); returns how many rows went. */
export async function purgeWindows(tx: Executor, before: number): Promise<number> {
  const res = await tx.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStart, before))
  return res.rowCount ?? 0
}

const claimCounter = rawStatement<{ count: number }>('rate_limit_claim', `insert into rate_limit_counters (key, window_start, count)
    select $1, $2, 1 from (select set_config('synchronous_commit', 'off', true)) async_commit
    on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
    returning count`)

/** One more use of `key` in the window starting at `windowStart` (ms); the count after it. Not a key's: a payment link's buyer address. */
export async function countUse(db: Db, key: string, windowStart: number): Promise<number> {
  const { rows } = await claimCounter(db, [key, windowStart])
  return rows[0].count
}
