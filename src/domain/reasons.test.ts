import assert from 'node:assert/strict'
import { test } from 'node:test'
import { boundedReason, internalReason, MAX_REASON, unstorableCharacter } from './reasons.js'

test('boundedReason: a short reason as it is; a long one cut to MAX_REASON characters, never inside a surrogate pair', () => {
  assert.equal(boundedReason('the bill is late'), 'the bill is late')
  const long = boundedReason('x'.repeat(4327))
  assert.equal(long.length, MAX_REASON)
  assert.ok(long.endsWith('…'))
  const emoji = boundedReason('a'.repeat(MAX_REASON - 2) + '😀'.repeat(10))
  assert.ok(emoji.length <= MAX_REASON)
  assert.doesNotMatch(emoji, /[\ud800-\udbff]…$/)
  assert.equal(internalReason('log_1'), 'internal error, see log log_1')
})

test('unstorableCharacter: NUL and a lone surrogate are named; a whole pair and plain text pass', () => {
  assert.equal(unstorableCharacter('ab\u0000c'), 'U+0000')
  assert.equal(unstorableCharacter('a\ud800b'), 'U+D800')
  assert.equal(unstorableCharacter('a\udc00'), 'U+DC00')
  assert.equal(unstorableCharacter('商品 😀'), null)
})
