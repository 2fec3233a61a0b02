/**
 * Provider notifications in, whoever carries them: the hook routes (raw HTTP bodies) and the test
 * helpers (the mock's signed notification). The adapter verifies the signature over the raw bytes
 * before anything is parsed; the facts apply in one transaction (discrepancies recorded and counted there).
 */
import { BodyTooDeep, NotFound } from '../domain/errors.js'
import { jsonTooDeep } from '../domain/json-depth.js'
import { TEST_PROVIDER } from '../providers/index.js'
import type { NotificationResult, ProviderConfig } from '../providers/types.js'
import { getProviderConfigUnscoped } from '../store/repos/provider-configs.js'
import type { Deps } from './deps.js'
import { applyFacts } from './payment-facts.js'
import { openConfig } from './provider-configs.js'

/** A notification as it arrived: the exact bytes its signature covers, and its headers. */
export interface RawNotification {
  body: Buffer
  headers: Record<string, string | string[] | undefined>
}

/** The exact reply the provider expects. */
export type NotificationAck = NotificationResult['ack']

async function receive(deps: Deps, provider: string, configId: string | null, cfg: ProviderConfig, raw: RawNotification): Promise<NotificationAck> {
  const adapter = deps.providers.get(provider)
  if (!adapter) throw new NotFound()
  // Adapters parse and walk the body after its signature checks out: bound it before, as every JSON body is.
  if (jsonTooDeep(raw.body)) throw new BodyTooDeep()
  const result = await adapter.parseNotification(cfg, raw)
  // Refused signatures, events Till does not act on (a Creem dispute): visible to the operator.
  for (const f of result.facts) if (f.kind === 'ignored') deps.log.info({ provider, configId, reason: f.reason }, 'provider notification not applied')
  if (result.facts.length) await applyFacts(deps, provider, configId, result.facts)
  return result.ack
}

/** A notification from the mock provider (test mode), signed with deps.mockConfig's key. */
export const receiveMockNotification = (deps: Deps, raw: RawNotification) => receive(deps, TEST_PROVIDER.id, null, deps.mockConfig, raw)

/** A notification for one provider configuration; NotFound when the configuration is not that provider's. */
export async function receiveProviderNotification(deps: Deps, provider: string, configId: string, raw: RawNotification) {
  const row = await getProviderConfigUnscoped(deps.db, configId)
  if (!row || row.provider !== provider) throw new NotFound()
  return receive(deps, row.provider, row.id, openConfig(deps, row), raw)
}
