/** Waiting in tests: for a condition that other processes bring about, or for a promise with a bound. */

/** Polls `check` until it holds; fails naming `what` after `ms`. For state other processes change. */
export async function until(what: string, ms: number, check: () => Promise<boolean> | boolean, everyMs = 50): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

/** `p`, or a failure naming `what` if it has not settled after `ms`. A bound against hanging, not a latency assertion. */
export function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms).unref()),
  ])
}

/** Backends of the pool's database waiting on a lock: a change held where the test wants it. */
export const lockWaiters = async (pool: { query(q: string): Promise<{ rows: { n: number }[] }> }) => (await pool.query(
  `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).rows[0].n
