/** Payment links through the client against a real Till (as integration.test.ts): create, read, list by page and by iteration, update, deactivate. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../../../test/helpers/app.js'
import { InvalidRequestError, Till } from '../src/index.js'

test('payment links: create, retrieve, list (a page, then every one by iteration), update and deactivate', async (t) => {
  const ta = await startTestApp(t)
  const till = new Till({ apiKey: ta.merchant.testKey, baseUrl: ta.baseUrl, retryBaseMs: 5 })
  const fixed = await till.paymentLinks.create({ amount: 9900, currency: 'CNY', description: 'Tea', metadata: { sku: 'T-1' } })
  assert.match(fixed.id, /^plink_[0-9A-Za-z]{24}$/)
  assert.equal(fixed.url, `${ta.baseUrl}/l/${fixed.id}`)
  ta.clock.advance(1000)
  const ranged = await till.paymentLinks.create({ minAmount: 100, maxAmount: 5000, currency: 'JPY', maxPayments: 10 })
  assert.deepEqual(await till.paymentLinks.retrieve(fixed.id), fixed)

  const page = await till.paymentLinks.list({ limit: 1 })
  assert.deepEqual(page.data.map((l) => l.id), [ranged.id])
  assert.equal(page.hasMore, true)
  const all: string[] = []
  for await (const l of till.paymentLinks.list({ limit: 1 })) all.push(l.id)
  assert.deepEqual(all, [ranged.id, fixed.id])

  const off = await till.paymentLinks.update(fixed.id, { active: false, maxPayments: 5 })
  assert.equal(off.active, false)
  assert.equal(off.maxPayments, 5)
  await assert.rejects(till.paymentLinks.create({ amount: 100, minAmount: 1, maxAmount: 2, currency: 'CNY' }), (e) => {
    assert.ok(e instanceof InvalidRequestError)
    assert.equal(e.code, 'invalid_field')
    assert.equal(e.param, 'amount')
    return true
  })
})
