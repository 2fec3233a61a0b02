import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkCustomerEmail, isEmailAddress } from './customer-email.js'

test('a plain address is kept, trimmed; none gives null', () => {
  assert.equal(checkCustomerEmail(' buyer+tag@shop.example '), 'buyer+tag@shop.example')
  assert.equal(checkCustomerEmail(undefined), null)
  assert.equal(checkCustomerEmail(null), null)
})

test('what could add a recipient or a header is refused with the field named', () => {
  for (const bad of ['', 'buyer', 'buyer@localhost', 'a@b.example\r\nBcc: x@y.example', 'A <a@b.example>', 'a@b.example,c@d.example',
    '"a b"@c.example', 'a b@c.example', '.a@b.example', 'a..b@c.example', `${'a'.repeat(65)}@b.example`, `a@${'b'.repeat(250)}.example`]) {
    assert.equal(isEmailAddress(bad), false, bad)
    assert.throws(() => checkCustomerEmail(bad, 'email'), (e: { extra?: { param?: string } }) => e.extra?.param === 'email', bad)
  }
})
