/** The credential fields of each live provider, in form order; which are PEM text and which are secret. */
import type { ConsoleKey } from '../i18n/index.js'

export interface CredentialField {
  name: string
  label: ConsoleKey
  pem?: boolean
  secret?: boolean
  optional?: boolean
}

export const CREDENTIAL_FIELDS: Record<'wechat' | 'creem', CredentialField[]> = {
  wechat: [
    { name: 'mchId', label: 'cred.mchId' },
    { name: 'appId', label: 'cred.appId' },
    { name: 'merchantSerialNo', label: 'cred.merchantSerialNo' },
    { name: 'privateKey', label: 'cred.privateKey', pem: true, secret: true },
    { name: 'apiV3Key', label: 'cred.apiV3Key', secret: true },
    { name: 'platformPublicKeyId', label: 'cred.platformPublicKeyId', optional: true },
    { name: 'platformPublicKey', label: 'cred.platformPublicKey', pem: true, optional: true },
    { name: 'appSecret', label: 'cred.appSecret', secret: true, optional: true },
  ],
  creem: [
    { name: 'apiKey', label: 'cred.apiKey', secret: true },
    { name: 'webhookSecret', label: 'cred.webhookSecret', secret: true },
  ],
}

/**
 * The credentials object the admin API would take, from a posted form: a chosen PEM file wins over
 * pasted text, and empty optional fields are left out (the provider's validation then names what is
 * missing or malformed, with the admin API's own messages).
 */
export function credentialsFromForm(provider: 'wechat' | 'creem', body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const f of CREDENTIAL_FIELDS[provider]) {
    const file = body[`${f.name}File`] as { bytes?: Buffer } | undefined
    const fromFile = f.pem && file?.bytes && file.bytes.length > 0 ? file.bytes.toString('utf8') : ''
    const typed = typeof body[f.name] === 'string' ? (body[f.name] as string) : ''
    const value = (fromFile || typed).replace(/\r\n/g, '\n')
    const v = f.pem ? value.trim() + (value.trim() ? '\n' : '') : value.trim()
    if (v) out[f.name] = v
  }
  return out
}

/** What identifies saved credentials without revealing them. */
export function identify(provider: string, creds: Record<string, unknown>): { key: ConsoleKey; vars: Record<string, string> }[] {
  if (provider === 'wechat') {
    return [
      { key: 'cred.merchant', vars: { id: String(creds.mchId ?? '') } },
      { key: 'cred.serial', vars: { serial: String(creds.merchantSerialNo ?? '') } },
    ]
  }
  const apiKey = String(creds.apiKey ?? '')
  return [{ key: 'cred.keyEnding', vars: { last4: apiKey.slice(-4) } }]
}
