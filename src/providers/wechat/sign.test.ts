/**
 * sign.ts and the fake's own crypto against known answers from the WeChat Pay SDKs' published
 * fixtures (vectors.json names each source), then round trips with keys made at runtime.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import * as fake from './fake/crypto.js'
import {
  authorization, decryptResource, encryptResource, jsapiMessage, jsapiParams, keyFor, privateKeyOf, readCertificate,
  requestMessage, responseMessage, rsaSign, rsaVerify, verifySigned,
} from './sign.js'

const V = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8'))
const certKey = () => new X509Certificate(V.rsaSha256.certificatePem).publicKey

test('SHA256withRSA over "message" with the SDK test key gives the SDK\'s published signature, on both sides', () => {
  const key = privateKeyOf(V.rsaSha256.privateKeyPem)
  assert.equal(rsaSign(key, V.rsaSha256.message), V.rsaSha256.signature)
  assert.equal(fake.signB64(key, Buffer.from(V.rsaSha256.message)), V.rsaSha256.signature)
  assert.equal(rsaVerify(certKey(), V.rsaSha256.message, V.rsaSha256.signature), true)
  assert.equal(fake.verifyB64(certKey(), Buffer.from(V.rsaSha256.message), V.rsaSha256.signature), true)
  assert.equal(rsaVerify(certKey(), 'messagE', V.rsaSha256.signature), false)
  assert.equal(new X509Certificate(V.rsaSha256.certificatePem).serialNumber, V.rsaSha256.certificateSerial)
})

test('AEAD_AES_256_GCM decrypts and encrypts the published vectors exactly', () => {
  for (const v of V.aead) {
    assert.equal(decryptResource(v.key, { nonce: v.nonce, associated_data: v.associatedData, ciphertext: v.ciphertext }), v.plaintext, v.source)
    assert.equal(encryptResource(v.key, v.nonce, v.associatedData, v.plaintext), v.ciphertext, v.source)
    assert.equal(fake.gcmSeal(v.key, v.nonce, v.associatedData, v.plaintext), v.ciphertext, v.source)
  }
})

test('a ciphertext with a flipped bit, the wrong associated data or the wrong key does not decrypt', () => {
  const v = V.aead[0]
  const flipped = Buffer.from(v.ciphertext, 'base64')
  flipped[0] ^= 1
  assert.throws(() => decryptResource(v.key, { nonce: v.nonce, associated_data: v.associatedData, ciphertext: flipped.toString('base64') }))
  assert.throws(() => decryptResource(v.key, { nonce: v.nonce, associated_data: 'transaction', ciphertext: v.ciphertext }))
  assert.throws(() => decryptResource('b7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb', { nonce: v.nonce, associated_data: v.associatedData, ciphertext: v.ciphertext }))
  assert.throws(() => decryptResource('short', { nonce: v.nonce, associated_data: v.associatedData, ciphertext: v.ciphertext }), /32 bytes/)
})

test('the SDK\'s /v3/certificates answer decrypts with its APIv3 key into the Tenpay certificate it names', () => {
  const d = V.certificateDownload
  const entry = d.response.data[0]
  const pem = decryptResource(d.apiV3Key, entry.encrypt_certificate)
  const cert = readCertificate(pem)
  assert.equal(cert.serial, d.expectedSerial)
  assert.equal(cert.serial, entry.serial_no)
  assert.equal(cert.validTo.toISOString(), d.expectedValidTo)
  assert.equal(new Date(new X509Certificate(pem).validFrom).toISOString(), d.expectedValidFrom)
})

test('the five-line request message and the Authorization layout match the Java SDK\'s credential test', () => {
  const r = V.requestMessage
  assert.equal(requestMessage(r.method, r.target, r.timestamp, r.nonce, r.body), r.message)
  assert.equal(fake.merchantSigningString(r.method, r.target, r.timestamp, r.nonce, r.body).toString('utf8'), r.message)
  const key = privateKeyOf(V.rsaSha256.privateKeyPem)
  const header = authorization({ mchId: r.mchId, serialNo: V.rsaSha256.certificateSerial, privateKey: key, method: r.method, target: r.target, body: r.body, timestamp: r.timestamp, nonce: r.nonce })
  const expected = r.authorizationLayout
    .replace('{mchid}', r.mchId).replace('{nonce}', r.nonce).replace('{timestamp}', r.timestamp)
    .replace('{serial}', V.rsaSha256.certificateSerial).replace('{signature}', rsaSign(key, r.message))
  assert.equal(header, expected)
  // What the fake parses back out of it, and that the signature verifies over the rebuilt message.
  const parsed = fake.parseAuthorization(header)!
  assert.equal(parsed.scheme, 'WECHATPAY2-SHA256-RSA2048')
  assert.deepEqual(Object.keys(parsed.fields).sort(), ['mchid', 'nonce_str', 'serial_no', 'signature', 'timestamp'])
  assert.equal(fake.verifyB64(certKey(), Buffer.from(r.message), parsed.fields.signature), true)
})

test('message layouts: every line ends in LF, an empty body still has its line', () => {
  for (const c of V.messageLayouts.request) assert.equal(requestMessage(c.args[0], c.args[1], c.args[2], c.args[3], c.args[4]), c.expected)
  for (const c of V.messageLayouts.response) {
    assert.equal(responseMessage(c.args[0], c.args[1], c.args[2]), c.expected)
    assert.equal(fake.wechatSigningString(c.args[0], c.args[1], c.args[2]).toString('utf8'), c.expected)
  }
  const j = V.jsapiMessage
  assert.equal(jsapiMessage(j.appId, j.timeStamp, j.nonceStr, j.package), j.message)
  assert.equal(fake.paySignString(j.appId, j.timeStamp, j.nonceStr, j.package).toString('utf8'), j.message)
})

test('the fake parses Authorization fields in any SDK order and refuses malformed headers', () => {
  const go = 'WECHATPAY2-SHA256-RSA2048 mchid="1",nonce_str="2",timestamp="4",serial_no="5",signature="3"'
  const java = 'WECHATPAY2-SHA256-RSA2048 mchid="1",nonce_str="2",signature="3",timestamp="4",serial_no="5"'
  const axios = 'WECHATPAY2-SHA256-RSA2048 mchid="1",serial_no="5",timestamp="4",nonce_str="2",signature="3"'
  for (const h of [go, java, axios]) assert.deepEqual(fake.parseAuthorization(h)!.fields, { mchid: '1', nonce_str: '2', signature: '3', timestamp: '4', serial_no: '5' })
  assert.equal(fake.parseAuthorization('WECHATPAY2-SHA256-RSA2048 mchid=1'), null)
  assert.equal(fake.parseAuthorization('WECHATPAY2-SHA256-RSA2048'), null)
  assert.equal(fake.parseAuthorization(undefined), null)
})

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 })

function signed(key: ReturnType<typeof pair>['privateKey'], serial: string, ts: number, body: string, nonce = 'n0nce') {
  return {
    'wechatpay-timestamp': String(ts),
    'wechatpay-nonce': nonce,
    'wechatpay-serial': serial,
    'wechatpay-signature': fake.signB64(key, fake.wechatSigningString(String(ts), nonce, body)),
  }
}

test('verification picks the key by Wechatpay-Serial: the public key by its id, else a platform certificate', () => {
  const pub = pair()
  const cert = pair()
  const now = new Date('2026-05-20T05:00:00Z')
  const ts = Math.floor(now.getTime() / 1000)
  const keys = { publicKeyId: 'PUB_KEY_ID_0114', publicKey: pub.publicKey, certificates: new Map([['5157F09EFDC096DE', cert.publicKey]]) }
  assert.deepEqual(verifySigned(signed(pub.privateKey, 'PUB_KEY_ID_0114', ts, '{"a":1}'), '{"a":1}', keys, now), { ok: true, serial: 'PUB_KEY_ID_0114' })
  assert.deepEqual(verifySigned(signed(cert.privateKey, '5157f09efdc096de', ts, ''), '', keys, now), { ok: true, serial: '5157f09efdc096de' })
  assert.equal(keyFor(keys, 'PUB_KEY_ID_0115'), undefined)
  // The right signature under the wrong serial's key is a bad signature, not an accident that passes.
  assert.deepEqual(verifySigned(signed(pub.privateKey, '5157F09EFDC096DE', ts, '{}'), '{}', keys, now), { ok: false, reason: 'bad_signature' })
  assert.deepEqual(verifySigned(signed(pub.privateKey, 'ABCDEF', ts, '{}'), '{}', keys, now), { ok: false, reason: 'unknown_serial' })
  assert.deepEqual(verifySigned(signed(pub.privateKey, 'PUB_KEY_ID_0114', ts, '{"a":1}'), '{"a":2}', keys, now), { ok: false, reason: 'bad_signature' })
})

test('timestamps 300 s or more away are stale, 299 s are fine; probes are named as probes', () => {
  const pub = pair()
  const now = new Date('2026-05-20T05:00:00Z')
  const ts = Math.floor(now.getTime() / 1000)
  const keys = { publicKeyId: 'PUB_KEY_ID_1', publicKey: pub.publicKey }
  for (const [delta, ok] of [[299, true], [-299, true], [300, false], [-300, false], [86400, false]] as const) {
    const r = verifySigned(signed(pub.privateKey, 'PUB_KEY_ID_1', ts + delta, 'x'), 'x', keys, now)
    assert.equal(r.ok, ok, `delta ${delta}`)
    if (!ok) assert.deepEqual(r, { ok: false, reason: 'stale_timestamp' })
  }
  const probe = { ...signed(pub.privateKey, 'PUB_KEY_ID_1', ts, 'x'), 'wechatpay-signature': 'WECHATPAY/SIGNTEST/abcdef' }
  assert.deepEqual(verifySigned(probe, 'x', keys, now), { ok: false, reason: 'probe' })
  assert.deepEqual(verifySigned({ 'wechatpay-timestamp': String(ts) }, 'x', keys, now), { ok: false, reason: 'missing_headers' })
})

test('JSAPI parameters: package carries prepay_id=, timeStamp is a string of seconds, paySign verifies over the 4 lines', () => {
  const m = pair()
  const p = jsapiParams(m.privateKey, 'wxd678efh567hg6787', 'wx201410272009395522657a690389285100', new Date('2026-05-20T05:00:00.900Z'), 'NONCE123')
  assert.deepEqual({ ...p, paySign: undefined }, {
    appId: 'wxd678efh567hg6787', timeStamp: '1779253200', nonceStr: 'NONCE123', package: 'prepay_id=wx201410272009395522657a690389285100', signType: 'RSA', paySign: undefined,
  })
  assert.equal(fake.verifyB64(m.publicKey, fake.paySignString(p.appId, p.timeStamp, p.nonceStr, p.package), p.paySign), true)
})

test('round trip: what the fake seals, the adapter opens', () => {
  const key = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6'
  const ct = fake.gcmSeal(key, 'fAKcOVTdU4VI', 'transaction', '{"trade_state":"SUCCESS","备注":"中文"}')
  assert.equal(decryptResource(key, { nonce: 'fAKcOVTdU4VI', associated_data: 'transaction', ciphertext: ct }), '{"trade_state":"SUCCESS","备注":"中文"}')
})
