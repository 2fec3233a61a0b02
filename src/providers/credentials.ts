/** Shared checks for provider credentials and settings, so a bad configuration fails on save. */
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { InvalidField, UnknownField } from '../domain/errors.js'
import { hostKind } from '../security/private-address.js'

export type Fields = Record<string, unknown>

/** Every provider's `apiBase` setting, as the console labels it. */
export const API_BASE_LABEL = { en: 'API base address (optional)', 'zh-CN': 'API 地址（可选）', 'zh-HK': 'API 地址（選填）', ja: 'API ベースアドレス（任意）' }

export function onlyKnown(obj: Fields, allowed: readonly string[], prefix: string) {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) throw new UnknownField(`${prefix}.${k}`)
}

/** Only the declared fields, and every required one a non-empty string (a provider without further rules). */
export function checkDeclared(obj: Fields, fields: readonly { name: string; optional?: boolean }[], prefix: string) {
  onlyKnown(obj, fields.map((f) => f.name), prefix)
  for (const f of fields) if (!f.optional) requireString(obj, f.name, prefix)
}

export function requireString(obj: Fields, key: string, prefix: string, pattern?: RegExp, rule?: string): string {
  const v = obj[key]
  if (typeof v !== 'string' || v.length === 0) throw new InvalidField(`${prefix}.${key}`, 'is required')
  if (pattern && !pattern.test(v)) throw new InvalidField(`${prefix}.${key}`, rule ?? 'is malformed')
  return v
}

export function requirePrivateKeyPem(obj: Fields, key: string, prefix: string) {
  const pem = requireString(obj, key, prefix)
  try {
    if (!pem.includes('-----BEGIN PRIVATE KEY-----')) throw new Error('not PKCS#8')
    const k = createPrivateKey(pem)
    if (k.asymmetricKeyType !== 'rsa') throw new Error('not RSA')
  } catch {
    throw new InvalidField(`${prefix}.${key}`, 'must be an RSA private key in PKCS#8 PEM')
  }
}

export function requirePublicKeyPem(obj: Fields, key: string, prefix: string) {
  const pem = requireString(obj, key, prefix)
  try {
    createPublicKey(pem)
  } catch {
    throw new InvalidField(`${prefix}.${key}`, 'must be a public key in PEM')
  }
}

/**
 * settings.apiBase: an absolute https URL (a sandbox), not naming a private address; with
 * PROVIDER_ALLOW_PRIVATE=1 also plain http and loopback or private hosts (a local fake). Names are
 * checked again after DNS, on every connection (security/guarded-agent.ts).
 */
export function checkSettings(settings: Fields, allowPrivate: boolean, allowed: readonly string[] = ['apiBase']) {
  onlyKnown(settings, allowed, 'settings')
  if (settings.apiBase !== undefined) {
    const ok = typeof settings.apiBase === 'string' && /^https?:\/\/[^\s]+$/.test(settings.apiBase) && URL.canParse(settings.apiBase)
    if (!ok) throw new InvalidField('settings.apiBase', 'must be an absolute http or https URL')
    if (allowPrivate) return
    const url = new URL(settings.apiBase as string)
    if (url.protocol !== 'https:') throw new InvalidField('settings.apiBase', 'must be an https URL (PROVIDER_ALLOW_PRIVATE=1 allows http for a local fake)')
    const kind = hostKind(url.hostname)
    if (kind !== null && kind !== 'public') throw new InvalidField('settings.apiBase', 'must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)')
  }
}
