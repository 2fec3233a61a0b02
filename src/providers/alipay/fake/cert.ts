/**
 * The fake's certificate-mode PKI, shaped like Alipay's: a root bundle (an RSA root, which counts
 * for alipay_root_cert_sn, and an EC root, which does not), Alipay's public-key certificate and
 * each app's public-key certificate, both issued by the RSA root. Serials are computed as Alipay
 * does (../sign.ts).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { issueCertificate, type NameAttribute } from '../../fake-kit/x509.js'
import { certSn, rootCertSn } from '../sign.js'

const YEAR_MS = 365 * 24 * 3600_000
const ROOT_NAME: NameAttribute[] = [['C', 'CN'], ['O', 'Till Fake Alipay'], ['OU', 'Certification Authority'], ['CN', 'Till Fake Alipay Root CA R1']]
const EC_ROOT_NAME: NameAttribute[] = [['C', 'CN'], ['O', 'Till Fake Alipay'], ['OU', 'Certification Authority'], ['CN', 'Till Fake Alipay Root CA E1']]

export interface FakePki {
  rootKey: KeyObject
  /** alipayRootCert.crt: the EC root first, then the RSA one, as Alipay's bundle mixes algorithms. */
  rootBundle: string
  rootCertSn: string
  /** alipayCertPublicKey_RSA2.crt: Alipay's signing key, certified by the root. */
  alipayCertificate: string
  alipayCertSn: string
}

/** A new PKI, or the one a previous run saved (`saved`: the same root key signed these). */
export function makePki(now: Date, rootPair: { privateKey: KeyObject; publicKey: KeyObject }, alipayPublicKey: KeyObject, saved?: { rootBundle: string; alipayCertificate: string }): FakePki {
  if (saved) return { rootKey: rootPair.privateKey, ...saved, rootCertSn: rootCertSn(saved.rootBundle), alipayCertSn: certSn(saved.alipayCertificate) }
  const notBefore = new Date(now.getTime() - 24 * 3600_000)
  const root = issueCertificate({
    subject: ROOT_NAME, publicKey: rootPair.publicKey, issuer: { name: ROOT_NAME, privateKey: rootPair.privateKey },
    notBefore, notAfter: new Date(notBefore.getTime() + 30 * YEAR_MS), ca: true,
  })
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const ecRoot = issueCertificate({
    subject: EC_ROOT_NAME, publicKey: ec.publicKey, issuer: { name: EC_ROOT_NAME, privateKey: ec.privateKey },
    notBefore, notAfter: new Date(notBefore.getTime() + 30 * YEAR_MS), ca: true,
  })
  const alipayCertificate = issueCertificate({
    subject: [['C', 'CN'], ['O', 'Till Fake Alipay'], ['OU', 'Alipay'], ['CN', 'Till Fake Alipay signing certificate']],
    publicKey: alipayPublicKey, issuer: { name: ROOT_NAME, privateKey: rootPair.privateKey },
    notBefore, notAfter: new Date(notBefore.getTime() + 5 * YEAR_MS),
  })
  const rootBundle = ecRoot + root
  return { rootKey: rootPair.privateKey, rootBundle, rootCertSn: rootCertSn(rootBundle), alipayCertificate, alipayCertSn: certSn(alipayCertificate) }
}

/** appCertPublicKey_<appId>.crt: the app's public key, certified by the fake's root. */
export function issueAppCertificate(pki: FakePki, now: Date, app: { appId: string; sellerId: string; publicKey: KeyObject }): { pem: string; sn: string } {
  const notBefore = new Date(now.getTime() - 24 * 3600_000)
  const pem = issueCertificate({
    subject: [['C', 'CN'], ['O', 'Till Fake Merchant'], ['OU', 'Alipay'], ['CN', `${app.sellerId}-${app.appId}`]],
    publicKey: app.publicKey, issuer: { name: ROOT_NAME, privateKey: pki.rootKey },
    notBefore, notAfter: new Date(notBefore.getTime() + 5 * YEAR_MS),
  })
  return { pem, sn: certSn(pem) }
}
