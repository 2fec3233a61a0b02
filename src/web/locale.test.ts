import assert from 'node:assert/strict'
import { test } from 'node:test'
import { negotiate } from './locale.js'

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
