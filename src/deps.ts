/** Builds the service graph from configuration and an open database. Tests call the same function. */
import type pg from 'pg'
import type { Config } from './config.js'
import { createMetrics } from './metrics/registry.js'
import { PROVIDERS, TEST_PROVIDER } from './providers/index.js'
import { observed } from './providers/observed.js'
import { traceProviderCall } from './tracing/provider-calls.js'
import { createRegistry } from './providers/registry.js'
import { guardedAgent } from './security/guarded-agent.js'
import { KeyBuckets } from './security/rate-limit.js'
import { SecretBox } from './security/secret-box.js'
import type { Deps, Logger } from './services/deps.js'
import { receiveMockNotification } from './services/notifications.js'
import { createSessionSignals } from './services/session-signals.js'
import type { Db } from './store/db.js'
import { productStore } from './store/repos/provider-products.js'

/** Provider API calls dial public addresses only, unless PROVIDER_ALLOW_PRIVATE=1 (a local fake). */
const providerAgent = (config: Config, log: Logger) =>
  guardedAgent({ allowPrivate: () => config.providerAllowPrivate, flag: 'PROVIDER_ALLOW_PRIVATE', timeoutMs: 10_000, keepAliveTimeout: 10_000, log: (detail, message) => log.warn(detail, `provider call ${message}`) })

export function createDeps(config: Config, db: Db, secretsKey: Buffer, log: Logger, clock: () => Date = () => new Date()): Deps {
  const box = new SecretBox(secretsKey)
  // drizzle keeps its pool as $client; the listener copies its connection settings.
  const signals = createSessionSignals((db as Db & { $client: pg.Pool }).$client, log)
  const metrics = createMetrics({ db, clock, log, signals })
  const deps: Deps = {
    config,
    db,
    clock,
    box,
    providers: createRegistry([
      TEST_PROVIDER.createAdapter({ now: () => clock() }),
      ...PROVIDERS.map((p) => p.createAdapter({ now: () => clock(), dispatcher: providerAgent(config, log), products: productStore(db, clock), statementLimits: config.statementLimits })),
    ].map((adapter) => observed(adapter, metrics.observeProviderCall, traceProviderCall))),
    mockConfig: TEST_PROVIDER.config(box.derive('mock-provider-signing')),
    log,
    signals,
    deliverNotification: (raw) => receiveMockNotification(deps, raw),
    apiKeys: new KeyBuckets(),
    metrics,
  }
  return deps
}
