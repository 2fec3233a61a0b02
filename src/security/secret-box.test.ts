import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { parseSecretsKey, SecretBox } from './secret-box.js'

const key = randomBytes(32)

test('seal then open returns the plaintext', () => {
  const box = new SecretBox(key)
  for (const plaintext of ['', 'x', '{"apiKey":"secret","mchId":"123"}', '密钥 🔑', 'a'.repeat(10_000)]) {
    assert.equal(box.open(box.seal(plaintext, 'pc_1'), 'pc_1'), plaintext)
  }
})

test('two seals of the same plaintext differ', () => {
  const box = new SecretBox(key)
  const a = box.seal('same', 'aad')
  const b = box.seal('same', 'aad')
  assert.notEqual(a, b)
  assert.ok(!a.includes('same'))
})

test('tampering, another AAD or another key fails to open', () => {
  const box = new SecretBox(key)
  const sealed = box.seal('credentials', 'pc_1')
  const [version, b64] = sealed.split(':')
  const raw = Buffer.from(b64, 'base64')
  const flip = (i: number) => {
    const copy = Buffer.from(raw)
    copy[i] ^= 0x01
    return `${version}:${copy.toString('base64')}`
  }
  const cases: [string, () => unknown][] = [
    ['nonce byte flipped', () => box.open(flip(0), 'pc_1')],
    ['ciphertext byte flipped', () => box.open(flip(12), 'pc_1')],
    ['tag byte flipped', () => box.open(flip(raw.length - 1), 'pc_1')],
    ['truncated', () => box.open(`${version}:${raw.subarray(0, raw.length - 1).toString('base64')}`, 'pc_1')],
    ['wrong AAD', () => box.open(sealed, 'pc_2')],
    ['empty AAD', () => box.open(sealed, '')],
    ['wrong key', () => new SecretBox(randomBytes(32)).open(sealed, 'pc_1')],
    ['unknown version', () => box.open(`v2:${b64}`, 'pc_1')],
    ['no separator', () => box.open(b64, 'pc_1')],
  ]
  for (const [label, fn] of cases) assert.throws(fn, Error, label)
})

test('a key must be 32 bytes', () => {
  for (const n of [0, 16, 31, 33, 64]) assert.throws(() => new SecretBox(randomBytes(n)), /32 bytes/, String(n))
})

test('derive gives distinct, stable 32-byte keys per purpose', () => {
  const box = new SecretBox(key)
  assert.equal(box.derive('a').length, 32)
  assert.deepEqual(box.derive('a'), box.derive('a'))
  assert.notDeepEqual(box.derive('a'), box.derive('b'))
  assert.notDeepEqual(box.derive('a'), new SecretBox(randomBytes(32)).derive('a'))
})

test('parseSecretsKey accepts 64 hex characters or base64 of 32 bytes', () => {
  const bytes = randomBytes(32)
  const ok: [string, string][] = [
    ['hex', bytes.toString('hex')],
    ['HEX', bytes.toString('hex').toUpperCase()],
    ['hex with newline', bytes.toString('hex') + '\n'],
    ['base64', bytes.toString('base64')],
    ['base64 with spaces', `  ${bytes.toString('base64')}\n`],
  ]
  for (const [label, value] of ok) assert.deepEqual(parseSecretsKey(value), bytes, label)
})

test('parseSecretsKey rejects anything that is not 32 bytes', () => {
  const bad: [string, string][] = [
    ['empty', ''],
    ['short hex', randomBytes(16).toString('hex')],
    ['63 hex', randomBytes(32).toString('hex').slice(0, 63)],
    ['base64 of 31 bytes', randomBytes(31).toString('base64')],
    ['base64 of 33 bytes', randomBytes(33).toString('base64')],
    ['words', 'correct horse battery staple'],
  ]
  for (const [label, value] of bad) assert.throws(() => parseSecretsKey(value), /SECRETS_KEY must be 32 bytes/, label)
})
