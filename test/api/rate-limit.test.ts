import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'

test('a key sending more than its rate gets 429 with Retry-After, and other keys are unaffected', async (t) => {
  const ta = await startTestApp(t, { rateLimitPerSecond: 5 })
  const other = await ta.newMerchant('Other')
  const answers = await Promise.all(
    Array.from({ length: 12 }, () => ta.request('GET', '/api/v1/sessions/sess_000000000000000000000000', { key: ta.merchant.testKey })),
  )
  const limited = answers.filter((a) => a.status === 429)
  assert.equal(answers.filter((a) => a.status === 404).length, 5)
  assert.equal(limited.length, 7)
  for (const a of limited) {
    assert.deepEqual(a.body, { error: 'rate limit exceeded' })
    assert.match(a.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
    assert.ok(a.headers.get('request-id'))
  }
  const fresh = await ta.request('GET', '/api/v1/sessions/sess_000000000000000000000000', { key: other.testKey })
  assert.equal(fresh.status, 404)
})
