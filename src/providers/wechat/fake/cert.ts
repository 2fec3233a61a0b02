/**
 * A minimal self-signed X.509 certificate (DER by hand: Node can read certificates but not make
 * them), so the fake can play platform-certificate mode with a serial WeChat-style: uppercase hex.
 */
import { randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto'

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n])
  const bytes: number[] = []
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

const tlv = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts)
  return Buffer.concat([Buffer.from([tag]), len(body.length), body])
}
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts)
const SHA256_WITH_RSA = seq(tlv(0x06, Buffer.from('2a864886f70d01010b', 'hex')), Buffer.from([0x05, 0x00]))

function name(org: string, cn: string): Buffer {
  const attr = (oid: string, value: string) => tlv(0x31, seq(tlv(0x06, Buffer.from(oid, 'hex')), tlv(0x0c, Buffer.from(value, 'utf8'))))
  return seq(attr('55040a', org), attr('550403', cn))
}

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0')
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`
  return tlv(0x17, Buffer.from(s, 'ascii'))
}

export interface FakeCertificate {
  pem: string
  serial: string
  notBefore: Date
  notAfter: Date
}

/** How long before its issue a certificate takes effect: a clock a little behind still accepts it. */
export const NOT_BEFORE_LEAD_MS = 24 * 3600_000

/** Valid from NOT_BEFORE_LEAD_MS before `now` for `years` years (kept before 2050, where UTCTime ends). */
export function selfSignedCertificate(publicKey: KeyObject, privateKey: KeyObject, now: Date, years = 5): FakeCertificate {
  const serialBytes = randomBytes(20)
  serialBytes[0] = 0x10 + (serialBytes[0] % 0x60) // positive, no leading zero byte: the hex serial is stable
  const notBefore = new Date(now.getTime() - NOT_BEFORE_LEAD_MS)
  const notAfter = new Date(now.getTime() + years * 365 * 24 * 3600_000)
  const subject = name('Tencent (fake)', 'Tenpay.com fake platform certificate')
  const tbs = seq(
    tlv(0x02, serialBytes),
    SHA256_WITH_RSA,
    subject,
    seq(utcTime(notBefore), utcTime(notAfter)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
  )
  const signature = sign('sha256', tbs, privateKey)
  const der = seq(tbs, SHA256_WITH_RSA, tlv(0x03, Buffer.from([0]), signature))
  const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`
  return { pem, serial: new X509Certificate(pem).serialNumber.toUpperCase(), notBefore, notAfter }
}
