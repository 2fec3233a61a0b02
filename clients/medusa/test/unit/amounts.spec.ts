import { fromMinorUnits, tillCurrency, toMinorUnits } from '../../src/amounts'

describe('toMinorUnits', () => {
  it.each([
    ['19.99', 'USD', 1999],
    ['99', 'CNY', 9900],
    ['0.05', 'EUR', 5],
    ['1500', 'JPY', 1500], // no minor unit: never ×100
    ['10.004', 'HKD', 1000],
    ['10.005', 'HKD', 1001], // a tax share of a cent rounds half up
    ['1500.4', 'JPY', 1500],
    ['1500.5', 'JPY', 1501],
    ['0.995', 'USD', 100],
    ['12.', 'USD', 1200],
  ] as const)('%s %s is %d', (decimal, currency, minor) => {
    expect(toMinorUnits(decimal, currency)).toBe(minor)
  })

  it.each(['-1', '1e3', '', '1.2.3', ' 1'])('refuses %j', (decimal) => {
    expect(() => toMinorUnits(decimal, 'USD')).toThrow('not an amount')
  })

  it('refuses an amount past what a number holds exactly', () => {
    expect(() => toMinorUnits('90071992547409.92', 'USD')).toThrow('too large')
  })
})

describe('fromMinorUnits', () => {
  it.each([
    [1999, 'USD', '19.99'],
    [5, 'EUR', '0.05'],
    [9900, 'CNY', '99.00'],
    [1500, 'JPY', '1500'],
    [0, 'USD', '0.00'],
  ] as const)('%d %s is %s', (minor, currency, decimal) => {
    expect(fromMinorUnits(minor, currency)).toBe(decimal)
    expect(toMinorUnits(decimal, currency)).toBe(minor)
  })

  it('refuses a fraction of a minor unit', () => {
    expect(() => fromMinorUnits(19.5, 'USD')).toThrow('not an amount')
  })
})

describe('tillCurrency', () => {
  it('takes Medusa\'s lower-case codes', () => {
    expect(tillCurrency('jpy')).toBe('JPY')
  })

  it('names the currencies Till takes when given another', () => {
    expect(() => tillCurrency('gbp')).toThrow('Till takes CNY, USD, EUR, HKD, JPY; this payment is in GBP')
  })
})
