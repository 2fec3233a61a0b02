/** Provider configurations: credentials validated on save, sealed with AES-256-GCM, never returned. */
import { BadRequest, InvalidField, NotFound } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { isLiveProvider, moduleOf, PROVIDERS, type LiveProviderId } from '../providers/index.js'
import type { ProviderConfig } from '../providers/types.js'
import * as repo from '../store/repos/provider-configs.js'
import type { Executor } from '../store/db.js'
import type { ProviderConfigRow } from '../store/repos/provider-configs.js'

export type { ProviderConfigRow }
import { getMerchant } from '../store/repos/merchants.js'
import type { Deps } from './deps.js'

const LABEL = /^[A-Za-z0-9_.-]{1,40}$/

export interface ProviderConfigInput {
  provider: string
  label: string
  enabled?: boolean
  isDefault?: boolean
  credentials: Record<string, unknown>
  settings?: Record<string, unknown>
}

export interface ProviderConfigPatch {
  enabled?: boolean
  isDefault?: boolean
  label?: string
  credentials?: Record<string, unknown>
  settings?: Record<string, unknown>
}

export function configView(c: ProviderConfigRow) {
  return {
    id: c.id,
    provider: c.provider,
    label: c.label,
    enabled: c.enabled,
    isDefault: c.isDefault,
    settings: c.settings,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  }
}

const aad = (merchantId: string, configId: string) => `provider_config:${merchantId}:${configId}`

/** Decrypts a configuration for the one call that needs it. */
export function openConfig(deps: Deps, c: ProviderConfigRow): ProviderConfig {
  const credentials = JSON.parse(deps.box.open(c.credentialsEnc, aad(c.merchantId, c.id)))
  return { id: c.id, label: c.label, credentials, settings: c.settings }
}

function checkLabel(label: unknown) {
  if (typeof label !== 'string' || !LABEL.test(label)) {
    throw new InvalidField('label', 'must be 1 to 40 letters, digits, dots, dashes or underscores')
  }
}

export async function createProviderConfig(deps: Deps, merchantId: string, input: ProviderConfigInput) {
  if (!isLiveProvider(input.provider)) throw new InvalidField('provider', `must be one of ${PROVIDERS.map((p) => p.id).join(', ')}`)
  checkLabel(input.label)
  const p = moduleOf(input.provider)
  p.validateCredentials(input.credentials)
  p.validateSettings(input.settings ?? {}, deps.config.providerAllowPrivate)
  const id = newId('pc')
  const checkNew = async (ex: Executor) => {
    if (!(await getMerchant(ex, merchantId))) throw new NotFound()
    if (await repo.findByLabel(ex, merchantId, input.provider, input.label)) {
      throw new BadRequest(`provider ${input.provider}/${input.label} already exists`, 'already_exists')
    }
  }
  // Checked first, so the provider is not asked to make anything for a configuration never saved;
  // the call itself is outside the transaction (it holds no lock), and the checks are made again in it.
  await checkNew(deps.db)
  const credentials = await completeCredentials(deps, input.provider, id, input.credentials, input.settings ?? {})
  return deps.db.transaction(async (tx) => {
    await checkNew(tx)
    const now = deps.clock()
    const existing = (await repo.listProviderConfigs(tx, merchantId)).filter((c) => c.provider === input.provider)
    // The first configuration of a provider becomes its default unless told otherwise.
    const isDefault = input.isDefault ?? existing.length === 0
    if (isDefault) await repo.clearOtherDefaults(tx, merchantId, input.provider, id)
    const row = await repo.insertProviderConfig(tx, {
      id,
      merchantId,
      provider: input.provider,
      label: input.label,
      enabled: input.enabled ?? true,
      isDefault,
      credentialsEnc: deps.box.seal(JSON.stringify(credentials), aad(merchantId, id)),
      settings: input.settings ?? {},
      createdAt: now,
      updatedAt: now,
    })
    return configView(row)
  })
}

/** What the provider adds to the credentials before they are saved (module.ts, PaymentProvider.completeCredentials), checked again. */
async function completeCredentials(deps: Deps, provider: string, configId: string, credentials: Record<string, unknown>, settings: Record<string, unknown>) {
  const adapter = deps.providers.get(provider)
  if (!adapter?.completeCredentials) return credentials
  const done = await adapter.completeCredentials({ credentials, settings }, `${deps.config.baseUrl}/hooks/${provider}/${configId}`)
  moduleOf(provider as LiveProviderId).validateCredentials(done)
  return done
}

export async function updateProviderConfig(deps: Deps, merchantId: string, configId: string, patch: ProviderConfigPatch) {
  if (patch.credentials !== undefined) {
    const current = await repo.getProviderConfig(deps.db, merchantId, configId)
    if (current) patch = { ...patch, credentials: await completeCredentials(deps, current.provider, configId, patch.credentials, patch.settings ?? current.settings) }
  }
  return deps.db.transaction(async (tx) => {
    const current = await repo.getProviderConfig(tx, merchantId, configId, true)
    if (!current) throw new NotFound()
    const p = moduleOf(current.provider as LiveProviderId)
    const next: Partial<ProviderConfigRow> = { updatedAt: deps.clock() }
    if (patch.label !== undefined && patch.label !== current.label) {
      checkLabel(patch.label)
      if (await repo.findByLabel(tx, merchantId, current.provider, patch.label)) {
        throw new BadRequest(`provider ${current.provider}/${patch.label} already exists`, 'already_exists')
      }
      next.label = patch.label
    }
    if (patch.credentials !== undefined) {
      p.validateCredentials(patch.credentials)
      next.credentialsEnc = deps.box.seal(JSON.stringify(patch.credentials), aad(merchantId, configId))
    }
    if (patch.settings !== undefined) {
      p.validateSettings(patch.settings, deps.config.providerAllowPrivate)
      p.checkSettingsChange?.(current.settings, patch.settings)
      next.settings = patch.settings
    }
    if (patch.enabled !== undefined) next.enabled = patch.enabled
    if (patch.isDefault !== undefined) {
      if (patch.isDefault) await repo.clearOtherDefaults(tx, merchantId, current.provider, configId)
      next.isDefault = patch.isDefault
    }
    return configView(await repo.updateProviderConfig(tx, configId, next))
  })
}

export async function listProviderConfigs(deps: Deps, merchantId: string) {
  if (!(await getMerchant(deps.db, merchantId))) throw new NotFound()
  return (await repo.listProviderConfigs(deps.db, merchantId)).map(configView)
}

/** The merchant's configurations as stored, for the console (which opens their credentials itself to show what they identify). */
export const providerConfigRows = (deps: Deps, merchantId: string) => repo.listProviderConfigs(deps.db, merchantId)

/** One of the merchant's configurations as stored; NotFound when it is not the merchant's. */
export async function providerConfigRow(deps: Deps, merchantId: string, configId: string) {
  const row = await repo.getProviderConfig(deps.db, merchantId, configId)
  if (!row) throw new NotFound()
  return row
}
