/**
 * Background jobs: periodic idempotent sweeps (expiry, reconciliation, statements, idempotency-key,
 * rate-limit and activity-log purges) and the webhook worker. Each is safe to run on every instance; a
 * job with `wakeOn` also runs as soon as a committed transaction NOTIFYs its channel, which keeps
 * event-to-delivery latency low.
 */
import pg from 'pg'
import { outageLog, type OutageLog } from '../outage-log.js'
import { endedOnStop } from '../providers/exchange.js'
import { expireDue } from '../services/sessions.js'
import type { Deps } from '../services/deps.js'
import { purgeExpiredKeys } from '../services/idempotency.js'
import { purgeOldActivity } from '../services/activity.js'
import { clientConfig, DbClient } from '../store/db.js'
import { WEBHOOK_CHANNEL } from '../store/repos/deliveries.js'
import { purgeWindows } from '../store/repos/rate-limits.js'
import { purgeFailures } from '../store/repos/console-sign-in.js'
import { THROTTLE_WINDOW_MS } from '../services/console-auth.js'
import { MAIL_CHANNEL } from '../store/repos/emails.js'
import { createMailer } from './mail.js'
import { createOutbox } from './outbox.js'
import { drainDue, reconcileAttempts, reconcileRefunds } from './reconcile.js'
import { reconcileDueDays } from './statements.js'

export interface Job {
  name: string
  everyMs: number
  /** A PostgreSQL NOTIFY channel that runs the job at once. */
  wakeOn?: string
  /** Its provider exchanges in flight end when Till stops (a statement download may take minutes). */
  endsOnStop?: boolean
  /** Once per process: the pass to run, and what to wait for on stop (work the pass started but did not await). */
  start(deps: Deps): { run(): Promise<unknown>; stop?(): Promise<void> }
}

const sweep = (name: string, everyMs: number, run: (d: Deps) => Promise<unknown>): Job => ({ name, everyMs, start: (d) => ({ run: () => run(d) }) })

export const JOBS: Job[] = [
  sweep('expiry', 1000, (d) => expireDue(d)),
  sweep('reconcile-attempts', 5000, (d) => drainDue((n) => reconcileAttempts(d, n))),
  sweep('reconcile-refunds', 5000, (d) => drainDue((n) => reconcileRefunds(d, n))),
  // Each provider's statement of each past day, once published (docs/reconciliation.md); a minute is soon enough.
  { ...sweep('reconcile-statements', 60_000, (d) => reconcileDueDays(d)), endsOnStop: true },
  sweep('idempotency-purge', 3_600_000, (d) => purgeExpiredKeys(d)),
  // The activity log keeps ACTIVITY_RETENTION_DAYS (docs/operate.md); an hour late is soon enough.
  sweep('activity-purge', 3_600_000, (d) => purgeOldActivity(d)),
  // Rate-limit windows last a second; a minute's worth is kept, the rest goes.
  sweep('rate-limit-purge', 60_000, (d) => purgeWindows(d.db, d.clock().getTime() - 60_000)),
  // Sign-in counters matter only inside their window; older windows go.
  sweep('sign-in-failure-purge', 60_000, (d) => purgeFailures(d.db, d.clock().getTime() - THROTTLE_WINDOW_MS)),
  {
    // A pass only fills free delivery slots and returns; deliveries finish on their own time.
    name: 'webhooks',
    everyMs: 250,
    wakeOn: WEBHOOK_CHANNEL,
    start: (d) => {
      const outbox = createOutbox(d, { leaseMs: d.config.deliveryLeaseMs })
      return { run: () => outbox.pump(), stop: () => outbox.stop() }
    },
  },
  {
    // Buyers' receipts and refund notices, members' invitations and resets (jobs/mail.ts), on an instance with SMTP_URL; a pass sends until none is due.
    name: 'mail',
    everyMs: 1000,
    wakeOn: MAIL_CHANNEL,
    start: (d) => {
      if (!d.config.smtpUrl) return { run: async () => 0 }
      const mailer = createMailer(d)
      return { run: async () => { while ((await mailer.pump()) > 0); }, stop: () => mailer.stop() }
    },
  },
]

/**
 * A dedicated connection LISTENing on the channels; reconnects after a loss (the timers cover the
 * gap). Its heartbeat notices a server that froze or was cut off, which sends no error of its own.
 */
function listen(deps: Deps, wake: Map<string, () => void>, outage: OutageLog) {
  let client: pg.Client | null = null
  let closed = false
  let retry: NodeJS.Timeout | undefined
  const reconnect = () => {
    if (!closed && !retry) retry = setTimeout(() => {
      retry = undefined
      void connect()
    }, 1000)
  }
  const connect = async () => {
    const c = new DbClient(clientConfig(deps.db.$client, { application_name: 'till-jobs' }))
    c.on('notification', (n) => wake.get(n.channel)?.())
    c.on('end', reconnect)
    try {
      await c.connect()
      for (const channel of wake.keys()) await c.query(`listen ${pg.escapeIdentifier(channel)}`)
      if (closed) await c.end()
      else {
        client = c
        c.heartbeat()
        outage.ok('listener', 'job wake-up listener connected again')
      }
    } catch (err) {
      outage.failed('listener', err, 'job wake-up listener not connected; jobs run on their timers meanwhile')
      c.removeListener('end', reconnect)
      await c.end().catch(() => {})
      reconnect()
    }
  }
  if (wake.size) void connect()
  return async () => {
    closed = true
    clearTimeout(retry)
    await client?.end().catch(() => {})
  }
}

export function startJobs(deps: Deps, jobs: Job[] = JOBS): { stop(): Promise<void> } {
  let stopped = false
  const stopping = new AbortController()
  const running = new Set<Promise<unknown>>()
  const wake = new Map<string, () => void>()
  // Every job fails on every tick while the database is away: a few lines per outage, not one per tick.
  const outage = outageLog(deps.log)
  const started = jobs.map((job) => {
    const instance = job.start(deps)
    const timer: { ref?: NodeJS.Timeout; busy: boolean; again: boolean } = { busy: false, again: false }
    const tick = async () => {
      if (stopped) return
      clearTimeout(timer.ref)
      if (timer.busy) {
        timer.again = true
        return
      }
      timer.busy = true
      const pass = job.endsOnStop ? endedOnStop.run(stopping.signal, () => instance.run()) : instance.run()
      const p = pass.then(() => outage.ok(job.name, `job ${job.name} runs again`), (err) => outage.failed(job.name, err, `job ${job.name} failed`))
      running.add(p)
      await p
      running.delete(p)
      timer.busy = false
      if (stopped) return
      if (timer.again) {
        timer.again = false
        void tick()
      } else {
        timer.ref = setTimeout(tick, job.everyMs)
      }
    }
    timer.ref = setTimeout(tick, job.everyMs)
    if (job.wakeOn) wake.set(job.wakeOn, () => void tick())
    return { timer, instance }
  })
  const unlisten = listen(deps, wake, outage)
  return {
    async stop() {
      stopped = true
      stopping.abort()
      for (const s of started) clearTimeout(s.timer.ref)
      await unlisten()
      await Promise.all(running)
      await Promise.all(started.map((s) => s.instance.stop?.()))
    },
  }
}
