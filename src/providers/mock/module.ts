/**
 * The test mode's provider as a module beside the live ones (src/providers/module.ts): what the
 * core decides by it is read here, so no file outside src/providers/ names it. It is not in the live
 * list (index.ts's PROVIDERS): it has no stored configuration, no console form and no `till fake`.
 */
import type { PaymentProvider, ProviderConfig } from '../types.js'
import { createMockProvider } from './index.js'

export interface TestProviderModule<Id extends string = string> {
  id: Id
  /** The mode every session of which it takes: a test-mode session binds to it, never to a configuration. */
  mode: 'test'
  /** The channel its attempts are made on. */
  channel: string
  /**
   * Its one configuration, never stored: built at start with a signing key derived from the
   * secrets key (deps.ts), and used wherever an attempt or record names this provider.
   */
  config(signingKey: Buffer): ProviderConfig
  createAdapter(ctx: { now: () => Date }): PaymentProvider
}

export const mock: TestProviderModule<'mock'> = {
  id: 'mock',
  mode: 'test',
  channel: 'mock',
  config: (signingKey) => ({ id: 'mock', label: 'mock', credentials: { signingKey }, settings: {} }),
  createAdapter: (ctx) => createMockProvider(ctx.now),
}
