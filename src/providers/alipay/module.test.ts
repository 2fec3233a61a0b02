import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InvalidField, UnknownField } from '../../domain/errors.js'
import { alipay } from './module.js'

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
const ANDROID_ALIPAY = 'Mozilla/5.0 (Linux; Android 13; M2012K11AC) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/104 Mobile Safari/537.36 AlipayChannelId/5136 AlipayClient/10.5.36'
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

test('phones pay on the wap cashier; desktops scan the QR code unless settings.desktop is page', () => {
  assert.equal(alipay.channelFor?.(IPHONE, {}), 'wap')
  assert.equal(alipay.channelFor?.(ANDROID_ALIPAY, { desktop: 'page' }), 'wap')
  assert.equal(alipay.channelFor?.(DESKTOP, {}), 'precreate')
  assert.equal(alipay.channelFor?.(undefined, { desktop: 'qr' }), 'precreate')
  assert.equal(alipay.channelFor?.(DESKTOP, { desktop: 'page' }), 'page')
})

test('settings: apiBase checked like every provider\'s, desktop qr or page, nothing else', () => {
  alipay.validateSettings({ apiBase: 'https://openapi-sandbox.dl.alipaydev.com', desktop: 'page' }, false)
  alipay.validateSettings({ apiBase: 'http://127.0.0.1:8093' }, true)
  assert.throws(() => alipay.validateSettings({ apiBase: 'http://127.0.0.1:8093' }, false), InvalidField)
  assert.throws(() => alipay.validateSettings({ desktop: 'iframe' }, false), (e) => e instanceof InvalidField && /qr, page/.test(e.message))
  assert.throws(() => alipay.validateSettings({ gateway: 'https://x' }, false), UnknownField)
  assert.throws(() => alipay.validateCredentials({ appId: '1', mchId: '2' }), UnknownField)
})

test('a QR code is shown again on the desktop for 2 hours, never on another channel', () => {
  const createdAt = new Date('2025-03-01T00:00:00Z')
  const a = { channel: 'precreate', providerData: { channel: 'precreate', qrCode: 'https://qr.alipay.com/bax1' }, createdAt }
  const at = (ms: number) => new Date(createdAt.getTime() + ms)
  assert.deepEqual(alipay.actionShownAgain?.(a, 'precreate', at(7_199_999)), { kind: 'qr', content: 'https://qr.alipay.com/bax1' })
  assert.equal(alipay.actionShownAgain?.(a, 'precreate', at(7_200_000)), null)
  assert.equal(alipay.actionShownAgain?.(a, 'wap', at(1000)), null)
  assert.equal(alipay.actionShownAgain?.({ ...a, channel: 'page', providerData: { channel: 'page' } }, 'page', at(1000)), null)
})

test('identify names the application and the mode, never a key', () => {
  assert.deepEqual(alipay.identify({ appId: '2021000000000001', privateKey: 'secret', alipayPublicKey: 'k' }).map((l) => l.en), ['app 2021000000000001', 'public-key mode'])
  assert.deepEqual(alipay.identify({ appId: '2', privateKey: 'secret', appCert: 'x', alipayCert: 'unreadable' }).map((l) => l['zh-CN']), ['应用 2', '证书模式，支付宝证书 ?'])
})
