import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseRefundLimits, refundUnderLimit } from './refund-limits.js'

const limits = { JPY: 50000, CNY: 100000 }

test('support refunds up to the limit of the currency, and not at all in a currency without one', () => {
  assert.equal(refundUnderLimit('support', limits, 'JPY', 50000), 'allowed')
  assert.equal(refundUnderLimit('support', limits, 'JPY', 50001), 'refused')
  assert.equal(refundUnderLimit('support', limits, 'USD', 1), 'refused')
  assert.equal(refundUnderLimit('support', {}, 'CNY', 1), 'refused')
})

test('owners and admins refund anything, stepping up above the limit; no limit, no step-up', () => {
  for (const role of ['owner', 'admin'] as const) {
    assert.equal(refundUnderLimit(role, limits, 'CNY', 100000), 'allowed')
    assert.equal(refundUnderLimit(role, limits, 'CNY', 100001), 'step-up')
    assert.equal(refundUnderLimit(role, limits, 'USD', 10 ** 9), 'allowed')
  }
  assert.equal(refundUnderLimit('owner', { toString: 1 } as never, 'toString', 5), 'step-up', 'an own key, not a prototype\'s')
  assert.equal(refundUnderLimit('support', {}, 'toString', 5), 'refused')
})

test('the Settings text: a JSON object of currencies and whole minor units; anything else is refused with why', () => {
  assert.deepEqual(parseRefundLimits('{"JPY": 50000, "CNY": 100000}'), limits)
  assert.deepEqual(parseRefundLimits('  '), {})
  for (const bad of ['[1]', '{"JPY": 1.5}', '{"JPY": -1}', '{"XXX": 1}', '{"JPY": "5"}', 'JPY 500', '{"__proto__": 1}']) {
    assert.throws(() => parseRefundLimits(bad), /refundLimits|currency|minor units|JSON/, bad)
  }
})
