import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { InvalidField } from '../../domain/errors.js'
import { selfSignedCertificate } from '../wechat/fake/cert.js'
import { keysOf, validateAlipayCredentials } from './keys.js'
import { certSn, rootCertSn } from './sign.js'

const fixture = (name: string) => readFileSync(new URL(`../../../testdata/alipay/${name}`, import.meta.url), 'utf8')

const pair = (bits = 2048) => generateKeyPairSync('rsa', { modulusLength: bits })
const app = pair()
const alipay = pair()
const now = new Date('2025-03-01T00:00:00Z')
const pkcs8 = app.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
const pkcs1 = app.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
const bare = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')
const alipayPublicKey = alipay.publicKey.export({ type: 'spki', format: 'pem' }) as string

const refusedAs = (field: string, message?: RegExp) => (e: unknown) =>
  e instanceof InvalidField && e.extra.param === `credentials.${field}` && (!message || message.test(e.message))

test('public-key mode: the private key as PKCS#8 or PKCS#1, PEM or the bare base64 Alipay\'s key tool writes', () => {
  for (const privateKey of [pkcs8, pkcs1, bare(pkcs8), bare(pkcs1)]) {
    for (const publicKey of [alipayPublicKey, bare(alipayPublicKey)]) {
      validateAlipayCredentials({ appId: '2021000000000001', privateKey, alipayPublicKey: publicKey })
      const keys = keysOf({ appId: '2021000000000001', privateKey, alipayPublicKey: publicKey })
      assert.equal(keys.certs, undefined)
      assert.equal(keys.alipayPublicKey.export({ type: 'spki', format: 'pem' }), alipayPublicKey)
    }
  }
})

test('refused: a bad APPID, a short or unreadable key, both modes at once, neither, half a certificate set', () => {
  const ok = { appId: '2021000000000001', privateKey: pkcs8, alipayPublicKey }
  assert.throws(() => validateAlipayCredentials({ ...ok, appId: 'wx123' }), refusedAs('appId'))
  assert.throws(() => validateAlipayCredentials({ ...ok, privateKey: 'not a key' }), refusedAs('privateKey'))
  assert.throws(() => validateAlipayCredentials({ ...ok, privateKey: pair(1024).privateKey.export({ type: 'pkcs8', format: 'pem' }) }), refusedAs('privateKey', /2048/))
  assert.throws(() => validateAlipayCredentials({ ...ok, alipayPublicKey: 'MIIB…' }), refusedAs('alipayPublicKey'))
  assert.throws(() => validateAlipayCredentials({ appId: ok.appId, privateKey: pkcs8 }), refusedAs('alipayPublicKey', /required/))
  assert.throws(() => validateAlipayCredentials({ ...ok, alipayRootCert: fixture('alipayRootCert.crt') }), refusedAs('alipayPublicKey', /not both/))
  assert.throws(() => validateAlipayCredentials({ appId: ok.appId, privateKey: pkcs8, alipayRootCert: fixture('alipayRootCert.crt') }), refusedAs('appCert', /required/))
})

test('certificate mode: the application certificate must hold the private key; the serials are Alipay\'s', () => {
  const appCert = selfSignedCertificate(app.publicKey, app.privateKey, now).pem
  const alipayCert = selfSignedCertificate(alipay.publicKey, alipay.privateKey, now).pem
  const c = { appId: '2021000000000001', privateKey: pkcs8, appCert, alipayCert, alipayRootCert: fixture('alipayRootCert.crt') }
  validateAlipayCredentials(c)
  const keys = keysOf(c)
  assert.deepEqual(keys.certs, { appCertSn: certSn(appCert), alipayCertSn: certSn(alipayCert), alipayRootCertSn: '687b59193f3f462dd5336e5abf83c5d8_02941eef3187dddf3d3b83462e1dfcf6' })
  assert.equal(keys.alipayPublicKey.export({ type: 'spki', format: 'pem' }), alipayPublicKey)
  // Alipay's real application certificate belongs to another key.
  assert.throws(() => validateAlipayCredentials({ ...c, appCert: fixture('appCertPublicKey_2021001161683774.crt') }), refusedAs('appCert', /this private key/))
  assert.throws(() => validateAlipayCredentials({ ...c, alipayCert: 'garbage' }), refusedAs('alipayCert'))
  assert.throws(() => validateAlipayCredentials({ ...c, alipayRootCert: 'garbage' }), refusedAs('alipayRootCert'))
  assert.equal(rootCertSn(fixture('alipayRootCert.crt')).split('_').length, 2)
})
