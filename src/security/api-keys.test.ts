import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { apiKeyMode, generateApiKey, generateWebhookSecret, hashApiKey, hashPassword, verifyPassword } from './api-keys.js'

test('generated keys: sk_<mode>_ + 32 base62, sha256 hash, last 4', () => {
  for (const mode of ['test', 'live'] as const) {
    const { key, hash, last4 } = generateApiKey(mode)
    assert.match(key, new RegExp(`^sk_${mode}_[0-9A-Za-z]{32}$`))
    assert.equal(hash, createHash('sha256').update(key).digest('hex'))
    assert.match(hash, /^[0-9a-f]{64}$/)
    assert.equal(hash, hashApiKey(key))
    assert.equal(last4, key.slice(-4))
    assert.equal(apiKeyMode(key), mode)
  }
  assert.notEqual(generateApiKey('test').key, generateApiKey('test').key)
})

test('hashApiKey is sha256 hex', () => {
  assert.equal(hashApiKey(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  assert.equal(hashApiKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
})

test('apiKeyMode: the mode of a well-formed key, null for anything else', () => {
  const body = 'A'.repeat(32)
  const cases: [string, 'test' | 'live' | null][] = [
    [`sk_test_${body}`, 'test'],
    [`sk_live_${body}`, 'live'],
    [`sk_test_${'0aZ9'.repeat(8)}`, 'test'],
    ['', null],
    ['sk_test_', null],
    [`sk_test_${body.slice(1)}`, null],
    [`sk_test_${body}A`, null],
    [`sk_prod_${body}`, null],
    [`SK_TEST_${body}`, null],
    [`pk_test_${body}`, null],
    [`sk_test_${body.slice(1)}-`, null],
    [`sk_test_${body.slice(1)}_`, null],
    [` sk_test_${body}`, null],
    [`sk_test_${body}\n`, null],
    [`Bearer sk_test_${body}`, null],
    [`whsec_${body}`, null],
  ]
  for (const [key, mode] of cases) assert.equal(apiKeyMode(key), mode, JSON.stringify(key))
})

test('webhook secrets are whsec_ + 32 base62', () => {
  assert.match(generateWebhookSecret(), /^whsec_[0-9A-Za-z]{32}$/)
})

test('hashPassword stores scrypt parameters and a salt; verifyPassword checks it', async () => {
  const stored = await hashPassword('correct horse')
  const parts = stored.split('$')
  assert.equal(parts.length, 6)
  assert.equal(parts[0], 'scrypt')
  assert.deepEqual(parts.slice(1, 4).map(Number), [16384, 8, 1])
  assert.equal(Buffer.from(parts[4], 'base64').length, 16)
  assert.equal(Buffer.from(parts[5], 'base64').length, 32)
  assert.ok(!stored.includes('correct horse'))

  assert.equal(await verifyPassword('correct horse', stored), true)
  assert.equal(await verifyPassword('correct horsE', stored), false)
  assert.equal(await verifyPassword('', stored), false)
  // Same password, fresh salt: a different hash, both verify.
  const again = await hashPassword('correct horse')
  assert.notEqual(again, stored)
  assert.equal(await verifyPassword('correct horse', again), true)
})

test('verifyPassword rejects malformed stored hashes', async () => {
  for (const stored of ['', 'plain', 'bcrypt$10$x$y$z$w', 'scrypt$16384$8$1$salt']) {
    assert.equal(await verifyPassword('pw', stored), false, stored)
  }
})
