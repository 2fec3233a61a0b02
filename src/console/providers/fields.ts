/** The provider forms' fields, from each provider's module: PEM fields take a file too, secrets are never shown again. */
import { isLiveProvider, moduleOf, type LiveProviderId } from '../../providers/index.js'
import type { Localized } from '../../providers/module.js'

export const credentialFields = (provider: LiveProviderId) => moduleOf(provider).credentials
export const settingFields = (provider: LiveProviderId) => moduleOf(provider).settings

/**
 * A PEM as pasted: from a terminal or a JSON file it may carry literal `\n` escapes (one line), or
 * Windows line ends; both become the text the admin API takes.
 */
export const pemText = (raw: string) => {
  const text = raw.replace(/\r\n/g, '\n').trim()
  return text.includes('-----BEGIN') && !text.includes('\n') ? text.replace(/\\r\\n|\\n/g, '\n').trim() : text
}

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
    const pem = f.pem ? pemText(value) : ''
    const v = f.pem ? pem + (pem ? '\n' : '') : value.trim()
    if (v) out[f.name] = v
  }
  return out
}

/** The settings object the admin API would take: every setting the module declares, left out when empty or its choices' default. */
export function settingsFromForm(provider: LiveProviderId, body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const f of settingFields(provider)) {
    const v = typeof body[f.name] === 'string' ? (body[f.name] as string).trim() : ''
    if (v && v !== f.choices?.[0]) out[f.name] = v
  }
  return out
}

/**
 * A refused save's message in the form's words: `credentials.privateKey: …` names the field by its
 * label, as the form shows it.
 */
export function inFormWords(provider: string, message: string, locale: keyof Localized): string {
  if (!isLiveProvider(provider)) return message
  const fields = [...credentialFields(provider).map((f) => ['credentials', f] as const), ...settingFields(provider).map((f) => ['settings', f] as const)]
  for (const [group, f] of fields) {
    const name = `${group}.${f.name}`
    if (message.startsWith(`${name}: `)) return `${f.label[locale]}: ${message.slice(name.length + 2)}`
    if (message === `unknown field: ${name}`) return `${f.label[locale]}: ${message}`
  }
  return message
}

/**
 * What a refused form shows again: everything typed, the key boxes included (this answer goes only
 * to the browser that just sent them, never cached), but not password fields (the API v3 key),
 * typed again. A chosen file cannot be chosen again for the merchant: the browser asks.
 */
export function typedValues(provider: string, body: Record<string, unknown>): Record<string, string> {
  const fields = isLiveProvider(provider) ? [...credentialFields(provider).filter((f) => !f.secret || f.pem), ...settingFields(provider)].map((f) => f.name) : []
  const out: Record<string, string> = {}
  for (const k of ['label', ...fields, 'enabled', 'isDefault']) if (typeof body[k] === 'string') out[k] = body[k] as string
  return out
}

/** What identifies saved credentials without revealing them. */
export const identify = (provider: string, creds: Record<string, unknown>): Localized[] => (isLiveProvider(provider) ? moduleOf(provider).identify(creds) : [])
