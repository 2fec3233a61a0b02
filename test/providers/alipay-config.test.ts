/**
 * An Alipay configuration as an operator makes one: the admin API's exact refusals (nothing saved),
 * both key modes, the console form with keys and certificates uploaded as files, the CLI with
 * credentials from a file and settings, labels and defaults, and providerHints by label and currency.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { startAttempt } from '../../src/services/attempts.js'
import { alipayWithApps } from '../helpers/alipay.js'
import { tillCredentials } from '../helpers/alipay-till.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { envFor, till } from '../helpers/cli.js'
import { signedIn } from '../helpers/console.js'
import { errorBody } from '../helpers/errors.js'

const configCount = async (ta: TestApp) => (await ta.database.pool.query('select count(*)::int as n from provider_configs')).rows[0].n as number

test('the admin API: both key modes saved, never returned; every bad field refused with its message and nothing saved', async (t) => {
  const ta = await startTestApp(t)
  const { apps } = await alipayWithApps(t)
  const pk = tillCredentials(apps.publicKey)
  const cert = tillCredentials(apps.cert)
  const add = (label: string, credentials: object, settings: object = {}) =>
    ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'alipay', label, credentials, settings })
  const bare = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')

  const cases: [string, object, object, string][] = [
    ['an APPID that is not digits', { ...pk, appId: 'wx123' }, {}, 'credentials.appId: must be the APPID of your application (digits)'],
    ['no private key', { ...pk, privateKey: undefined }, {}, 'credentials.privateKey: is required'],
    ['an unreadable private key', { ...pk, privateKey: 'MIIE…' }, {}, 'credentials.privateKey: must be the application private key: PKCS#8 or PKCS#1, PEM or base64'],
    ['neither mode', { appId: pk.appId, privateKey: pk.privateKey }, {}, 'credentials.alipayPublicKey: is required (or, in certificate mode, appCert, alipayCert and alipayRootCert)'],
    ['both modes', { ...cert, alipayPublicKey: pk.alipayPublicKey }, {}, 'credentials.alipayPublicKey: give either the Alipay public key or the three certificates, not both'],
    ['half the certificates', { ...cert, alipayRootCert: undefined }, {}, 'credentials.alipayRootCert: is required'],
    ['another app\'s certificate', { ...cert, privateKey: pk.privateKey }, {}, 'credentials.appCert: must be the application public-key certificate of this private key'],
    ['a certificate that is not one', { ...cert, alipayCert: 'nope' }, {}, 'credentials.alipayCert: must be a certificate in PEM'],
    ['an unknown credential', { ...pk, mchId: '1' }, {}, 'unknown field: credentials.mchId'],
    ['an unknown desktop', pk, { desktop: 'iframe' }, 'settings.desktop: must be one of qr, page'],
    ['a sellerId that is not a PID', pk, { sellerId: '20881234' }, 'settings.sellerId: must be an Alipay PID: 2088 followed by 12 digits'],
    ['an unknown setting', pk, { gateway: 'https://openapi.alipay.com/gateway.do' }, 'unknown field: settings.gateway'],
    ['apiBase not a URL', pk, { apiBase: 'openapi.alipay.com' }, 'settings.apiBase: must be an absolute http or https URL'],
  ]
  for (const [name, credentials, settings, error] of cases) {
    const res = await add('main', credentials, settings)
    assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`)
    assert.deepEqual(res.body, errorBody(error), name)
  }
  assert.equal(await configCount(ta), 0)

  // Public-key mode with the keys as Alipay's console shows them (bare base64), certificate mode as PEM files.
  const saved = await add('main', { ...pk, privateKey: bare(pk.privateKey), alipayPublicKey: bare(pk.alipayPublicKey) }, { desktop: 'page', sellerId: '2088123412341234' })
  assert.equal(saved.status, 201, JSON.stringify(saved.body))
  assert.deepEqual([saved.body.provider, saved.body.label, saved.body.isDefault, saved.body.settings], ['alipay', 'main', true, { desktop: 'page', sellerId: '2088123412341234' }])
  assert.ok(!JSON.stringify(saved.body).includes('privateKey'))
  const second = await add('certs', cert)
  assert.deepEqual([second.status, second.body.isDefault], [201, false])
  const list = await ta.admin('GET', `/merchants/${ta.merchant.id}/provider_configs`)
  assert.ok(!JSON.stringify(list.body).includes(bare(pk.privateKey).slice(40, 80)), 'no key material in any answer')
})

test('the console: keys and certificates uploaded as files, the list naming the app and the mode, no key on any page', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const { fake, ctl, apps } = await alipayWithApps(t)
  const cert = tillCredentials(apps.cert)
  const form = '/console/live/providers/new?provider=alipay'
  const page = await browser.get(form)
  assert.match(page.html, /<h1>Add an Alipay configuration<\/h1>/)
  assert.match((await browser.get('/console/live/providers/new?provider=wechat')).html, /<h1>Add a WeChat Pay configuration<\/h1>/)
  for (const name of ['privateKey', 'alipayPublicKey', 'appCert', 'alipayCert', 'alipayRootCert']) assert.match(page.html, new RegExp(`name="${name}File"`), name)

  const bad = await browser.submit(form, '/console/live/providers', { provider: 'alipay', label: 'main', enabled: 'on', appId: cert.appId, apiBase: fake.url }, { multipart: {} })
  assert.equal(bad.status, 400)
  // The form's own words: the field's label, not credentials.privateKey.
  assert.match(bad.html, /Application private key: is required/)
  const files = { privateKeyFile: new Blob([cert.privateKey]), appCertFile: new Blob([cert.appCert]), alipayCertFile: new Blob([cert.alipayCert]), alipayRootCertFile: new Blob([cert.alipayRootCert]) }
  const saved = await browser.submit(form, '/console/live/providers', { provider: 'alipay', label: 'main', enabled: 'on', appId: cert.appId, apiBase: fake.url }, { multipart: files })
  assert.equal(saved.status, 303, saved.html)
  const [config] = (await ta.admin('GET', `/merchants/${m.id}/provider_configs`)).body.data
  assert.deepEqual([config.provider, config.label, config.isDefault, config.settings], ['alipay', 'main', true, { apiBase: fake.url }])
  const list = await browser.get('/console/live/providers')
  assert.match(list.html, new RegExp(`app ${cert.appId}`))
  assert.match(list.html, /certificate mode, Alipay certificate [0-9a-f]{32}/)
  assert.ok(!list.html.includes('PRIVATE KEY') && !list.html.includes('BEGIN CERTIFICATE'))
  // The configuration works: the gateway takes its signed order.
  const session = await ta.request('POST', '/api/v1/checkout', { key: m.liveKey, body: { amount: 100, currency: 'CNY', providerHints: { alipay: 'main' } } })
  assert.equal(session.status, 200, JSON.stringify(session.body))
  const { action } = await startAttempt(ta.deps, session.body.id, { provider: 'alipay', providerConfigId: config.id, channel: 'precreate' })
  assert.equal(action.kind, 'qr')
  assert.ok((await ctl.requests()).every((r) => r.verified === true && r.params.app_cert_sn))
})

test('the CLI: credentials from a file, settings as JSON, listed with its settings; refusals name the field and echo no key', async (t) => {
  const ta = await startTestApp(t)
  const { fake, apps } = await alipayWithApps(t)
  const env = envFor(ta)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-alipay-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'alipay.json')
  const creds = tillCredentials(apps.publicKey)
  writeFileSync(file, JSON.stringify(creds), { mode: 0o600 })
  const m = ['--merchant', ta.merchant.id]

  const help = await till(['providers', 'add', '--help'], { env })
  for (const line of ['alipay  appId', 'alipayPublicKey      optional; public-key mode', 'alipayRootCert       optional; certificate mode: alipayRootCert.crt', 'desktop              qr (default']) {
    assert.ok(help.stdout.includes(line), `help names ${line}:\n${help.stdout}`)
  }
  const added = await till(['providers', 'add', ...m, '--provider', 'alipay', '--label', 'main', '--credentials-file', file, '--settings', JSON.stringify({ apiBase: fake.url, desktop: 'page' })], { env })
  assert.equal(added.code, 0, added.stderr)
  assert.match(added.stdout, /^Added alipay\/main \(pc_\w{24}\): enabled, default\.\n$/)
  const list = await till(['providers', 'list', ...m], { env })
  assert.match(list.stdout, new RegExp(`alipay    main .*\\{"apiBase":"${fake.url.replace(/\./g, '\\.')}","desktop":"page"\\}`))

  const refused = await till(['providers', 'add', ...m, '--provider', 'alipay', '--label', 'other', '--credentials-file', '-'], { env, input: JSON.stringify({ ...creds, alipayPublicKey: 'not a key' }) })
  assert.equal(refused.code, 1)
  assert.equal(refused.stderr, 'error: credentials.alipayPublicKey: must be the Alipay public key (支付宝公钥): PEM or base64 (HTTP 400)\n')
  const badSetting = await till(['providers', 'add', ...m, '--provider', 'alipay', '--label', 'other', '--credentials-file', file, '--settings', '{"desktop":"tv"}'], { env })
  assert.equal(badSetting.stderr, 'error: settings.desktop: must be one of qr, page (HTTP 400)\n')
  for (const out of [added.stdout, list.stdout, refused.stderr, help.stdout]) assert.ok(!out.includes(creds.privateKey.split('\n')[1]))
})

test('providerHints: an Alipay label binds the session; a disabled or unknown label and another currency are refused with the spec\'s errors', async (t) => {
  const ta = await startTestApp(t)
  const { apps } = await alipayWithApps(t)
  const add = async (label: string, extra: object = {}) => {
    const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'alipay', label, credentials: tillCredentials(apps.publicKey), ...extra })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body.id as string
  }
  const main = await add('main')
  await add('off', { enabled: false })
  const live = (body: object) => ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body })
  const bound = await live({ amount: 100, currency: 'CNY', providerHints: { alipay: 'main' } })
  assert.equal(bound.status, 200)
  assert.equal((await ta.database.pool.query('select provider_config_id from sessions where id = $1', [bound.body.id])).rows[0].provider_config_id, main)
  const unhinted = await live({ amount: 100, currency: 'CNY' })
  assert.equal(unhinted.status, 200, 'the default takes CNY')
  const refused: [object, string][] = [
    [{ amount: 100, currency: 'CNY', providerHints: { alipay: 'nope' } }, 'provider alipay/nope not available: invalid_label'],
    [{ amount: 100, currency: 'CNY', providerHints: { alipay: 'off' } }, 'provider alipay/off not available: config_disabled'],
    [{ amount: 100, currency: 'HKD', providerHints: { alipay: 'main' } }, 'no provider available for HKD in live mode'],
    [{ amount: 100, currency: 'EUR' }, 'no provider available for EUR in live mode: add an enabled configuration of creem or stripe or wechat that lists EUR'],
  ]
  for (const [body, error] of refused) {
    const res = await live(body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.deepEqual(res.body, errorBody(error))
  }
})
