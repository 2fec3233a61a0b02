import assert from 'node:assert/strict'
import { test } from 'node:test'
import { en as consoleEn } from '../../console/i18n/en.js'
import { ja as consoleJa } from '../../console/i18n/ja.js'
import { zhCN as consoleZhCN } from '../../console/i18n/zh-CN.js'
import { zhHK as consoleZhHK } from '../../console/i18n/zh-HK.js'
import { secondFactorEn } from '../../console/i18n/second-factor/en.js'
import { secondFactorJa } from '../../console/i18n/second-factor/ja.js'
import { secondFactorZhCN } from '../../console/i18n/second-factor/zh-CN.js'
import { secondFactorZhHK } from '../../console/i18n/second-factor/zh-HK.js'
import { LOCALES } from '../../web/locale.js'
import { en } from './en.js'
import { translator } from './index.js'
import { ja } from './ja.js'
import { zhCN } from './zh-CN.js'
import { zhHK } from './zh-HK.js'

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

// Every language Till speaks, on both sides: a language added to LOCALES without its files fails here.
const SIDES = {
  pages: { en, 'zh-CN': zhCN, 'zh-HK': zhHK, ja },
  console: { en: consoleEn, 'zh-CN': consoleZhCN, 'zh-HK': consoleZhHK, ja: consoleJa },
  'console (second factor)': { en: secondFactorEn, 'zh-CN': secondFactorZhCN, 'zh-HK': secondFactorZhHK, ja: secondFactorJa },
} satisfies Record<string, Record<(typeof LOCALES)[number], Record<string, string>>>

for (const [side, catalogues] of Object.entries(SIDES)) {
  test(`${side}: every catalogue has exactly the English keys`, () => {
    assert.deepEqual(Object.keys(catalogues).sort(), [...LOCALES].sort())
    for (const [locale, catalogue] of Object.entries(catalogues)) assert.deepEqual(Object.keys(catalogue).sort(), Object.keys(catalogues.en).sort(), locale)
  })

  test(`${side}: every translation fills the English string's placeholders, none is empty, and none is left in English`, () => {
    const english = catalogues.en as Record<string, string>
    for (const [locale, catalogue] of Object.entries(catalogues) as [string, Record<string, string>][]) {
      for (const key of Object.keys(english)) {
        assert.deepEqual(placeholders(catalogue[key]), placeholders(english[key]), `${locale} ${key}`)
        assert.ok(catalogue[key].trim(), `${locale} ${key}`)
      }
      if (locale === 'en') continue
      // A sentence copied over untranslated: words of English with no CJK character at all.
      const untranslated = Object.keys(english).filter((k) => /[a-z]{3,} [a-z]{3,}/i.test(catalogue[k]) && !/[\u3040-\u30ff\u3400-\u9fff]/.test(catalogue[k]))
      assert.deepEqual(untranslated, [], locale)
    }
  })
}

test('the Hong Kong catalogues are written in Traditional characters, the Japanese ones in Japanese', () => {
  // Characters only Simplified Chinese writes this way (their Traditional forms: 們 這 對 過 於 …).
  const simplified = /[们这对过于说请现时间简体认设实钱账户还开关页码单认证记录应发删复选输没软转达错]/
  for (const [name, catalogue] of [['pages', zhHK], ['console', consoleZhHK], ['console (second factor)', secondFactorZhHK]] as const) {
    const hits = Object.entries(catalogue).filter(([, s]) => simplified.test(s)).map(([k, s]) => `${k}: ${s}`)
    assert.deepEqual(hits, [], name)
  }
  for (const [name, catalogue] of [['pages', ja], ['console', consoleJa], ['console (second factor)', secondFactorJa]] as const) {
    // Every sentence has kana: a sentence of kanji alone is Chinese pasted in, not Japanese.
    const noKana = Object.entries(catalogue).filter(([, s]) => /[\u3400-\u9fff].*。$/.test(s) && !/[\u3040-\u30ff]/.test(s)).map(([k]) => k)
    assert.deepEqual(noKana, [], name)
  }
})

test('translator fills placeholders and leaves unknown ones visible', () => {
  assert.equal(translator('en')('test.pay', { amount: '¥99.00' }), 'Pay ¥99.00')
  assert.equal(translator('zh-CN')('test.pay', { amount: '¥99.00' }), '支付 ¥99.00')
  assert.equal(translator('zh-HK')('test.pay', { amount: 'HK$88.00' }), '支付 HK$88.00')
  assert.equal(translator('ja')('test.pay', { amount: '¥1,500' }), '¥1,500を支払う')
  assert.equal(translator('en')('test.pay'), 'Pay {amount}')
})
