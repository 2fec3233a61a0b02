import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkTimeZone } from './time-zone.js'

test('IANA names are kept; anything else is refused with the field named', () => {
  assert.equal(checkTimeZone(' Asia/Tokyo '), 'Asia/Tokyo')
  assert.equal(checkTimeZone('UTC'), 'UTC')
  for (const bad of ['', 'Mars/Olympus', 'GMT+8 (China)', '../etc', 'Asia/Tokyo\nX']) assert.throws(() => checkTimeZone(bad), (e: { extra?: { param?: string } }) => e.extra?.param === 'timeZone', bad)
})
