/**
 * An Alipay configuration's keys (docs/providers.md#alipay-alipay): the application private key
 * that signs, and what verifies Alipay — its public key (public-key mode) or its public-key
 * certificate, with the application and root certificates whose serials every request names
 * (certificate mode). Keys are taken as Alipay's tools give them: PEM, or the bare base64 text the
 * open platform shows.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto'
import { InvalidField } from '../../domain/errors.js'
import { requireString, type Fields } from '../credentials.js'
import type { ProviderConfig } from '../types.js'
import { certSn, rootCertSn, splitPem } from './sign.js'

export interface AlipayCredentials {
  appId: string
  privateKey: string
  /** Public-key mode. */
  alipayPublicKey?: string
  /** Certificate mode: appCertPublicKey_<appId>.crt, alipayCertPublicKey_RSA2.crt, alipayRootCert.crt. */
  appCert?: string
  alipayCert?: string
  alipayRootCert?: string
}

export const credentialsOf = (cfg: ProviderConfig) => cfg.credentials as unknown as AlipayCredentials

const CERT_FIELDS = ['appCert', 'alipayCert', 'alipayRootCert'] as const

export const isCertificateMode = (c: AlipayCredentials) => c.appCert !== undefined

const bareBase64 = (text: string) => {
  const b64 = text.replace(/\s+/g, '')
  return /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : null
}

/** PKCS#8 or PKCS#1, as PEM or bare base64 (Alipay's key tool writes PKCS#8 without the PEM lines). */
export function readPrivateKey(text: string): KeyObject {
  if (text.includes('-----BEGIN')) return createPrivateKey(text)
  const der = bareBase64(text)
  if (!der) throw new Error('not a key')
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
  } catch {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' })
  }
}

/** SPKI (or PKCS#1) as PEM, or the bare base64 the open platform shows as 支付宝公钥. */
export function readPublicKey(text: string): KeyObject {
  if (text.includes('-----BEGIN')) return createPublicKey(text)
  const der = bareBase64(text)
  if (!der) throw new Error('not a key')
  return createPublicKey({ key: der, format: 'der', type: 'spki' })
}

export interface Keys {
  privateKey: KeyObject
  /** Verifies Alipay's answers, notifications and returns. */
  alipayPublicKey: KeyObject
  /** Certificate mode: the serials requests name, and the one Alipay's answers must name. */
  certs?: { appCertSn: string; alipayRootCertSn: string; alipayCertSn: string }
}

/** Read from credentials that passed validateAlipayCredentials. */
export function keysOf(c: AlipayCredentials): Keys {
  const privateKey = readPrivateKey(c.privateKey)
  if (!isCertificateMode(c)) return { privateKey, alipayPublicKey: readPublicKey(c.alipayPublicKey ?? '') }
  const alipayCert = new X509Certificate(c.alipayCert ?? '')
  return {
    privateKey,
    alipayPublicKey: alipayCert.publicKey,
    certs: { appCertSn: certSn(c.appCert ?? ''), alipayRootCertSn: rootCertSn(c.alipayRootCert ?? ''), alipayCertSn: certSn(alipayCert) },
  }
}

const spki = (k: KeyObject) => k.export({ type: 'spki', format: 'der' }).toString('base64')

function requireRsa(k: KeyObject, field: string, what: string) {
  // RSA2 is SHA256withRSA with a 2048-bit key (Alipay's key tool makes nothing else).
  if (k.asymmetricKeyType !== 'rsa' || (k.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
    throw new InvalidField(`credentials.${field}`, `must be ${what} of an RSA key of at least 2048 bits`)
  }
}

function parsed<T>(c: Fields, field: string, read: (text: string) => T, rule: string): T {
  const text = requireString(c, field, 'credentials')
  try {
    return read(text)
  } catch {
    throw new InvalidField(`credentials.${field}`, rule)
  }
}

/**
 * appId, the private key, and exactly one way to verify Alipay: alipayPublicKey, or all three
 * certificates (the application certificate must hold the private key's public half).
 */
export function validateAlipayCredentials(c: Fields) {
  requireString(c, 'appId', 'credentials', /^\d{1,32}$/, 'must be the APPID of your application (digits)')
  const privateKey = parsed(c, 'privateKey', readPrivateKey, 'must be the application private key: PKCS#8 or PKCS#1, PEM or base64')
  requireRsa(privateKey, 'privateKey', 'the private key')
  const certGiven = CERT_FIELDS.filter((f) => c[f] !== undefined)
  if (c.alipayPublicKey !== undefined && certGiven.length > 0) {
    throw new InvalidField('credentials.alipayPublicKey', 'give either the Alipay public key or the three certificates, not both')
  }
  if (certGiven.length === 0) {
    if (c.alipayPublicKey === undefined) throw new InvalidField('credentials.alipayPublicKey', 'is required (or, in certificate mode, appCert, alipayCert and alipayRootCert)')
    requireRsa(parsed(c, 'alipayPublicKey', readPublicKey, 'must be the Alipay public key (支付宝公钥): PEM or base64'), 'alipayPublicKey', 'the public key')
    return
  }
  const certificate = (field: string) => parsed(c, field, (t) => new X509Certificate(t), 'must be a certificate in PEM')
  const appCert = certificate('appCert')
  if (spki(appCert.publicKey) !== spki(createPublicKey(privateKey))) {
    throw new InvalidField('credentials.appCert', 'must be the application public-key certificate of this private key')
  }
  requireRsa(certificate('alipayCert').publicKey, 'alipayCert', 'the Alipay public-key certificate')
  const root = requireString(c, 'alipayRootCert', 'credentials')
  let rootSn = ''
  try {
    rootSn = splitPem(root).length ? rootCertSn(root) : ''
  } catch {
    // Reported below.
  }
  if (!rootSn) throw new InvalidField('credentials.alipayRootCert', 'must be Alipay\'s root certificate bundle (alipayRootCert.crt) in PEM')
}
