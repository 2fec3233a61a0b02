import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CURRENCIES, CURRENCY_CODES, displayAmount, formatAmount, isCurrency, MAX_AMOUNT, MIN_AMOUNT, type Currency } from './money.js'

test('formatAmount renders minor units through the currency table', () => {
  const cases: [number, Currency, string][] = [
    [9900, 'CNY', '¥99.00'],
    [1500, 'JPY', '¥1,500'],
    [123456, 'USD', '$1,234.56'],
    [1, 'EUR', '€0.01'],
    [1, 'JPY', '¥1'],
    [10, 'HKD', 'HK$0.10'],
    [MAX_AMOUNT, 'USD', '$999,999.99'],
    [MAX_AMOUNT, 'JPY', '¥99,999,999'],
  ]
  for (const [amount, currency, expected] of cases) {
    assert.equal(formatAmount(amount, currency), expected, `${amount} ${currency}`)
  }
})

test('displayAmount tells yuan from yen, and US from Hong Kong dollars, in both page languages', () => {
  const cases: [number, Currency, string, string][] = [
    [9900, 'CNY', 'en', '¥99.00 CNY'],
    [9900, 'CNY', 'zh-CN', '¥99.00 CNY'],
    [1500, 'JPY', 'en', '¥1,500 JPY'],
    [1500, 'JPY', 'zh-CN', '¥1,500 JPY'],
    [123456, 'USD', 'en', '$1,234.56 USD'],
    [10, 'HKD', 'en', '$0.10 HKD'],
    [1, 'EUR', 'en', '€0.01 EUR'],
    [MAX_AMOUNT, 'JPY', 'en', '¥99,999,999 JPY'],
    [MAX_AMOUNT, 'HKD', 'zh-CN', '$999,999.99 HKD'],
  ]
  for (const [amount, currency, locale, expected] of cases) {
    assert.equal(displayAmount(amount, currency, locale).replace('\u00a0', ' '), expected, `${amount} ${currency} ${locale}`)
  }
  assert.notEqual(displayAmount(100, 'CNY'), displayAmount(1, 'JPY'))
})

test('the currency table holds each currency\'s minor-unit factor', () => {
  const factors: Record<string, number> = { CNY: 100, USD: 100, EUR: 100, HKD: 100, JPY: 1 }
  assert.deepEqual([...CURRENCY_CODES].sort(), Object.keys(factors).sort())
  for (const [code, factor] of Object.entries(factors)) {
    assert.equal(CURRENCIES[code as Currency].factor, factor, code)
  }
})

test('isCurrency accepts only the table\'s codes', () => {
  const cases: [unknown, boolean][] = [
    ['CNY', true], ['JPY', true], ['USD', true], ['EUR', true], ['HKD', true],
    ['cny', false], ['GBP', false], ['', false], [100, false], [null, false], [undefined, false],
    ['toString', false], ['constructor', false], ['__proto__', false],
  ]
  for (const [value, expected] of cases) assert.equal(isCurrency(value), expected, String(value))
})

test('amount bounds are 1 and 99,999,999', () => {
  assert.equal(MIN_AMOUNT, 1)
  assert.equal(MAX_AMOUNT, 99_999_999)
})
