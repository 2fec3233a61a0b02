/** The provider forms' fields, from each provider's module: PEM fields take a file too, secrets are never shown again. */
import { isLiveProvider, moduleOf, type LiveProviderId } from '../../providers/index.js'
import type { Localized } from '../../providers/module.js'

export const credentialFields = (provider: LiveProviderId) => moduleOf(provider).credentials

/**
 * The credentials object the admin API would take, from a posted form: a chosen PEM file wins over
 * pasted text, and empty optional fields are left out (the provider's validation then names what is
 * missing or malformed, with the admin API's own messages).
 */
export function credentialsFromForm(provider: LiveProviderId, body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const f of credentialFields(provider)) {
    const file = body[`${f.name}File`] as { bytes?: Buffer } | undefined
    const fromFile = f.pem && file?.bytes && file.bytes.length > 0 ? file.bytes.toString('utf8') : ''
    const typed = typeof body[f.name] === 'string' ? (body[f.name] as string) : ''
    const value = (fromFile || typed).replace(/\r\n/g, '\n')
    const v = f.pem ? value.trim() + (value.trim() ? '\n' : '') : value.trim()
    if (v) out[f.name] = v
  }
  return out
}

/** What a refused form shows again: everything but secrets and key texts. */
export function nonSecret(provider: string, body: Record<string, unknown>): Record<string, string> {
  const plain = isLiveProvider(provider) ? credentialFields(provider).filter((f) => !f.secret && !f.pem).map((f) => f.name) : []
  const out: Record<string, string> = {}
  for (const k of ['label', 'apiBase', ...plain, 'enabled', 'isDefault']) if (typeof body[k] === 'string') out[k] = body[k] as string
  return out
}

/** What identifies saved credentials without revealing them. */
export const identify = (provider: string, creds: Record<string, unknown>): Localized[] => (isLiveProvider(provider) ? moduleOf(provider).identify(creds) : [])
