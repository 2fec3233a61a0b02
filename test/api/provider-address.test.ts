/**
 * SSRF guard for provider API calls: settings.apiBase is https to a public address unless the operator
 * sets PROVIDER_ALLOW_PRIVATE=1 (the local fakes), checked on save and again on every connection.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startAttempt } from '../../src/services/attempts.js'
import { startTestApp } from '../helpers/app.js'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'
import { liveWechat } from '../helpers/wechat.js'

test('without PROVIDER_ALLOW_PRIVATE, settings.apiBase must be https and must not name a private address', async (t) => {
  const ta = await startTestApp(t, { providerAllowPrivate: false })
  const add = (apiBase: string, label: string) =>
    ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label, credentials: wechatCredentials(), settings: { apiBase } })
  const cases: Array<[string, string]> = [
    ['http://api.mch.weixin.qq.com', 'settings.apiBase: must be an https URL (PROVIDER_ALLOW_PRIVATE=1 allows http for a local fake)'],
    ['https://127.0.0.1:8443', 'settings.apiBase: must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)'],
    ['https://[::127.0.0.1]/', 'settings.apiBase: must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)'],
    ['https://[::ffff:10.0.0.1]/', 'settings.apiBase: must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)'],
    ['https://169.254.169.254/', 'settings.apiBase: must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)'],
    ['https://localhost/', 'settings.apiBase: must not name a loopback or private address (PROVIDER_ALLOW_PRIVATE=1 allows it)'],
  ]
  let i = 0
  for (const [apiBase, error] of cases) {
    const res = await add(apiBase, `c${i++}`)
    assert.equal(res.status, 400, apiBase)
    assert.equal(res.body.error, error, apiBase)
  }
  const ok = await add('https://api.mch.weixin.qq.com', 'public')
  assert.equal(ok.status, 201, JSON.stringify(ok.body))
  // A patch is held to the same rule.
  const patch = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${ok.body.id}`, { settings: { apiBase: 'https://10.0.0.1' } })
  assert.equal(patch.status, 400)
  const creem = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'eu', credentials: creemCredentials(), settings: { apiBase: 'http://127.0.0.1:9' } })
  assert.equal(creem.status, 400)
})

test('a provider call to a private address is refused at connection time unless PROVIDER_ALLOW_PRIVATE=1', async (t) => {
  const w = await liveWechat(t)
  const s = await w.session()
  // A configuration saved while the flag was on (or a name that resolves to a private address): the connection is refused.
  w.ta.deps.config.providerAllowPrivate = false
  const before = w.fake.store.requests.length
  await assert.rejects(startAttempt(w.ta.deps, s.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' }), /refused to connect to 127\.0\.0\.1: not a public address \(loopback, private, link-local and reserved addresses need PROVIDER_ALLOW_PRIVATE=1\)/)
  assert.equal(w.fake.store.requests.length, before, 'the fake heard nothing')
  w.ta.deps.config.providerAllowPrivate = true
  const s2 = await w.session()
  const started = await startAttempt(w.ta.deps, s2.id, { provider: 'wechat', providerConfigId: w.configId, channel: 'native' })
  assert.equal(started.action.kind, 'qr')
})
