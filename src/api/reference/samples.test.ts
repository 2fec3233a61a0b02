import assert from 'node:assert/strict'
import { test } from 'node:test'
import { codeSamples } from './samples.js'

test('every curl sample is quiet (-s): no progress meter over the JSON answer', () => {
  const ops = [['POST', '/api/v1/checkout'], ['GET', '/api/v1/sessions'], ['GET', '/api/v1/sessions/{id}'], ['DELETE', '/api/v1/webhook_endpoints/{id}']]
  for (const [method, path] of ops) {
    const curl = codeSamples(method, path, 'https://pay.example.com')?.find((s) => s.label === 'curl')
    assert.ok(curl, `${method} ${path}`)
    assert.match(curl.source, /^curl -s /, `${method} ${path}`)
  }
})
