/**
 * Prometheus metrics, one registry per Deps (never prom-client's global one, so several apps in one
 * process, as in tests, keep apart). Counters are bumped where things happen; the database-wide
 * gauges (sessions, outbox lag) and the pool's are read at scrape time.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { DISCREPANCY_KINDS } from '../domain/discrepancies.js'
import { SESSION_STATUSES } from '../domain/session-machine.js'
import { PROVIDERS } from '../providers/index.js'
import type { Db } from '../store/db.js'
import { countSessionsByStatus, oldestDueDelivery, openMismatchCounts } from '../store/repos/metrics.js'

/** The grouped count scans every session: at most once per this long per process. */
export const SESSIONS_CACHE_MS = 30_000
const SESSIONS_TIMEOUT_MS = 2_000

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed'

export interface Metrics {
  registry: Registry
  httpRequests: Counter<'route' | 'method' | 'status'>
  httpDuration: Histogram<'route' | 'method' | 'status'>
  webhookDeliveries: Counter<'outcome'>
  discrepancies: Counter<'provider' | 'kind'>
}

/** What the scrape-time gauges read (a part of the services' Deps, named here so metrics imports no service). */
export interface MetricsSources {
  db: Db
  clock: () => Date
  log: { warn(obj: unknown, msg?: string): void }
  /** Waits now blocked on a session signal (services/session-signals.ts). */
  signals: { waiting(): number }
}

export function createMetrics(deps: MetricsSources): Metrics {
  const registry = new Registry()
  const registers = [registry]
  collectDefaultMetrics({ register: registry })

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern (unknown for unmatched paths), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  })
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  const webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded by this process: delivered, retry (failed, another attempt scheduled) or failed (the last attempt failed)',
    labelNames: ['outcome'] as const,
    registers,
  })
  for (const outcome of ['delivered', 'retry', 'failed'] as const) webhookDeliveries.inc({ outcome }, 0)
  const discrepancies = new Counter({
    name: 'provider_discrepancies_total',
    help: 'Provider reports that did not match what Till asked for (recorded for an operator, no money state changed), by provider and kind',
    labelNames: ['provider', 'kind'] as const,
    registers,
  })
  // Every series from zero, so an alert on its increase sees the first one.
  for (const provider of ['mock', ...PROVIDERS.map((p) => p.id)]) {
    for (const kind of DISCREPANCY_KINDS) discrepancies.inc({ provider, kind }, 0)
  }

  new Gauge({
    name: 'webhook_outbox_lag_seconds',
    help: 'How long the oldest due webhook delivery (endpoint enabled) has been waiting; 0 when none is due',
    registers,
    async collect() {
      try {
        const now = deps.clock()
        const due = await oldestDueDelivery(deps.db, now)
        this.set(due ? Math.max(0, (now.getTime() - due.getTime()) / 1000) : 0)
      } catch (err) {
        deps.log.warn({ err }, 'metrics: outbox lag not read')
      }
    },
  })

  new Gauge({
    name: 'session_waits',
    help: 'Requests in this process now waiting for a payment in flight to be confirmed (relay pages, status long polls)',
    registers,
    collect() {
      this.set(deps.signals.waiting())
    },
  })

  new Gauge({
    name: 'db_pool_connections',
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

  let sessionsReadAt = -Infinity
  new Gauge({
    name: 'sessions',
    help: `Sessions in the database by status (all merchants and modes), refreshed at most every ${SESSIONS_CACHE_MS / 1000} s`,
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const now = deps.clock().getTime()
      if (now - sessionsReadAt < SESSIONS_CACHE_MS) return
      try {
        const counts = await countSessionsByStatus(deps.db, SESSIONS_TIMEOUT_MS)
        for (const status of SESSION_STATUSES) this.set({ status }, counts.get(status) ?? 0)
        sessionsReadAt = now
      } catch (err) {
        deps.log.warn({ err }, 'metrics: sessions not counted')
      }
    },
  })

  new Gauge({
    name: 'reconciliation_open_mismatches',
    help: 'Reconciliation mismatches (a provider\'s statement and Till disagree) not acknowledged yet, by provider and mode (docs/reconciliation.md)',
    labelNames: ['provider', 'mode'] as const,
    registers,
    async collect() {
      try {
        const counts = await openMismatchCounts(deps.db)
        // Every series is there, zero when nothing is open, so an alert sees it go up from zero.
        for (const provider of PROVIDERS.map((p) => p.id)) for (const mode of ['test', 'live']) this.set({ provider, mode }, 0)
        for (const c of counts) this.set({ provider: c.provider, mode: c.mode }, c.n)
      } catch (err) {
        deps.log.warn({ err }, 'metrics: open reconciliation mismatches not counted')
      }
    },
  })

  return { registry, httpRequests, httpDuration, webhookDeliveries, discrepancies }
}
