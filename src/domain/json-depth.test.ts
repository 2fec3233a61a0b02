import assert from 'node:assert/strict'
import { test } from 'node:test'
import { jsonTooDeep } from './json-depth.js'

test('nesting is counted outside strings only', () => {
  assert.equal(jsonTooDeep('[[[1]]]', 3), false)
  assert.equal(jsonTooDeep('[[[[1]]]]', 3), true)
  assert.equal(jsonTooDeep('{"a":{"b":{"c":1}}}', 3), false)
  assert.equal(jsonTooDeep('{"a":"[[[[[[[[","b":"\\"[[[[["}', 2), false)
  assert.equal(jsonTooDeep(Buffer.from('['.repeat(10_000)), 32), true)
  assert.equal(jsonTooDeep('[1],[2],[3],[4]', 1), false)
})
