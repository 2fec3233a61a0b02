import assert from 'node:assert/strict'
import { test } from 'node:test'
import { noRouteReason, routeUnhinted, type RouteCandidate } from './provider-routing.js'

const cfg = (provider: string, label: string, o: Partial<RouteCandidate> = {}): RouteCandidate => ({ provider, label, isDefault: false, enabled: true, fits: true, ...o })
const labels = (cs: RouteCandidate[]) => cs.map((c) => `${c.provider}/${c.label}`)

test('the default is used when it fits, even beside other fitting configurations', () => {
  const r = routeUnhinted([cfg('wechat', 'cn', { isDefault: true }), cfg('wechat', 'global'), cfg('alipay', 'main', { isDefault: true })])
  assert.deepEqual(labels(r.routes), ['wechat/cn', 'alipay/main'])
  assert.deepEqual(r.ambiguous, [])
})

test('a default that does not list the currency gives way to the one enabled configuration that does', () => {
  const r = routeUnhinted([cfg('wechat', 'cn', { isDefault: true, fits: false }), cfg('wechat', 'jp'), cfg('wechat', 'old-jp', { enabled: false })])
  assert.deepEqual(labels(r.routes), ['wechat/jp'])
})

test('a disabled default turns its provider off for unhinted sessions; a provider with nothing fitting is left out', () => {
  const r = routeUnhinted([cfg('wechat', 'cn', { isDefault: true, enabled: false }), cfg('wechat', 'hk'), cfg('creem', 'main', { isDefault: true, fits: false }), cfg('alipay', 'main', { isDefault: true })])
  assert.deepEqual(labels(r.routes), ['alipay/main'])
  assert.deepEqual(r.ambiguous, [])
})

test('no default at all: the one enabled configuration that fits', () => {
  assert.deepEqual(labels(routeUnhinted([cfg('wechat', 'jp'), cfg('wechat', 'cn', { fits: false })]).routes), ['wechat/jp'])
})

test('two fitting configurations and no fitting default: the provider is ambiguous, the others still route', () => {
  const r = routeUnhinted([cfg('wechat', 'cn', { isDefault: true, fits: false }), cfg('wechat', 'jp-b'), cfg('wechat', 'jp-a'), cfg('alipay', 'main', { isDefault: true })])
  assert.deepEqual(labels(r.routes), ['alipay/main'])
  assert.deepEqual(r.ambiguous, [{ provider: 'wechat', labels: ['jp-a', 'jp-b'] }])
})

test('the reason names what would take the session: the ambiguous labels, a disabled one, or the providers that can', () => {
  const ambiguous = [cfg('wechat', 'jp-a'), cfg('wechat', 'jp-b')]
  assert.equal(noRouteReason('JPY', ambiguous, routeUnhinted(ambiguous), ['wechat']),
    'no provider available for JPY in live mode: several configurations take it (wechat/jp-a, wechat/jp-b); name one in providerHints or make one the default')
  const disabled = [cfg('wechat', 'cn', { isDefault: true, fits: false }), cfg('wechat', 'jp', { enabled: false })]
  assert.equal(noRouteReason('JPY', disabled, routeUnhinted(disabled), ['wechat']), 'no provider available for JPY in live mode: enable wechat/jp')
  const offDefault = [cfg('wechat', 'cn', { isDefault: true, enabled: false }), cfg('wechat', 'spare')]
  assert.equal(noRouteReason('CNY', offDefault, routeUnhinted(offDefault), ['wechat']), 'no provider available for CNY in live mode: enable wechat/cn')
  const none = [cfg('wechat', 'cn', { isDefault: true, fits: false })]
  assert.equal(noRouteReason('JPY', none, routeUnhinted(none), ['alipay', 'wechat']),
    'no provider available for JPY in live mode: add an enabled configuration of alipay or wechat that lists JPY')
  const small = [cfg('creem', 'main', { isDefault: true, fits: false, lists: true })]
  assert.equal(noRouteReason('USD', small, routeUnhinted(small), ['creem']), 'no provider available for USD in live mode: the amount is below the smallest creem/main takes')
  assert.equal(noRouteReason('XYZ', [], routeUnhinted([]), []), 'no provider available for XYZ in live mode: no provider Till supports takes XYZ')
})
