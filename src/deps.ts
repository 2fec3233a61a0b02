/** Builds the service graph from configuration and an open database. Tests call the same function. */
import type { Config } from './config.js'
import { createMockProvider } from './providers/mock/index.js'
import { createRegistry } from './providers/registry.js'
import { SecretBox } from './security/secret-box.js'
import type { Deps, Logger } from './services/deps.js'
import type { Db } from './store/db.js'

export function createDeps(config: Config, db: Db, secretsKey: Buffer, log: Logger, clock: () => Date = () => new Date()): Deps {
  const box = new SecretBox(secretsKey)
  return {
    config,
    db,
    clock,
    box,
    providers: createRegistry([createMockProvider(() => clock())]),
    mockConfig: { id: 'mock', label: 'mock', credentials: { signingKey: box.derive('mock-provider-signing') }, settings: {} },
    log,
    deliverNotification: async () => {
      throw new Error('the app is not built yet')
    },
  }
}
