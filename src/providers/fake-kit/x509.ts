/**
 * X.509 v3 certificates written as DER by hand (Node reads certificates but cannot make them), for
 * fakes whose provider hands merchants a certificate chain: a self-signed root, and leaf
 * certificates it issues. The issuer may hold an RSA or an EC key; names are ordered attribute lists.
 */
import { randomBytes, sign, type KeyObject } from 'node:crypto'

export type NameAttribute = readonly ['C' | 'O' | 'OU' | 'CN', string]

/** id-at-countryName, organizationName, organizationalUnitName, commonName. */
const ATTRIBUTE_OID = { C: '550406', O: '55040a', OU: '55040b', CN: '550403' } as const

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n])
  const bytes: number[] = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

const tlv = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts)
  return Buffer.concat([Buffer.from([tag]), length(body.length), body])
}
const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts)
const oid = (hex: string) => tlv(0x06, Buffer.from(hex, 'hex'))
const NULL = Buffer.from([0x05, 0x00])

/** sha256WithRSAEncryption (with its NULL parameters) or ecdsa-with-SHA256 (none), by the issuer's key. */
const signatureAlgorithm = (key: KeyObject) =>
  key.asymmetricKeyType === 'ec' ? sequence(oid('2a8648ce3d040302')) : sequence(oid('2a864886f70d01010b'), NULL)

/** A Name: one attribute per RDN, in the order given; the country as PrintableString, the rest UTF8String. */
function name(attributes: readonly NameAttribute[]): Buffer {
  return sequence(...attributes.map(([type, value]) =>
    tlv(0x31, sequence(oid(ATTRIBUTE_OID[type]), tlv(type === 'C' ? 0x13 : 0x0c, Buffer.from(value, 'utf8'))))))
}

/** UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/\D/g, '').slice(0, 14)
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii')) : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'))
}

const extension = (id: string, critical: boolean, value: Buffer) =>
  sequence(oid(id), ...(critical ? [Buffer.from([0x01, 0x01, 0xff])] : []), tlv(0x04, value))

/** basicConstraints and keyUsage: a CA signs certificates; a leaf signs and encrypts. */
function extensions(ca: boolean): Buffer {
  const basicConstraints = extension('551d13', true, ca ? sequence(Buffer.from([0x01, 0x01, 0xff])) : sequence())
  // BIT STRING: keyCertSign and cRLSign; or digitalSignature, nonRepudiation and keyEncipherment.
  const keyUsage = extension('551d0f', true, ca ? Buffer.from([0x03, 0x02, 0x01, 0x06]) : Buffer.from([0x03, 0x02, 0x05, 0xe0]))
  return tlv(0xa3, sequence(basicConstraints, keyUsage))
}

/** A positive serial with no leading zero byte, so its hex form is stable. */
export function randomSerial(bytes = 16): Buffer {
  const serial = randomBytes(bytes)
  serial[0] = 0x10 + (serial[0] % 0x60)
  return serial
}

export interface CertificateSpec {
  subject: readonly NameAttribute[]
  /** The key the certificate vouches for. */
  publicKey: KeyObject
  /** Who signs: its name and private key; the subject itself for a self-signed root. */
  issuer: { name: readonly NameAttribute[]; privateKey: KeyObject }
  notBefore: Date
  notAfter: Date
  ca?: boolean
  serial?: Buffer
}

/** The certificate as PEM. */
export function issueCertificate(spec: CertificateSpec): string {
  const algorithm = signatureAlgorithm(spec.issuer.privateKey)
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([0x02]))), // v3
    tlv(0x02, spec.serial ?? randomSerial()),
    algorithm,
    name(spec.issuer.name),
    sequence(time(spec.notBefore), time(spec.notAfter)),
    name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    extensions(spec.ca === true),
  )
  const signature = sign('sha256', tbs, spec.issuer.privateKey)
  const der = sequence(tbs, algorithm, tlv(0x03, Buffer.from([0]), signature))
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`
}
