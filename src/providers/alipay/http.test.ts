import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { test } from 'node:test'
import { ProviderError } from '../types.js'
import { verifiedAnswer } from './http.js'
import type { Keys } from './keys.js'
import { signRsa2 } from './sign.js'

const app = generateKeyPairSync('rsa', { modulusLength: 2048 })
const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 })
const keys: Keys = { privateKey: app.privateKey, alipayPublicKey: alipay.publicKey }
const M = 'alipay.trade.precreate'

/** An answer body signed over `signed`, carrying `sent` as the value's text. */
const body = (sent: string, signed = sent, extra = '') => `{"alipay_trade_precreate_response":${sent},${extra}"sign":"${signRsa2(signed, alipay.privateKey)}"}`
const unknown = (code: string) => (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === code

test('an answer is believed when the signature covers its exact text, spaces and escapes as sent', () => {
  const inner = '{ "code" : "10000", "msg":"Success","out_trade_no":"att_1","qr_code":"https://qr.alipay.com/bax1"}'
  assert.deepEqual(verifiedAnswer(M, body(inner), keys), { code: '10000', msg: 'Success', out_trade_no: 'att_1', qr_code: 'https://qr.alipay.com/bax1' })
  // Signed over the unescaped slashes but sent with JSON's `\/`, which the official Java SDK also accepts.
  const escaped = '{"code":"10000","msg":"Success","qr_code":"https:\\/\\/qr.alipay.com\\/bax1"}'
  assert.equal(verifiedAnswer<{ code?: string; qr_code?: string }>(M, body(escaped, escaped.replace(/\\\//g, '/')), keys).qr_code, 'https://qr.alipay.com/bax1')
})

test('not believed: a changed value, the re-serialised JSON, another key, no signature, another certificate', () => {
  const inner = '{"code":"10000", "msg":"Success","qr_code":"https://qr.alipay.com/bax1"}'
  assert.throws(() => verifiedAnswer(M, body(inner.replace('bax1', 'bax2'), inner), keys), unknown('invalid_response_signature'))
  assert.throws(() => verifiedAnswer(M, body(inner, JSON.stringify(JSON.parse(inner))), keys), unknown('invalid_response_signature'))
  assert.throws(() => verifiedAnswer(M, body(inner), { ...keys, alipayPublicKey: app.publicKey }), unknown('invalid_response_signature'))
  assert.throws(() => verifiedAnswer(M, `{"alipay_trade_precreate_response":${inner}}`, keys), unknown('unsigned_response'))
  // A refusal of the call itself without a signature is not believed either: it may not be Alipay's.
  assert.throws(() => verifiedAnswer(M, '{"error_response":{"code":"40002","msg":"Invalid Arguments","sub_code":"isv.invalid-app-id"}}', keys), (e) => unknown('unsigned_response')(e) && /isv\.invalid-app-id/.test((e as Error).message))
  assert.throws(() => verifiedAnswer(M, '{"other_response":{}}', keys), unknown('malformed_response'))
  assert.throws(() => verifiedAnswer(M, 'not json', keys), unknown('malformed_response'))
  const certs = { appCertSn: 'a', alipayRootCertSn: 'r', alipayCertSn: 'current' }
  assert.equal(verifiedAnswer(M, body(inner, inner, '"alipay_cert_sn":"current",'), { ...keys, certs }).code, '10000')
  assert.throws(() => verifiedAnswer(M, body(inner, inner, '"alipay_cert_sn":"rotated",'), { ...keys, certs }), unknown('alipay_cert_sn_mismatch'))
})

test('a signed refusal is believed as the refusal it is', () => {
  const inner = '{"code":"40004","msg":"Business Failed","sub_code":"ACQ.TRADE_NOT_EXIST","sub_msg":"交易不存在"}'
  assert.equal(verifiedAnswer<{ sub_code: string }>(M, body(inner), keys).sub_code, 'ACQ.TRADE_NOT_EXIST')
})
