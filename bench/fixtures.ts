/**
 * Bench data made in bulk with generate_series (a million sessions in seconds, not an hour of API
 * calls): open sessions to read, and paid records to refund. Ids have Till's shape (prefix and 24
 * characters) and are random, so the primary-key index sees the same scatter as real ids.
 */
import type pg from 'pg'

const rid = (prefix: string, seed: string) => `'${prefix}_' || substr(md5(random()::text || ${seed}), 1, 24)`

/** Adds `n` pending test-mode sessions of the merchant, expiring in a day (no sweep touches them). */
export async function addSessions(pool: pg.Pool, merchantId: string, n: number) {
  const batch = 200_000
  for (let done = 0; done < n; done += batch) {
    await pool.query(
      `insert into sessions (id, merchant_id, mode, status, amount, currency, metadata, chosen_provider, expires_at, created_at, updated_at)
       select ${rid('sess', 'g::text')}, $1, 'test', 'pending', 1000 + g % 9000, 'CNY', jsonb_build_object('order', 'B-' || g), 'mock',
              now() + interval '1 day', now(), now()
       from generate_series(1, $2::int) g`,
      [merchantId, Math.min(batch, n - done)],
    )
  }
  await pool.query('vacuum analyze sessions')
}

/** `count` ids of the merchant's pending sessions, spread over the whole table. */
export async function sampleSessionIds(pool: pg.Pool, merchantId: string, count: number): Promise<string[]> {
  const { rows } = await pool.query(`select id from sessions where merchant_id = $1 and status = 'pending' order by random() limit $2`, [merchantId, count])
  return rows.map((r) => r.id as string)
}

/**
 * `n` paid sessions with their records, each of the largest amount (99,999,999): a refund of 1 unit
 * each request never runs out, and spreading requests over many records means they rarely wait on
 * one another's row lock.
 */
export async function addPaidRecords(pool: pg.Pool, merchantId: string, n: number): Promise<string[]> {
  const { rows } = await pool.query(
    `with s as (
       insert into sessions (id, merchant_id, mode, status, amount, currency, metadata, chosen_provider, expires_at, created_at, updated_at)
       select ${rid('sess', 'g::text')}, $1, 'test', 'paid', 99999999, 'CNY', jsonb_build_object('order', 'R-' || g), 'mock',
              now() + interval '1 day', now(), now()
       from generate_series(1, $2::int) g
       returning id
     )
     insert into records (id, session_id, merchant_id, mode, provider, provider_ref, provider_data, amount, refunded_amount, currency, status, paid_at, created_at)
     select ${rid('rec', 's.id')}, s.id, $1, 'test', 'mock', 'mock_pay_' || substr(md5(s.id), 1, 24), '{"refundBehavior":"succeed"}',
            99999999, 0, 'CNY', 'paid', now(), now()
     from s
     returning id`,
    [merchantId, n],
  )
  await pool.query('analyze sessions; analyze records; analyze refunds')
  return rows.map((r) => r.id as string)
}
