import assert from 'node:assert/strict'
import { test } from 'node:test'
import { canonicalJson } from './canonical-json.js'

// The text fingerprints were made of before (keys sorted by copying each object): a key stored by one
// version of Till must match the same request's fingerprint in the next, so the two must never differ.
const reference = (body: unknown) => JSON.stringify(body, (_k, v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v)

test('keys are sorted at every depth; arrays keep their order', () => {
  assert.equal(canonicalJson(JSON.parse('{"b":1,"a":{"d":[{"z":1,"y":2}],"c":null}}')), '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}')
  assert.equal(canonicalJson(JSON.parse('{"currency":"CNY","amount":100}')), canonicalJson(JSON.parse('{"amount":100,"currency":"CNY"}')))
  assert.equal(canonicalJson(null), 'null')
  assert.equal(canonicalJson(undefined), 'null')
})

test('integer-like keys come first in numeric order, as the stored fingerprints have them', () => {
  const body = JSON.parse('{"b":1,"10":2,"9":3,"01":4,"4294967295":5,"4294967294":6,"a":7}')
  assert.equal(canonicalJson(body), '{"9":3,"10":2,"4294967294":6,"01":4,"4294967295":5,"a":7,"b":1}')
  assert.equal(canonicalJson(body), reference(body))
})

test('the same text as before for any JSON body', () => {
  let seed = 42
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed % n
  }
  const keys = ['a', 'b', 'B', 'Z', '', ' ', 'amount', 'metadata', '__proto__', 'toJSON', '0', '1', '9', '10', '01', '-1', '1.5', '4294967294', '4294967295', 'é', '😀', '\u0000', '"', '\\']
  const value = (depth: number): unknown => {
    switch (rnd(depth > 3 ? 4 : 6)) {
      case 0: return rnd(3) === 0 ? null : rnd(2) === 0
      case 1: return rnd(2) ? rnd(2_000_000) - 1_000_000 : rnd(1000) / 7 * 10 ** (rnd(60) - 30)
      case 2: case 3: return keys[rnd(keys.length)] + String.fromCharCode(rnd(0xffff)) + '\n'
      case 4: return Array.from({ length: rnd(4) }, () => value(depth + 1))
      default: return Object.fromEntries(Array.from({ length: rnd(7) }, () => [keys[rnd(keys.length)], value(depth + 1)]))
    }
  }
  for (let i = 0; i < 20_000; i++) {
    const body = JSON.parse(JSON.stringify(value(0))) // as the API parses it: own keys, `__proto__` included
    assert.equal(canonicalJson(body), reference(body), JSON.stringify(body))
  }
})
