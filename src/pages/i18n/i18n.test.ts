import assert from 'node:assert/strict'
import { test } from 'node:test'
import { en } from './en.js'
import { negotiate, translator } from './index.js'
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

test('negotiate picks by q-value; any Chinese tag gets Simplified Chinese; English otherwise', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'en'],
    ['', 'en'],
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh-CN'],
    ['zh', 'zh-CN'],
    ['zh-Hans-CN', 'zh-CN'],
    ['zh-TW', 'zh-CN'],
    ['ZH-cn', 'zh-CN'],
    ['en-US,en;q=0.9,zh-CN;q=0.8', 'en'],
    ['fr-FR, zh;q=0.7, en;q=0.5', 'zh-CN'],
    ['fr-FR, de;q=0.9', 'en'],
    ['zh;q=0, en', 'en'],
    ['en;q=0.2, zh-CN;q=0.9', 'zh-CN'],
    ['*', 'en'],
  ]
  for (const [header, expected] of cases) assert.equal(negotiate(header), expected, String(header))
})

test('translator fills placeholders and leaves unknown ones visible', () => {
  assert.equal(translator('en')('test.pay', { amount: '¥99.00' }), 'Pay ¥99.00')
  assert.equal(translator('zh-CN')('test.pay', { amount: '¥99.00' }), '支付 ¥99.00')
  assert.equal(translator('en')('test.pay'), 'Pay {amount}')
})
