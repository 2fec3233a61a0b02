import assert from 'node:assert/strict'
import { test } from 'node:test'
import { demoBlock } from './first-start.js'

test('the first-start block says where the live key is: never shown, made in the console or with the CLI', () => {
  const text = demoBlock({ id: 'mer_1', email: 'demo@example.com', password: 'pw', keys: { test: 'sk_test_x' } }, 'http://127.0.0.1:4242')
  assert.match(text, /test key: sk_test_x/)
  assert.match(text, /The live key was made too, but is never shown/)
  assert.ok(text.includes('http://127.0.0.1:4242/console/live/keys, Create key'))
  assert.ok(text.includes('ADMIN_TOKEN=… till keys create --merchant mer_1 --mode live'))
  assert.doesNotMatch(text, /sk_live_/)
})
