import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig, parseTrustProxy } from './config.js'

test('TRUST_PROXY: off when unset, a hop count, true, or a list of proxy addresses', () => {
  const cases: [string | undefined, boolean | number | string][] = [
    [undefined, false],
    ['', false],
    ['false', false],
    ['1', 1],
    ['2', 2],
    ['true', true],
    ['loopback', 'loopback'],
    ['127.0.0.1, 10.0.0.0/8', '127.0.0.1, 10.0.0.0/8'],
  ]
  for (const [value, expected] of cases) assert.equal(parseTrustProxy(value), expected, String(value))
  assert.equal(loadConfig({}).trustProxy, false)
  assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
})
