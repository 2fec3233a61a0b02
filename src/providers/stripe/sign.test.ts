import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { parseHeader, secretsOf, signPayload, verifyWebhook } from './sign.js'

const body = Buffer.from('{"id":"evt_1","type":"checkout.session.completed"}')
const T = 1_780_000_000
// Computed here independently of signPayload: HMAC-SHA256 over "<t>.<body>".
const sig = (secret: string, t = T) => createHmac('sha256', secret).update(`${t}.${body.toString()}`).digest('hex')

test('signPayload is HMAC-SHA256 of "<t>.<body>" in hex', () => {
  assert.equal(signPayload('whsec_a', T, body), sig('whsec_a'))
})

test('a header: its timestamp and every v1; v0 and unknown schemes ignored', () => {
  assert.deepEqual(parseHeader(`t=${T},v1=AB,v0=cd,v1=ef,x=1`), { timestamp: T, v1: ['ab', 'ef'] })
  assert.deepEqual(parseHeader('v1=ab'), { timestamp: null, v1: ['ab'] })
})

test('verification: one v1 matching one secret within the tolerance; everything else refused', () => {
  const ok = { ok: true, timestamp: T }
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `t=${T},v1=${sig('whsec_a')}`, T), ok)
  // A rotation: two v1, either secret configured.
  const both = `t=${T},v1=${sig('whsec_new')},v1=${sig('whsec_old')}`
  assert.deepEqual(verifyWebhook(['whsec_old'], body, both, T), ok)
  assert.deepEqual(verifyWebhook(['whsec_new'], body, both, T), ok)
  assert.deepEqual(verifyWebhook(['whsec_x', 'whsec_new'], body, `t=${T},v1=${sig('whsec_new')}`, T), ok)
  assert.deepEqual(verifyWebhook([], body, both, T), { ok: false, reason: 'no_secret' })
  assert.deepEqual(verifyWebhook(['whsec_a'], body, undefined, T), { ok: false, reason: 'no_signature' })
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `v1=${sig('whsec_a')}`, T), { ok: false, reason: 'malformed_signature' })
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `t=${T},v0=${sig('whsec_a')}`, T), { ok: false, reason: 'malformed_signature' })
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `t=${T},v1=${sig('whsec_a')}`, T + 301), { ok: false, reason: 'too_old' })
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `t=${T},v1=${sig('whsec_a')}`, T - 301), { ok: false, reason: 'too_old' })
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `t=${T},v1=${sig('whsec_a')}`, T + 300), ok)
  assert.deepEqual(verifyWebhook(['whsec_b'], body, `t=${T},v1=${sig('whsec_a')}`, T), { ok: false, reason: 'mismatch' })
  // The timestamp is signed: moving it breaks the signature.
  assert.deepEqual(verifyWebhook(['whsec_a'], body, `t=${T + 1},v1=${sig('whsec_a')}`, T), { ok: false, reason: 'mismatch' })
  assert.deepEqual(verifyWebhook(['whsec_a'], Buffer.from(`${body} `), `t=${T},v1=${sig('whsec_a')}`, T), { ok: false, reason: 'mismatch' })
})

test('configured secrets: one, or several separated by spaces or commas', () => {
  assert.deepEqual(secretsOf(' whsec_a  whsec_b,whsec_c '), ['whsec_a', 'whsec_b', 'whsec_c'])
  assert.deepEqual(secretsOf(undefined), [])
})
