import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CURRENCIES, CURRENCY_CODES, displayAmount, formatAmount, fromDecimalText, toDecimalText, isCurrency, MAX_AMOUNT, MIN_AMOUNT, type Currency } from './money.js'

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

test('in Japanese yen and in Hong Kong Chinese Hong Kong dollars need no code; every other currency keeps it', () => {
  const cases: [number, Currency, string, string][] = [
    [1500, 'JPY', 'ja', '¥1,500'],
    [MAX_AMOUNT, 'JPY', 'ja', '¥99,999,999'],
    [9900, 'CNY', 'ja', '¥99.00 CNY'],
    [990, 'USD', 'ja', '$9.90 USD'],
    [8800, 'HKD', 'zh-HK', 'HK$88.00'],
    [8800, 'CNY', 'zh-HK', '¥88.00 CNY'],
    [1500, 'JPY', 'zh-HK', '¥1,500 JPY'],
    [8800, 'USD', 'zh-HK', '$88.00 USD'],
    [8800, 'HKD', 'ja', '$88.00 HKD'],
  ]
  for (const [amount, currency, locale, expected] of cases) {
    assert.equal(displayAmount(amount, currency, locale).replace('\u00a0', ' '), expected, `${amount} ${currency} ${locale}`)
  }
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

test('decimal text for providers: minor units to yuan text and back, exactly, for every amount the API takes', () => {
  assert.equal(toDecimalText(8888, 'CNY'), '88.88')
  assert.equal(toDecimalText(1, 'CNY'), '0.01')
  assert.equal(toDecimalText(10, 'CNY'), '0.10')
  assert.equal(toDecimalText(MAX_AMOUNT, 'CNY'), '999999.99')
  assert.equal(toDecimalText(1500, 'JPY'), '1500')
  assert.throws(() => toDecimalText(1.5, 'CNY'))
  assert.throws(() => toDecimalText(-1, 'CNY'))
  // Floating point would turn 0.29 into 28 fen (0.29 * 100 = 28.999…).
  assert.equal(fromDecimalText('0.29', 'CNY'), 29)
  assert.equal(fromDecimalText('88.8', 'CNY'), 8880)
  assert.equal(fromDecimalText('88', 'CNY'), 8800)
  assert.equal(fromDecimalText('1500', 'JPY'), 1500)
  for (const bad of ['', '-1.00', '1.001', '1e2', ' 1.00', '1.', '.5', '1,000.00']) assert.equal(fromDecimalText(bad, 'CNY'), null, bad)
  assert.equal(fromDecimalText('1.5', 'JPY'), null)
  for (const amount of [1, 9, 10, 99, 100, 101, 12345, 99_999_999]) {
    for (const c of CURRENCY_CODES) assert.equal(fromDecimalText(toDecimalText(amount, c), c), amount)
  }
})

test('fromDecimalText\'s rules: a minus sign, zeros past the currency\'s digits, rounding; each only when asked', () => {
  const signed = { signed: true }
  assert.equal(fromDecimalText('-0.01', 'CNY', signed), -1)
  assert.equal(fromDecimalText('-88.8', 'CNY', signed), -8880)
  assert.equal(fromDecimalText('12.34', 'CNY', signed), 1234)
  assert.ok(Object.is(fromDecimalText('-0.00', 'CNY', signed), 0))
  for (const bad of ['--1', '-', '+1', '-1.234', '- 1', '-1e2']) assert.equal(fromDecimalText(bad, 'CNY', signed), null, bad)
  const bill = { signed: true, trailingZeros: true }
  assert.equal(fromDecimalText('0.01000', 'CNY', bill), 1)
  assert.equal(fromDecimalText('1500.00', 'JPY', bill), 1500)
  assert.equal(fromDecimalText('-0.30', 'CNY', bill), -30)
  assert.equal(fromDecimalText('1.005', 'HKD', bill), null)
  assert.equal(fromDecimalText('0.01000', 'CNY'), null)
  const fee = { signed: true, round: true }
  assert.deepEqual(['0.05940', '0.00500', '0.00499', '-0.00500', '-0.30000', '0'].map((t) => fromDecimalText(t, 'CNY', fee)), [6, 1, 0, -1, -30, 0])
})
