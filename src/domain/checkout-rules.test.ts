import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkCancelUrl, checkMetadata, checkSuccessUrl, expirySeconds, type Mode } from './checkout-rules.js'
import { InvalidField } from './errors.js'

function throwsField(fn: () => unknown, message: string, label: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InvalidField, label)
    assert.equal(e.status, 400, label)
    assert.equal(e.message, message, label)
    return true
  }, label)
}

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']))

test('metadata within limits is accepted', () => {
  const cases: [unknown, Record<string, string>][] = [
    [undefined, {}],
    [{}, {}],
    [{ order: '42' }, { order: '42' }],
    [{ empty: '' }, { empty: '' }],
    [keys(50), keys(50)],
    [{ ['k'.repeat(40)]: 'v'.repeat(500) }, { ['k'.repeat(40)]: 'v'.repeat(500) }],
    // Lengths are characters (code points): an emoji counts once, not as two UTF-16 units.
    [{ ['😀'.repeat(40)]: '😀'.repeat(500) }, { ['😀'.repeat(40)]: '😀'.repeat(500) }],
  ]
  for (const [input, expected] of cases) assert.deepEqual(checkMetadata(input), expected)
})

test('metadata outside limits names the field', () => {
  const cases: [unknown, string][] = [
    [null, 'metadata: must be an object of string values'],
    ['x', 'metadata: must be an object of string values'],
    [42, 'metadata: must be an object of string values'],
    [['a'], 'metadata: must be an object of string values'],
    [keys(51), 'metadata: must have at most 50 keys'],
    [{ ['k'.repeat(41)]: 'v' }, 'metadata: keys must be 1 to 40 characters'],
    [{ '': 'v' }, 'metadata: keys must be 1 to 40 characters'],
    [{ n: 1 }, 'metadata.n: must be a string'],
    [{ n: null }, 'metadata.n: must be a string'],
    [{ n: { a: 'b' } }, 'metadata.n: must be a string'],
    [{ long: 'v'.repeat(501) }, 'metadata.long: must be at most 500 characters'],
    [{ long: '😀'.repeat(501) }, 'metadata.long: must be at most 500 characters'],
    [{ ['😀'.repeat(41)]: 'v' }, 'metadata: keys must be 1 to 40 characters'],
  ]
  for (const [input, message] of cases) throwsField(() => checkMetadata(input), message, JSON.stringify(input).slice(0, 60))
})

test('successUrl accepted per mode', () => {
  const cases: [string | undefined, Mode, string | null][] = [
    [undefined, 'test', null],
    [undefined, 'live', null],
    ['https://shop.example.com/done', 'test', 'https://shop.example.com/done'],
    ['https://shop.example.com/done?o=1', 'live', 'https://shop.example.com/done?o=1'],
    ['http://localhost:3000/done', 'test', 'http://localhost:3000/done'],
    ['http://127.0.0.1/done', 'test', 'http://127.0.0.1/done'],
    ['https://e.com/' + 'a'.repeat(2048 - 'https://e.com/'.length), 'live', 'https://e.com/' + 'a'.repeat(2048 - 'https://e.com/'.length)],
  ]
  for (const [value, mode, expected] of cases) assert.equal(checkSuccessUrl(value, mode), expected, `${value} ${mode}`)
})

test('successUrl rejected per mode', () => {
  const notUrl = 'successUrl: must be an absolute http or https URL'
  const cases: [string, Mode, string][] = [
    ['/relative', 'test', notUrl],
    ['not a url', 'live', notUrl],
    ['ftp://example.com/x', 'test', notUrl],
    ['javascript:alert(1)', 'test', notUrl],
    ['http://shop.example.com/done', 'test', 'successUrl: must use https (http only for localhost in test mode)'],
    ['http://shop.example.com/done', 'live', 'successUrl: must use https in live mode'],
    ['http://localhost:3000/done', 'live', 'successUrl: must use https in live mode'],
    ['http://127.0.0.1/done', 'live', 'successUrl: must use https in live mode'],
    ['https://e.com/' + 'a'.repeat(2049 - 'https://e.com/'.length), 'test', 'successUrl: must be at most 2048 characters'],
  ]
  for (const [value, mode, message] of cases) throwsField(() => checkSuccessUrl(value, mode), message, `${value.slice(0, 40)} ${mode}`)
})

test('cancelUrl follows the rules of successUrl, and its errors name cancelUrl', () => {
  assert.equal(checkCancelUrl(undefined, 'live'), null)
  for (const [value, mode] of [['https://shop.example.com/cart', 'live'], ['http://localhost:3000/cart', 'test'], ['http://127.0.0.1/cart', 'test']] as [string, Mode][]) {
    assert.equal(checkCancelUrl(value, mode), value, `${value} ${mode}`)
  }
  const cases: [string, Mode, string][] = [
    ['/cart', 'test', 'cancelUrl: must be an absolute http or https URL'],
    ['javascript:alert(1)', 'live', 'cancelUrl: must be an absolute http or https URL'],
    ['http://shop.example.com/cart', 'test', 'cancelUrl: must use https (http only for localhost in test mode)'],
    ['http://localhost:3000/cart', 'live', 'cancelUrl: must use https in live mode'],
    ['https://e.com/' + 'a'.repeat(2049 - 'https://e.com/'.length), 'test', 'cancelUrl: must be at most 2048 characters'],
  ]
  for (const [value, mode, message] of cases) throwsField(() => checkCancelUrl(value, mode), message, `${value.slice(0, 40)} ${mode}`)
})

test('expirySeconds: default 3600, bounds 60 and 86400', () => {
  const ok: [number | undefined, number][] = [[undefined, 3600], [60, 60], [3600, 3600], [86400, 86400]]
  for (const [value, expected] of ok) assert.equal(expirySeconds(value), expected, String(value))
  const bad: [number, string][] = [
    [59, 'expiresInSeconds: must be at least 60'],
    [0, 'expiresInSeconds: must be at least 60'],
    [-1, 'expiresInSeconds: must be at least 60'],
    [86401, 'expiresInSeconds: must be at most 86400'],
  ]
  for (const [value, message] of bad) throwsField(() => expirySeconds(value), message, String(value))
})
