/**
 * Alipay's OpenAPI v2 gateway signatures (docs/providers.md#alipay-alipay): RSA2 (SHA256withRSA)
 * over the sorted `key=value` parameters, the same scheme for requests, notifications and page-pay
 * URLs; answers signed over the exact text of their `…_response` value; and the certificate serials
 * of certificate mode. Shared by the adapter and `till fake alipay`, and checked against Alipay's own
 * SDK (test/sdk/alipay-*.test.ts).
 */
import { createHash, createSign, createVerify, X509Certificate, type KeyLike } from 'node:crypto'

export type Params = Record<string, string | undefined | null>

/**
 * The text that is signed: every parameter but those omitted (`sign`; a notification also drops
 * `sign_type`) and the empty ones, sorted by key, `key=value` joined by `&`, values raw (not URL-encoded).
 */
export function signingText(params: Params, omit: readonly string[] = ['sign']): string {
  return Object.keys(params)
    .filter((k) => !omit.includes(k) && params[k] !== undefined && params[k] !== null && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&')
}

export const signRsa2 = (text: string, privateKey: KeyLike): string => createSign('RSA-SHA256').update(text, 'utf8').sign(privateKey, 'base64')

export function verifyRsa2(text: string, signature: string, publicKey: KeyLike): boolean {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(publicKey, signature, 'base64')
  } catch {
    return false
  }
}

/** The parameters with their `sign` added (a request, a page-pay URL, a notification). */
export const withSign = (params: Params, privateKey: KeyLike): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') out[k] = v
  return { ...out, sign: signRsa2(signingText(out), privateKey) }
}

/** A notification's form: Alipay signs everything but `sign` and `sign_type`. */
export const verifyNotification = (form: Params, publicKey: KeyLike): boolean =>
  typeof form.sign === 'string' && verifyRsa2(signingText(form, ['sign', 'sign_type']), form.sign, publicKey)

/** `alipay.trade.query` → `alipay_trade_query_response`: the key of a method's answer. */
export const responseKey = (method: string) => `${method.replace(/\./g, '_')}_response`

export interface ResponseParts {
  /** `<method>_response`, or `error_response` when the gateway refused the call itself. */
  key: string
  /** The value's exact text as sent, which is what the signature covers. */
  text: string
  sign: string | null
  /** certificate mode: the serial of the Alipay certificate that signed. */
  certSn: string | null
}

/**
 * Finds the answer's value by its key and cuts its exact text out of the body (a JSON object, with
 * strings that may hold braces): re-serialising the parsed JSON would change spaces, escapes and
 * number forms and break the signature.
 */
export function responseParts(body: string, method: string): ResponseParts | null {
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(body)
  } catch {
    return null
  }
  if (!parsed || typeof parsed !== 'object') return null
  const key = [responseKey(method), 'error_response'].find((k) => parsed[k] && typeof parsed[k] === 'object')
  if (!key) return null
  const text = objectTextAfter(body, `"${key}"`)
  if (text === null) return null
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  return { key, text, sign: str(parsed.sign), certSn: str(parsed.alipay_cert_sn) }
}

function objectTextAfter(body: string, quotedKey: string): string | null {
  // The key at the top level: the first occurrence followed by a colon outside any string.
  let at = -1
  for (let i = body.indexOf(quotedKey); i >= 0; i = body.indexOf(quotedKey, i + 1)) {
    if (/^\s*:/.test(body.slice(i + quotedKey.length, i + quotedKey.length + 8)) && depthAt(body, i) === 1) {
      at = i
      break
    }
  }
  if (at < 0) return null
  const start = body.indexOf('{', at + quotedKey.length)
  if (start < 0) return null
  let depth = 0
  for (let i = start, inString = false; i < body.length; i++) {
    const c = body[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) return body.slice(start, i + 1)
  }
  return null
}

/** How many objects enclose position `end` (strings skipped). */
function depthAt(body: string, end: number): number {
  let depth = 0
  for (let i = 0, inString = false; i < end; i++) {
    const c = body[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
  }
  return depth
}

/**
 * A certificate's serial as Alipay computes it: MD5 (hex) of the issuer's name, its attributes in
 * reverse order as `CN=…,OU=…,O=…,C=…`, followed by the serial number in decimal.
 */
export function certSn(pem: string | X509Certificate): string {
  const cert = typeof pem === 'string' ? new X509Certificate(pem) : pem
  const issuer = cert.issuer.split('\n').reverse().join(',')
  return createHash('md5').update(issuer + BigInt(`0x${cert.serialNumber}`).toString(10), 'utf8').digest('hex')
}

/**
 * The root certificate's serial: the serials of the RSA-signed certificates in Alipay's root
 * bundle (`alipayRootCert.crt` also holds ECC and SM2 ones, which the RSA2 gateway ignores), joined by `_`.
 */
export function rootCertSn(bundle: string): string {
  return splitPem(bundle)
    .map((pem) => new X509Certificate(pem))
    .filter(isRsaSigned)
    .map((c) => certSn(c))
    .join('_')
}

/** The public key inside a certificate (certificate mode's Alipay public key certificate). */
export const certPublicKey = (pem: string) => new X509Certificate(pem).publicKey

export const splitPem = (bundle: string): string[] => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []

/** Signed with RSA (sha1/sha256WithRSAEncryption…): its signatureAlgorithm OID is under 1.2.840.113549.1.1. */
function isRsaSigned(cert: X509Certificate): boolean {
  return signatureOid(cert.raw).startsWith('2a864886f70d0101')
}

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm SEQUENCE { OID, … }, … }: the OID's bytes in hex. */
function signatureOid(der: Buffer): string {
  const header = (at: number) => {
    const first = der[at + 1]
    const lenBytes = first & 0x80 ? first & 0x7f : 0
    let len = lenBytes ? 0 : first
    for (let i = 0; i < lenBytes; i++) len = len * 256 + der[at + 2 + i]
    return { body: at + 2 + lenBytes, end: at + 2 + lenBytes + len }
  }
  const tbs = header(header(0).body)
  const algorithm = header(tbs.end)
  const oid = header(algorithm.body)
  return der.subarray(oid.body, oid.end).toString('hex')
}
