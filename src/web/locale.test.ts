import assert from 'node:assert/strict'
import { test } from 'node:test'
import { localeOf, negotiate } from './locale.js'

test('negotiate picks by q-value; Traditional Chinese for Taiwan, Hong Kong, Macao and Hant, Simplified for other Chinese; Japanese; English otherwise', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'en'],
    ['', 'en'],
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh-CN'],
    ['zh', 'zh-CN'],
    ['zh-Hans-CN', 'zh-CN'],
    ['zh-TW', 'zh-HK'],
    ['zh-HK', 'zh-HK'],
    ['zh-MO', 'zh-HK'],
    ['zh-Hant', 'zh-HK'],
    ['zh-Hant-TW', 'zh-HK'],
    ['ZH-hk', 'zh-HK'],
    ['zh-Hans-HK', 'zh-CN'],
    ['zh-SG', 'zh-CN'],
    ['zh-Hans', 'zh-CN'],
    ['zh-HK,zh;q=0.9,en;q=0.8', 'zh-HK'],
    ['en-HK,en;q=0.9,zh-HK;q=0.8', 'en'],
    ['ja', 'ja'],
    ['ja-JP', 'ja'],
    ['JA-jp', 'ja'],
    ['ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7', 'ja'],
    ['fr-FR, ja;q=0.5, zh-TW;q=0.6', 'zh-HK'],
    ['jav', 'en'],
    ['zhx', 'en'],
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

test('localeOf reads one tag, or says none of ours', () => {
  assert.equal(localeOf(' zh-hant-hk '), 'zh-HK')
  assert.equal(localeOf('zh-cmn'), 'zh-CN')
  assert.equal(localeOf('ja-Latn'), 'ja')
  assert.equal(localeOf('ko-KR'), null)
  assert.equal(localeOf('*'), null)
})
