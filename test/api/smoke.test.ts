import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp } from '../helpers/app.js'

test('a test-mode session can be created, paid and refunded', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  assert.equal(paid.status, 'paid')
  const refund = await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id } })
  assert.equal(refund.status, 200)
  assert.equal(refund.body.status, 'refunded')
})
