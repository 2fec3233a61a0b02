/**
 * Prometheus metrics, one registry per Deps (never prom-client's global one, so several apps in one
 * process, as in tests, keep apart). Every Till metric is named `till_…` (docs/operate.md#metrics);
 * Node's and the process's own keep their standard names. Counters and histograms are bumped where
 * things happen; the database-wide gauges are read at scrape time (gauges.ts).
 */
import { readFileSync } from 'node:fs'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { DISCREPANCY_KINDS } from '../domain/discrepancies.js'
import { ALL_PROVIDER_IDS } from '../providers/index.js'
import type { CallObserver } from '../providers/observed.js'
import { registerGauges, type MetricsSources } from './gauges.js'

export type { MetricsSources } from './gauges.js'

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed'

export interface Metrics {
  registry: Registry
  httpRequests: Counter<'route' | 'method' | 'status'>
  httpDuration: Histogram<'route' | 'method' | 'status'>
  webhookDeliveries: Counter<'outcome'>
  discrepancies: Counter<'provider' | 'kind'>
  providerCalls: Histogram<'provider' | 'operation' | 'outcome'>
  /** Times each provider call into providerCalls (the registry's adapters are observed with it). */
  observeProviderCall: CallObserver
}

const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version

export function createMetrics(deps: MetricsSources): Metrics {
  const registry = new Registry()
  const registers = [registry]
  collectDefaultMetrics({ register: registry })

  new Gauge({
    name: 'till_build_info',
    help: 'Always 1: the Till version and the Node version this process runs',
    labelNames: ['version', 'node'] as const,
    registers,
  }).set({ version: VERSION, node: process.versions.node }, 1)

  const httpRequests = new Counter({
    name: 'till_http_requests_total',
    help: 'HTTP requests answered, by route pattern (unknown for unmatched paths), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  })
  const httpDuration = new Histogram({
    name: 'till_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  const webhookDeliveries = new Counter({
    name: 'till_webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded by this process: delivered, retry (failed, another attempt scheduled) or failed (the last attempt failed)',
    labelNames: ['outcome'] as const,
    registers,
  })
  for (const outcome of ['delivered', 'retry', 'failed'] as const) webhookDeliveries.inc({ outcome }, 0)
  const discrepancies = new Counter({
    name: 'till_provider_discrepancies_total',
    help: 'Provider reports that did not match what Till asked for (recorded for an operator, no money state changed), by provider and kind',
    labelNames: ['provider', 'kind'] as const,
    registers,
  })
  // Every series from zero, so an alert on its increase sees the first one.
  for (const provider of ALL_PROVIDER_IDS) {
    for (const kind of DISCREPANCY_KINDS) discrepancies.inc({ provider, kind }, 0)
  }
  const providerCalls = new Histogram({
    name: 'till_provider_call_duration_seconds',
    help: 'Calls to a provider\'s API by provider, operation (createAttempt, queryPayment, refund, fetchStatement, …) and outcome: ok, rejected (the provider refused), unknown (no answer, or an answer that may not be final) or error',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  })
  const observeProviderCall: CallObserver = (provider, operation) => {
    const end = providerCalls.startTimer({ provider, operation })
    return (outcome) => void end({ outcome })
  }

  registerGauges(registers, deps)
  return { registry, httpRequests, httpDuration, webhookDeliveries, discrepancies, providerCalls, observeProviderCall }
}
