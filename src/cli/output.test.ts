import assert from 'node:assert/strict'
import { test } from 'node:test'
import { money } from './output.js'

test('money: the major unit, written as Intl writes it in English, with the currency code', () => {
  assert.equal(money(12345, 'USD'), '$123.45 USD')
  assert.equal(money(1500, 'JPY'), '¥1,500 JPY')
  assert.equal(money(1234, 'CNY'), '¥12.34 CNY')
  assert.equal(money(99_999_999, 'EUR'), '€999,999.99 EUR')
  assert.equal(money(5, 'HKD'), '$0.05 HKD')
  // A currency a newer Till knows and this CLI does not: the API's own figures, not a guess.
  assert.equal(money(1234, 'GBP'), '1234 GBP (minor units)')
})
