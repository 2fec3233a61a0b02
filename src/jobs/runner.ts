/** Periodic sweeps: expiry, reconciliation, idempotency-key purge. Each is idempotent and safe to run on every instance. */
import { expireDue } from '../services/payments.js'
import type { Deps } from '../services/deps.js'
import { purgeKeys } from '../store/repos/idempotency.js'
import { reconcileAttempts, reconcileRefunds } from './reconcile.js'

export interface Job {
  name: string
  everyMs: number
  run(deps: Deps): Promise<unknown>
}

export const JOBS: Job[] = [
  { name: 'expiry', everyMs: 1000, run: (d) => expireDue(d) },
  { name: 'reconcile-attempts', everyMs: 5000, run: (d) => reconcileAttempts(d) },
  { name: 'reconcile-refunds', everyMs: 5000, run: (d) => reconcileRefunds(d) },
  { name: 'idempotency-purge', everyMs: 3_600_000, run: (d) => purgeKeys(d.db, new Date(d.clock().getTime() - 24 * 3600_000)) },
]

export function startJobs(deps: Deps, jobs: Job[] = JOBS): { stop(): Promise<void> } {
  let stopped = false
  const running = new Set<Promise<unknown>>()
  const timers = jobs.map((job) => {
    const tick = async () => {
      if (stopped) return
      const p = job.run(deps).catch((err) => deps.log.warn({ err, job: job.name }, 'job failed'))
      running.add(p)
      await p
      running.delete(p)
      if (!stopped) timer.ref = setTimeout(tick, job.everyMs)
    }
    const timer = { ref: setTimeout(tick, job.everyMs) }
    return timer
  })
  return {
    async stop() {
      stopped = true
      for (const t of timers) clearTimeout(t.ref)
      await Promise.all(running)
    },
  }
}
