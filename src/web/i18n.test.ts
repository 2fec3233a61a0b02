import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatTime, timeZone } from './i18n.js'

const at = new Date('2026-11-21T09:30:00.000Z')

test('a time in the reader\'s zone, in each language, with the zone\'s name after it (never inside, never in empty brackets)', () => {
  const cases: [Parameters<typeof formatTime>[1], string, string][] = [
    ['en', 'UTC', 'Nov 21, 2026, 09:30 UTC'],
    ['en', 'Asia/Tokyo', 'Nov 21, 2026, 18:30 GMT+9'],
    ['zh-CN', 'UTC', '2026年11月21日 09:30 UTC'],
    ['zh-CN', 'Asia/Shanghai', '2026年11月21日 17:30 GMT+8'],
    ['zh-HK', 'Asia/Hong_Kong', '2026年11月21日 17:30 GMT+8'],
    ['zh-HK', 'America/New_York', '2026年11月21日 04:30 EST'],
    ['ja', 'Asia/Tokyo', '2026年11月21日 18:30 JST'],
    ['ja', 'UTC', '2026年11月21日 09:30 UTC'],
  ]
  for (const [locale, zone, expected] of cases) assert.equal(formatTime(at, locale, zone).replace('\u00a0', ' '), expected, `${locale} ${zone}`)
  assert.equal(formatTime(at, 'en'), formatTime(at, 'en', 'UTC'))
  assert.match(formatTime(at, 'zh-HK', 'Asia/Tokyo'), /\u00a0GMT\+9$/)
})

test('timeZone takes an IANA zone Intl knows and nothing else', () => {
  assert.equal(timeZone('Asia/Tokyo'), 'Asia/Tokyo')
  assert.equal(timeZone('America/New_York'), 'America/New_York')
  for (const bad of [undefined, '', 'Mars/Olympus', '../etc', 'Asia/Tokyo;x=1', 'a'.repeat(80), '<script>']) assert.equal(timeZone(bad), null, String(bad))
})
