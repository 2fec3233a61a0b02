import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ID_PATTERN, newId, randomBase62, type IdPrefix } from './ids.js'

const PREFIXES: IdPrefix[] = ['sess', 'rec', 'ref', 'evt', 'we', 'pc', 'mer', 'key', 'att']

test('ids are a prefix and 24 base62 characters', () => {
  for (const prefix of PREFIXES) {
    const id = newId(prefix)
    assert.match(id, new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`))
    assert.match(id, ID_PATTERN(prefix))
    assert.equal(id.length, prefix.length + 1 + 24)
  }
})

test('ID_PATTERN rejects other prefixes and lengths', () => {
  const cases: [IdPrefix, string, boolean][] = [
    ['sess', `sess_${'a'.repeat(24)}`, true],
    ['sess', `sess_${'a'.repeat(23)}`, false],
    ['sess', `sess_${'a'.repeat(25)}`, false],
    ['sess', `rec_${'a'.repeat(24)}`, false],
    ['sess', `sess_${'a'.repeat(23)}-`, false],
    ['sess', `xsess_${'a'.repeat(24)}`, false],
  ]
  for (const [prefix, id, ok] of cases) assert.equal(ID_PATTERN(prefix).test(id), ok, id)
})

test('randomBase62 has the requested length and only base62 characters', () => {
  for (const n of [0, 1, 24, 32, 100]) assert.match(randomBase62(n), new RegExp(`^[0-9A-Za-z]{${n}}$`))
})

test('10,000 ids are all distinct', () => {
  const ids = new Set<string>()
  for (let i = 0; i < 10_000; i++) ids.add(newId('sess'))
  assert.equal(ids.size, 10_000)
})

test('every base62 character occurs', () => {
  const seen = new Set(randomBase62(20_000))
  assert.equal(seen.size, 62)
})
