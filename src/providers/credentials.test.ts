import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InvalidField } from '../domain/errors.js'
import { checkSettings } from './credentials.js'

const LOCAL = 'settings.apiBase: must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)'

test('settings.apiBase refuses every spelling of this machine or a private network, as the URL parser reads it', () => {
  const spellings = [
    'localhost', 'localhost.', 'LOCALHOST', 'LocalHost.', 'localhost..', 'api.localhost', 'api.localhost.', 'localhost6',
    'localhost6.localdomain6', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback', '%6cocalhost', 'ｌｏｃａｌｈｏｓｔ',
    '127.0.0.1', '127.0.0.1.', '127.1', '0x7f000001', '0x7f.1', '2130706433', '0177.0.0.1', '017700000001', '127.255.255.254',
    '0.0.0.0', '0', '[::1]', '[0:0:0:0:0:0:0:1]', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]',
    '10.0.0.1', '012.0.0.1', '0xa000001', '192.168.1.1', '172.16.0.1', '169.254.169.254', '0xa9fea9fe', '[fe80::1]', '[fd00::1]',
    '[64:ff9b::7f00:1]', '[2002:7f00:1::]',
  ]
  for (const host of spellings) {
    assert.throws(() => checkSettings({ apiBase: `https://${host}:8443/v3` }, false), (e: unknown) => e instanceof InvalidField && e.message === LOCAL, host)
  }
})

test('settings.apiBase takes public names and addresses, and anything with PROVIDER_ALLOW_PRIVATE=1', () => {
  for (const host of ['api.mch.weixin.qq.com', 'api.mch.weixin.qq.com.', 'localhost.example.com', 'mylocalhost', '8.8.8.8', '[2001:4860:4860::8888]']) {
    assert.doesNotThrow(() => checkSettings({ apiBase: `https://${host}/` }, false), host)
  }
  assert.doesNotThrow(() => checkSettings({ apiBase: 'http://localhost.:9000' }, true))
})
