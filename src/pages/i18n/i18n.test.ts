import assert from 'node:assert/strict'
import { test } from 'node:test'
import { en } from './en.js'
import { translator } from './index.js'
import { zhCN } from './zh-CN.js'

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

test('both catalogues have exactly the same keys', () => {
  assert.deepEqual(Object.keys(zhCN).sort(), Object.keys(en).sort())
})

test('every translation fills the same placeholders as the English string, and none is empty', () => {
  for (const key of Object.keys(en) as (keyof typeof en)[]) {
    assert.deepEqual(placeholders(zhCN[key]), placeholders(en[key]), key)
    assert.ok(en[key].trim() && zhCN[key].trim(), key)
  }
})

test('translator fills placeholders and leaves unknown ones visible', () => {
  assert.equal(translator('en')('test.pay', { amount: '¥99.00' }), 'Pay ¥99.00')
  assert.equal(translator('zh-CN')('test.pay', { amount: '¥99.00' }), '支付 ¥99.00')
  assert.equal(translator('en')('test.pay'), 'Pay {amount}')
})
