/**
 * The gauges read at scrape time: from this process (waits, its pool) and from the database
 * (whether it answers, the outbox, sessions and refunds by state, webhook endpoints, reconciliation).
 * A read that fails logs a warning and leaves the gauge as it was; the whole-table counts are cached.
 */
import { Gauge, type Registry } from 'prom-client'
import { SESSION_STATUSES } from '../domain/session-machine.js'
import { PROVIDERS } from '../providers/index.js'
import type { Db } from '../store/db.js'
import { databaseState } from '../store/health.js'
import {
  countRefundsByStatus, countSessionsByStatus, oldestDueDelivery, openMismatchCounts, statementDaysWaiting, webhookEndpointStates,
} from '../store/repos/metrics.js'

/** The grouped counts scan every session or refund: at most once per this long per process. */
export const SESSIONS_CACHE_MS = 30_000
const COUNT_TIMEOUT_MS = 2_000
const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const

/** What the scrape-time gauges read (a part of the services' Deps, named here so metrics imports no service). */
export interface MetricsSources {
  db: Db
  clock: () => Date
  log: { warn(obj: unknown, msg?: string): void }
  /** Waits now blocked on a session signal (services/session-signals.ts). */
  signals: { waiting(): number }
}

export function registerGauges(registers: Registry[], deps: MetricsSources) {
  /** Runs a read for a gauge; a failure is logged, not thrown into the scrape. */
  const read = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn()
    } catch (err) {
      deps.log.warn({ err }, `metrics: ${what} not read`)
    }
  }
  /** A read done at most once per SESSIONS_CACHE_MS. */
  const cached = (fn: () => Promise<void>) => {
    let readAt = -Infinity
    return async () => {
      const now = deps.clock().getTime()
      if (now - readAt < SESSIONS_CACHE_MS) return
      await fn()
      readAt = now
    }
  }
  /** Every provider and mode at zero first, so an alert sees a series go up from zero. */
  const perProvider = (g: Gauge<'provider' | 'mode'>, counts: { provider: string; mode: string; n: number }[]) => {
    for (const provider of PROVIDERS.map((p) => p.id)) for (const mode of ['test', 'live']) g.set({ provider, mode }, 0)
    for (const c of counts) g.set({ provider: c.provider, mode: c.mode }, c.n)
  }

  // This process's own state first: read before the database reads below take pool connections.
  new Gauge({
    name: 'till_session_waits',
    help: 'Requests in this process now waiting for a payment in flight to be confirmed (relay pages, status long polls)',
    registers,
    collect() {
      this.set(deps.signals.waiting())
    },
  })

  new Gauge({
    name: 'till_db_pool_connections',
    help: 'PostgreSQL pool of this process: total (open), idle, and waiting (requests queued for a connection)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const pool = deps.db.$client
      this.set({ state: 'total' }, pool.totalCount)
      this.set({ state: 'idle' }, pool.idleCount)
      this.set({ state: 'waiting' }, pool.waitingCount)
    },
  })

  new Gauge({
    name: 'till_database_up',
    help: 'Whether this process can use its database now, as /readyz answers: 1 reachable and taking writes, 0 otherwise',
    registers,
    async collect() {
      this.set((await databaseState(deps.db.$client)) === 'ready' ? 1 : 0)
    },
  })

  /** When the oldest due delivery became due, read by both outbox gauges (an index walk each). */
  const outbox = (what: string, set: (due: Date | null, now: Date) => void) => async () =>
    read(what, async () => {
      const now = deps.clock()
      set(await oldestDueDelivery(deps.db, now), now)
    })
  const lag: Gauge = new Gauge({
    name: 'till_webhook_outbox_lag_seconds',
    help: 'How long the oldest due webhook delivery (endpoint enabled) has been waiting; 0 when none is due',
    registers,
    collect: outbox('outbox lag', (due, now) => lag.set(due ? Math.max(0, (now.getTime() - due.getTime()) / 1000) : 0)),
  })
  const oldest: Gauge = new Gauge({
    name: 'till_webhook_outbox_oldest_due_timestamp_seconds',
    help: 'When the oldest due webhook delivery (endpoint enabled) became due, as a Unix time; 0 when none is due',
    registers,
    collect: outbox('oldest due delivery', (due) => oldest.set(due ? due.getTime() / 1000 : 0)),
  })

  const sessions: Gauge<'status'> = new Gauge({
    name: 'till_sessions',
    help: `Sessions in the database by status (all merchants and modes), refreshed at most every ${SESSIONS_CACHE_MS / 1000} s`,
    labelNames: ['status'] as const,
    registers,
    collect: cached(() => read('sessions', async () => {
      const counts = await countSessionsByStatus(deps.db, COUNT_TIMEOUT_MS)
      for (const status of SESSION_STATUSES) sessions.set({ status }, counts.get(status) ?? 0)
    })),
  })

  const refunds: Gauge<'state'> = new Gauge({
    name: 'till_refunds',
    help: `Refunds in the database by state: pending (sent, not confirmed), succeeded, failed; refreshed at most every ${SESSIONS_CACHE_MS / 1000} s`,
    labelNames: ['state'] as const,
    registers,
    collect: cached(() => read('refunds', async () => {
      const counts = await countRefundsByStatus(deps.db, COUNT_TIMEOUT_MS)
      for (const state of REFUND_STATUSES) refunds.set({ state }, counts.get(state) ?? 0)
    })),
  })

  new Gauge({
    name: 'till_webhook_endpoints',
    help: 'Webhook endpoints that are failing (enabled, their last attempt failed) or disabled',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      await read('webhook endpoints', async () => {
        const s = await webhookEndpointStates(deps.db)
        this.set({ state: 'failing' }, s.failing)
        this.set({ state: 'disabled' }, s.disabled)
      })
    },
  })

  new Gauge({
    name: 'till_reconciliation_open_mismatches',
    help: 'Reconciliation mismatches (a provider\'s statement and Till disagree) not acknowledged yet, by provider and mode (docs/reconciliation.md)',
    labelNames: ['provider', 'mode'] as const,
    registers,
    async collect() {
      await read('open reconciliation mismatches', async () => perProvider(this, await openMismatchCounts(deps.db)))
    },
  })

  new Gauge({
    name: 'till_reconciliation_days_waiting',
    help: 'Statement days not reconciled yet (the provider\'s statement not there, or not fetched), by provider and mode',
    labelNames: ['provider', 'mode'] as const,
    registers,
    async collect() {
      await read('statement days waiting', async () => perProvider(this, await statementDaysWaiting(deps.db)))
    },
  })
}
