/**
 * Guess limits shared by every secret a person types into the console (a password, a second-factor
 * code): counters per key (an account, a member, an address) in fixed windows, in the database so
 * that every instance shares them.
 */
import * as repo from '../store/repos/console-sign-in.js'
import type { Deps } from './deps.js'

export const THROTTLE_WINDOW_MS = 15 * 60_000

export type Guess = 'ok' | 'invalid' | 'throttled'

export const windowOf = (now: Date) => now.getTime() - (now.getTime() % THROTTLE_WINDOW_MS)

/**
 * One limited guess. The check is claimed on every key's counter in one statement before it runs, so
 * a burst of parallel requests cannot all read a count under the limit: the claims past a limit are
 * refused unchecked. A wrong guess keeps its claim (that is the failure count); a refused or a right
 * one gives it back, so the limits count failed checks and checks in progress. Keys are passed in
 * the same order everywhere (the narrower first), so two claims never wait on each other in a cycle.
 */
export async function limitedGuess(deps: Deps, limits: { key: string; max: number }[], check: () => Promise<boolean>): Promise<Guess> {
  const window = windowOf(deps.clock())
  const keys = limits.map((l) => l.key)
  const counts = await repo.claimAttempt(deps.db, keys, window)
  if (counts.some((n, i) => n > limits[i].max)) {
    await repo.releaseAttempt(deps.db, keys, window)
    return 'throttled'
  }
  if (!(await check())) return 'invalid'
  await repo.releaseAttempt(deps.db, keys, window)
  return 'ok'
}
