import assert from 'node:assert/strict'
import { test } from 'node:test'
import { clientNetwork } from './client-network.js'

test('an IPv6 client is its /64, whatever the spelling; IPv4 and IPv4-mapped addresses are the IPv4 address', () => {
  const cases: [string, string][] = [
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::ffff:cb00:7109', '203.0.113.9'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ]
  for (const [ip, network] of cases) assert.equal(clientNetwork(ip), network, ip)
  assert.notEqual(clientNetwork('2001:db8:1:2::1'), clientNetwork('2001:db8:1:3::1'))
  // Not an address (a test's fake peer): counted as given.
  assert.equal(clientNetwork('unknown'), 'unknown')
})
