/**
 * WeChat Pay v3 cryptography, no I/O (docs/providers.md#wechat-pay-wechat): the signed messages,
 * SHA256withRSA, the Authorization header, verification of responses and notifications with the
 * key chosen by Wechatpay-Serial, and AEAD_AES_256_GCM. Pinned by vectors.json (sign.test.ts).
 */
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, createSign, createVerify, randomBytes, X509Certificate, type KeyObject } from 'node:crypto'
import { H, MAX_CLOCK_SKEW_SEC, SIGN_SCHEME, SIGNTEST_PREFIX } from './constants.js'

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** A random alphanumeric nonce; the SDKs use 32 characters. */
export function nonceStr(length = 32): string {
  let out = ''
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALNUM[b % 62]
    }
  }
  return out
}

/** Every line ends in \n, the last one too; GET has an empty body line. */
export const requestMessage = (method: string, target: string, timestamp: string, nonce: string, body: string) =>
  `${method.toUpperCase()}\n${target}\n${timestamp}\n${nonce}\n${body}\n`

export const responseMessage = (timestamp: string, nonce: string, body: string) => `${timestamp}\n${nonce}\n${body}\n`

/** JSAPI paySign message: the 4th line is the whole package, `prepay_id=…`. */
export const jsapiMessage = (appId: string, timeStamp: string, nonce: string, pkg: string) => `${appId}\n${timeStamp}\n${nonce}\n${pkg}\n`

export const rsaSign = (key: KeyObject | string, message: string): string => createSign('RSA-SHA256').update(message, 'utf8').sign(key, 'base64')

export function rsaVerify(key: KeyObject, message: string, signatureB64: string): boolean {
  try {
    return createVerify('RSA-SHA256').update(message, 'utf8').verify(key, signatureB64, 'base64')
  } catch {
    return false
  }
}

export const privateKeyOf = (pem: string) => createPrivateKey(pem)
export const publicKeyOf = (pem: string) => createPublicKey(pem)

export interface AuthorizationInput {
  mchId: string
  serialNo: string
  privateKey: KeyObject | string
  method: string
  /** Path and query exactly as sent, escaped. */
  target: string
  body: string
  timestamp: string
  nonce: string
}

/** `Authorization` for a request; fields in the Go SDK's order (servers accept any order). */
export function authorization(a: AuthorizationInput): string {
  const signature = rsaSign(a.privateKey, requestMessage(a.method, a.target, a.timestamp, a.nonce, a.body))
  return `${SIGN_SCHEME} mchid="${a.mchId}",nonce_str="${a.nonce}",timestamp="${a.timestamp}",serial_no="${a.serialNo}",signature="${signature}"`
}

/** The keys a merchant verifies WeChat with: the public key (by its id) and/or platform certificates (by hex serial). */
export interface VerifyKeys {
  publicKeyId?: string
  publicKey?: KeyObject
  certificates?: Map<string, KeyObject>
}

export type VerifyFailure = 'missing_headers' | 'probe' | 'stale_timestamp' | 'unknown_serial' | 'bad_signature'
export type VerifyResult = { ok: true; serial: string } | { ok: false; reason: VerifyFailure }

type HeaderBag = Record<string, string | string[] | undefined>
const header = (h: HeaderBag, name: string): string | undefined => {
  const v = h[name] ?? h[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

/** Chooses the key as the Go SDK's combined verifier does: the public key id first, then the certificate serials. */
export function keyFor(keys: VerifyKeys, serial: string): KeyObject | undefined {
  if (keys.publicKeyId && keys.publicKey && serial === keys.publicKeyId) return keys.publicKey
  return keys.certificates?.get(serial.toUpperCase())
}

/**
 * Verifies a response or notification over the raw body. Probes are recognised before anything
 * else so they are never mistaken for a key problem; staleness is checked before the RSA work.
 */
export function verifySigned(headers: HeaderBag, rawBody: string, keys: VerifyKeys, now: Date): VerifyResult {
  const ts = header(headers, H.timestamp)
  const nonce = header(headers, H.nonce)
  const signature = header(headers, H.signature)
  const serial = header(headers, H.serial)
  if (!ts || !nonce || !signature || !serial) return { ok: false, reason: 'missing_headers' }
  if (signature.startsWith(SIGNTEST_PREFIX)) return { ok: false, reason: 'probe' }
  if (!/^\d{1,12}$/.test(ts) || Math.abs(Math.floor(now.getTime() / 1000) - Number(ts)) >= MAX_CLOCK_SKEW_SEC) return { ok: false, reason: 'stale_timestamp' }
  const key = keyFor(keys, serial)
  if (!key) return { ok: false, reason: 'unknown_serial' }
  if (!rsaVerify(key, responseMessage(ts, nonce, rawBody), signature)) return { ok: false, reason: 'bad_signature' }
  return { ok: true, serial }
}

export interface EncryptedResource {
  algorithm?: string
  nonce: string
  associated_data?: string
  ciphertext: string
}

/** AEAD_AES_256_GCM: key = APIv3 key bytes, IV = nonce bytes, ciphertext = base64(ct ‖ 16-byte tag). Throws when the tag does not match. */
export function decryptResource(apiV3Key: string, r: EncryptedResource): string {
  const key = Buffer.from(apiV3Key, 'utf8')
  if (key.length !== 32) throw new Error('the APIv3 key must be 32 bytes')
  const data = Buffer.from(r.ciphertext, 'base64')
  if (data.length < 16) throw new Error('ciphertext too short')
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(r.nonce, 'utf8'))
  d.setAAD(Buffer.from(r.associated_data ?? '', 'utf8'))
  d.setAuthTag(data.subarray(data.length - 16))
  return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]).toString('utf8')
}

/** The inverse of decryptResource, for round trips in tests. */
export function encryptResource(apiV3Key: string, nonce: string, associatedData: string, plaintext: string): string {
  const c = createCipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(nonce, 'utf8'))
  c.setAAD(Buffer.from(associatedData, 'utf8'))
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()])
  return Buffer.concat([ct, c.getAuthTag()]).toString('base64')
}

/** A platform certificate's uppercase hex serial and public key. */
export function readCertificate(pem: string): { serial: string; key: KeyObject; validFrom: Date; validTo: Date } {
  const cert = new X509Certificate(pem)
  return { serial: cert.serialNumber.toUpperCase(), key: cert.publicKey, validFrom: new Date(cert.validFrom), validTo: new Date(cert.validTo) }
}

export interface JsapiParams {
  appId: string
  timeStamp: string
  nonceStr: string
  package: string
  signType: 'RSA'
  paySign: string
}

/** Parameters for WeixinJSBridge.invoke('getBrandWCPayRequest', …), signed with the merchant key. */
export function jsapiParams(privateKey: KeyObject | string, appId: string, prepayId: string, now: Date, nonce = nonceStr()): JsapiParams {
  const timeStamp = String(Math.floor(now.getTime() / 1000))
  const pkg = `prepay_id=${prepayId}`
  return { appId, timeStamp, nonceStr: nonce, package: pkg, signType: 'RSA', paySign: rsaSign(privateKey, jsapiMessage(appId, timeStamp, nonce, pkg)) }
}
