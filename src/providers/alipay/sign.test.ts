import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { certPublicKey, certSn, responseParts, rootCertSn, signingText, signRsa2, verifyNotification, verifyRsa2, withSign } from './sign.js'

const fixture = (name: string) => readFileSync(new URL(`../../../testdata/alipay/${name}`, import.meta.url), 'utf8')

test('certificate serials match the values Alipay\'s SDK expects for Alipay\'s real certificates', () => {
  assert.equal(certSn(fixture('appCertPublicKey_2021001161683774.crt')), '866efef280dec9137a87d047ac446315')
  assert.equal(certSn(fixture('alipayCertPublicKey_RSA2.crt')), '7513daaaa48aa3ba2e4018d84402479c')
  // Four certificates, two of them RSA-signed: only those count, in the bundle's order.
  assert.equal(rootCertSn(fixture('alipayRootCert.crt')), '687b59193f3f462dd5336e5abf83c5d8_02941eef3187dddf3d3b83462e1dfcf6')
  assert.equal(certPublicKey(fixture('alipayCertPublicKey_RSA2.crt')).asymmetricKeyType, 'rsa')
})

test('the signed text: sorted keys, empty values and sign left out, values raw', () => {
  const text = signingText({ method: 'alipay.trade.query', app_id: '2021', sign: 'x', notify_url: '', biz_content: '{"out_trade_no":"a&b=c"}', charset: 'utf-8' })
  assert.equal(text, 'app_id=2021&biz_content={"out_trade_no":"a&b=c"}&charset=utf-8&method=alipay.trade.query')
})

test('RSA2 signatures: verify with the pair\'s public key, fail on any change or another key', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey
  const params = withSign({ app_id: '2021', total_amount: '88.88', trade_status: 'TRADE_SUCCESS', sign_type: 'RSA2' }, privateKey)
  assert.ok(verifyRsa2(signingText(params), params.sign, publicKey))
  assert.ok(!verifyRsa2(signingText({ ...params, total_amount: '88.89' }), params.sign, publicKey))
  assert.ok(!verifyRsa2(signingText(params), params.sign, other))
  assert.ok(!verifyRsa2(signingText(params), 'not base64 at all', publicKey))
  // A notification is signed without sign_type.
  const form = { notify_id: 'n1', out_trade_no: 'att_1', total_amount: '1.00', sign_type: 'RSA2' }
  const signed = { ...form, sign: signRsa2(signingText(form, ['sign', 'sign_type']), privateKey) }
  assert.ok(verifyNotification(signed, publicKey))
  assert.ok(!verifyNotification({ ...signed, total_amount: '100.00' }, publicKey))
  assert.ok(!verifyNotification({ ...form }, publicKey))
})

test('an answer\'s signed text is cut out exactly as sent, braces and "sign" inside strings included', () => {
  const inner = '{"code":"10000","msg":"Success","out_trade_no":"att_{1}","memo":"\\"sign\\":{}","total_amount":"88.88"}'
  const body = `{"alipay_trade_query_response":${inner},"alipay_cert_sn":"abc","sign":"SIG=="}`
  assert.deepEqual(responseParts(body, 'alipay.trade.query'), { key: 'alipay_trade_query_response', text: inner, sign: 'SIG==', certSn: 'abc' })
  // Spaces kept: the signature covers the bytes, not the parsed JSON.
  const spaced = `{ "sign" : "S", "alipay_trade_close_response" : { "code" : "40004" } }`
  assert.equal(responseParts(spaced, 'alipay.trade.close')?.text, '{ "code" : "40004" }')
  const refused = '{"error_response":{"code":"40002","msg":"Invalid Arguments","sub_code":"isv.invalid-app-id"},"sign":"S"}'
  assert.equal(responseParts(refused, 'alipay.trade.query')?.key, 'error_response')
  // A nested value named like the key does not count.
  assert.equal(responseParts('{"x":{"alipay_trade_query_response":{"a":1}}}', 'alipay.trade.query'), null)
  assert.equal(responseParts('not json', 'alipay.trade.query'), null)
})
