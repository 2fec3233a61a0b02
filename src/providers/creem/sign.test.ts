/**
 * sign.ts and the fake's own crypto against the known answers in vectors.json (the HMAC standard's
 * vector and an independent implementation's literal answers), then the failure cases.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import * as fake from './fake/crypto.js'
import { returnCanonical, returnSignature, verifyReturnSignature, verifyWebhook, webhookSignature } from './sign.js'

const V = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8'))

test('creem-signature: the published HMAC-SHA256 answers, on both sides, and they verify', () => {
  for (const v of V.webhook) {
    assert.equal(webhookSignature(v.secret, Buffer.from(v.body)), v.signature, v.source)
    assert.equal(fake.signBody(v.secret, v.body), v.signature, v.source)
    assert.deepEqual(verifyWebhook(v.secret, Buffer.from(v.body), v.signature), { ok: true })
    // Header values arrive as Node gives them: surrounding space and upper case still match.
    assert.deepEqual(verifyWebhook(v.secret, Buffer.from(v.body), ` ${v.signature.toUpperCase()} `), { ok: true })
  }
})

test('a webhook is refused for a changed byte, another secret, a missing header or secret, and a malformed value', () => {
  const v = V.webhook[1]
  const body = Buffer.from(v.body)
  assert.deepEqual(verifyWebhook(v.secret, Buffer.from('{"id":"evt_2"}'), v.signature), { ok: false, reason: 'mismatch' })
  assert.deepEqual(verifyWebhook(v.secret, Buffer.from(`${v.body} `), v.signature), { ok: false, reason: 'mismatch' })
  assert.deepEqual(verifyWebhook('whsec-other', body, v.signature), { ok: false, reason: 'mismatch' })
  assert.deepEqual(verifyWebhook(v.secret, body, undefined), { ok: false, reason: 'no_signature' })
  assert.deepEqual(verifyWebhook(v.secret, body, ''), { ok: false, reason: 'no_signature' })
  assert.deepEqual(verifyWebhook(undefined, body, v.signature), { ok: false, reason: 'no_secret' })
  assert.deepEqual(verifyWebhook('', body, v.signature), { ok: false, reason: 'no_secret' })
  assert.deepEqual(verifyWebhook(v.secret, body, `sha256=${v.signature}`), { ok: false, reason: 'malformed_signature' })
  assert.deepEqual(verifyWebhook(v.secret, body, v.signature.slice(1)), { ok: false, reason: 'malformed_signature' })
  assert.equal(V.unverifiableSample.creemSignature.length, 64)
})

test('the success redirect: canonical string and signature match the published answers, on both sides', () => {
  for (const v of V.redirect) {
    const q = new URLSearchParams(v.query)
    assert.equal(returnCanonical(q, v.apiKey), v.canonical, v.source)
    assert.equal(returnSignature(q, v.apiKey), v.signature, v.source)
    assert.deepEqual(verifyReturnSignature(q, v.apiKey), { ok: true })
  }
  // The fake is given absent values as null or empty, as it builds them.
  assert.equal(fake.signRedirect([['checkout_id', 'ch_123'], ['subscription_id', 'sub_123'], ['customer_id', 'cust_123'], ['product_id', 'prod_test']], 'creem_test_apikey'), V.redirect[0].signature)
  assert.equal(fake.signRedirect([['checkout_id', 'ch_123'], ['order_id', null], ['subscription_id', ''], ['product_id', 'prod_test']], 'creem_test_apikey'), V.redirect[1].signature)
})

test('the redirect signature covers the order of the parameters, every value, and the API key', () => {
  const v = V.redirect[0]
  const ok = new URLSearchParams(v.query)
  const cases: Array<[string, URLSearchParams, string | undefined, string]> = [
    ['another key', ok, 'creem_test_other', 'mismatch'],
    ['no key configured', ok, undefined, 'no_key'],
    ['a changed value', new URLSearchParams(v.query.replace('ch_123', 'ch_124')), v.apiKey, 'mismatch'],
    ['reordered parameters', new URLSearchParams(v.query.replace('checkout_id=ch_123&subscription_id=sub_123', 'subscription_id=sub_123&checkout_id=ch_123')), v.apiKey, 'mismatch'],
    ['an added parameter', new URLSearchParams(`request_id=att_x&${v.query}`), v.apiKey, 'mismatch'],
    ['no signature', new URLSearchParams(v.query.replace(/&signature=.*/, '')), v.apiKey, 'no_signature'],
    ['two signatures', new URLSearchParams(`${v.query}&signature=${v.signature}`), v.apiKey, 'duplicate_signature'],
    ['a signature that is not hex', new URLSearchParams(v.query.replace(v.signature, 'x'.repeat(64))), v.apiKey, 'mismatch'],
  ]
  for (const [name, q, key, reason] of cases) assert.deepEqual(verifyReturnSignature(q, key), { ok: false, reason }, name)
})
