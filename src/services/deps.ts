import type { Config } from '../config.js'
import type { Logger } from '../logging.js'
import type { Metrics } from '../metrics/registry.js'
import type { ProviderRegistry } from '../providers/registry.js'
import type { ProviderConfig } from '../providers/types.js'
import type { KeyBuckets } from '../security/rate-limit.js'
import type { SecretBox } from '../security/secret-box.js'
import type { Db } from '../store/db.js'
import type { Scope } from '../store/repos/scope.js'
import type { NotificationAck, RawNotification } from './notifications.js'
import type { SessionSignals } from './session-signals.js'

export type { Logger } from '../logging.js'

/** Everything a service needs, passed in: no globals, so tests build the same graph. */
export interface Deps {
  config: Config
  db: Db
  clock: () => Date
  box: SecretBox
  providers: ProviderRegistry
  /** The mock provider's configuration (its signing key), derived from the secrets key. */
  mockConfig: ProviderConfig
  log: Logger
  /** Wakes relay pages, on every instance, when a session finishes (LISTEN/NOTIFY plus in-process). */
  signals: SessionSignals
  /** API keys this instance has seen, with their rate-limit tokens (security/rate-limit.ts). */
  apiKeys: KeyBuckets
  /** Prometheus registry and instruments of this process (served at /metrics). */
  metrics: Metrics
  /**
   * The mock provider's "network": hands its signed notification to the notifications service
   * (receiveMockNotification). A seam, so a test can take the database away around a delivery.
   */
  deliverNotification(raw: RawNotification): Promise<NotificationAck>
}

/** The caller of a merchant API request. */
export interface RequestContext extends Scope {
  idempotencyKey: string | null
}
