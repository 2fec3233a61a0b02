import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InvalidField } from './errors.js'
import { buyerAmount, checkLinkAmounts, checkMaxPayments, linkUnavailable } from './payment-links.js'

const fieldOf = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    assert.ok(e instanceof InvalidField)
    return e.extra.param
  }
  assert.fail('no error')
}

test('a link has a fixed amount or a buyer-entered range, never both, never an empty range', () => {
  assert.deepEqual(checkLinkAmounts({ amount: 100, minAmount: null, maxAmount: null }), { amount: 100, minAmount: null, maxAmount: null })
  assert.deepEqual(checkLinkAmounts({ amount: null, minAmount: 100, maxAmount: 100 }), { amount: null, minAmount: 100, maxAmount: 100 })
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: 100, minAmount: 50, maxAmount: null })), 'amount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: null, minAmount: null, maxAmount: null })), 'amount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: null, minAmount: null, maxAmount: 500 })), 'minAmount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: null, minAmount: 500, maxAmount: null })), 'maxAmount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: null, minAmount: 500, maxAmount: 499 })), 'maxAmount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: Number.NaN, minAmount: null, maxAmount: null })), 'amount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: null, minAmount: 0.5, maxAmount: 100 })), 'minAmount')
  assert.equal(fieldOf(() => checkLinkAmounts({ amount: null, minAmount: 1, maxAmount: 100_000_000 })), 'maxAmount')
  assert.equal(fieldOf(() => checkMaxPayments(0)), 'maxPayments')
  assert.equal(fieldOf(() => checkMaxPayments(Number.NaN)), 'maxPayments')
  assert.equal(checkMaxPayments(null), null)
})

test('a link is unavailable when inactive, expired, used up, or when open sessions hold every payment left', () => {
  const now = new Date('2026-01-01T00:00:00Z')
  const link = { active: true, expiresAt: null, maxPayments: null, paidCount: 0 }
  assert.equal(linkUnavailable(link, 5, now), null)
  assert.equal(linkUnavailable({ ...link, active: false }, 0, now), 'inactive')
  assert.equal(linkUnavailable({ ...link, expiresAt: now }, 0, now), 'expired')
  assert.equal(linkUnavailable({ ...link, expiresAt: new Date(now.getTime() + 1) }, 0, now), null)
  assert.equal(linkUnavailable({ ...link, maxPayments: 2, paidCount: 2 }, 0, now), 'used_up')
  assert.equal(linkUnavailable({ ...link, maxPayments: 2, paidCount: 1 }, 1, now), 'busy')
  assert.equal(linkUnavailable({ ...link, maxPayments: 2, paidCount: 1 }, 0, now), null)
})

test('the buyer\'s amount is the fixed one, or typed decimal text within the range', () => {
  assert.equal(buyerAmount({ amount: 990, minAmount: null, maxAmount: null }, 'CNY', 'anything'), 990)
  const range = { amount: null, minAmount: 500, maxAmount: 100_000 }
  assert.equal(buyerAmount(range, 'CNY', '88.80'), 8880)
  assert.equal(buyerAmount(range, 'CNY', ' 1,000 '), 100_000)
  assert.equal(buyerAmount(range, 'CNY', '1000.01'), null)
  assert.equal(buyerAmount(range, 'CNY', '4.99'), null)
  assert.equal(buyerAmount(range, 'CNY', '5.001'), null)
  assert.equal(buyerAmount(range, 'CNY', '-6'), null)
  assert.equal(buyerAmount(range, 'CNY', undefined), null)
  assert.equal(buyerAmount({ amount: null, minAmount: 100, maxAmount: 5000 }, 'JPY', '1500'), 1500)
  assert.equal(buyerAmount({ amount: null, minAmount: 100, maxAmount: 5000 }, 'JPY', '1500.5'), null)
})
