import assert from 'node:assert/strict'
import { test } from 'node:test'
import { classifyAddress, hostKind, type AddressKind } from './private-address.js'

test('addresses are classified by the range they fall in', () => {
  const cases: [string, AddressKind][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fc00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['172.15.255.255', 'public'],
    ['100.128.0.1', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    // IPv4 inside IPv6: mapped (both spellings), NAT64, 6to4.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    // IPv4-compatible (::/96): the embedded address decides; :: and ::1 stay IPv6's own.
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::10.1.2.3', 'private'],
    ['::169.254.169.254', 'link-local'],
    ['::0.0.0.2', 'reserved'],
    ['::8.8.8.8', 'public'],
    ['::1', 'loopback'],
    ['::', 'reserved'],
  ]
  for (const [ip, kind] of cases) assert.equal(classifyAddress(ip), kind, ip)
})

test('anything that is not an IP address is refused loudly', () => {
  for (const bad of ['', 'localhost', 'example.com', '1.2.3', '::g']) assert.throws(() => classifyAddress(bad), /not an IP address/, bad)
})

test('hostKind reads a host before DNS: an address in any notation, this machine\'s names, or null for other names', () => {
  const cases: [string, AddressKind | null][] = [
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['[::1]', 'loopback'], ['localhost', 'loopback'], ['LOCALHOST.', 'loopback'],
    ['app.localhost', 'loopback'], ['localhost6', 'loopback'], ['0x7f.1', 'loopback'], ['2130706433', 'loopback'],
    ['0.0.0.0', 'reserved'], ['::', 'reserved'], ['10.0.0.5', 'private'], ['203.0.113.7', 'reserved'], ['8.8.8.8', 'public'],
    ['pay.example.com', null], ['localhost.example.com', null], ['', null], ['exa mple', null],
  ]
  for (const [host, kind] of cases) assert.equal(hostKind(host), kind, host)
})
