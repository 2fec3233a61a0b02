/**
 * Admin API (docs/integrate.md#keys-modes-and-authentication, docs/providers.md, docs/operate.md#admin-api): merchants and their keys, provider configurations whose
 * secrets never come back out, the ADMIN_TOKEN gate, and no admin API at all without a token.
 */
import assert from 'node:assert/strict'
import { createHash, generateKeyPairSync } from 'node:crypto'
import { test } from 'node:test'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'
import { errorBody } from '../helpers/errors.js'

const WECHAT = wechatCredentials()
const CREEM = creemCredentials()
const UNKNOWN_MERCHANT = 'mer_AAAAAAAAAAAAAAAAAAAAAAAA'

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const pemBody = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('')

const count = async (ta: TestApp, table: 'api_keys' | 'provider_configs' | 'merchants'): Promise<number> =>
  (await ta.database.pool.query(`select count(*)::int as n from ${table}`)).rows[0].n

const readSession = (ta: TestApp, key: string) => ta.request('GET', '/api/v1/sessions/sess_AAAAAAAAAAAAAAAAAAAAAAAA', { key })
const checkout = (ta: TestApp, key: string) => ta.request('POST', '/api/v1/checkout', { key, body: { amount: 100, currency: 'CNY' } })

/** A key works when it authenticates: a 404 for a session that does not exist, not a 401. */
async function assertKeyWorks(ta: TestApp, key: string) {
  const res = await readSession(ta, key)
  assert.equal(res.status, 404, `key should authenticate: ${JSON.stringify(res.body)}`)
  assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
}

async function assertKeyRefused(ta: TestApp, key: string) {
  const res = await readSession(ta, key)
  assert.equal(res.status, 401)
  assert.deepEqual(res.body, { error: 'invalid API key', code: 'invalid_api_key' })
}

test('creating a merchant returns its id, name, email and one key per mode, and both keys work', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.admin('POST', '/merchants', { name: 'Shop', email: 'owner@shop.example', password: 'correct horse' })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  assert.deepEqual(Object.keys(res.body).sort(), ['email', 'id', 'keys', 'name'])
  assert.match(res.body.id, /^mer_[0-9A-Za-z]{24}$/)
  assert.equal(res.body.name, 'Shop')
  assert.equal(res.body.email, 'owner@shop.example')
  assert.deepEqual(Object.keys(res.body.keys).sort(), ['live', 'test'])
  assert.match(res.body.keys.test, /^sk_test_[0-9A-Za-z]{32}$/)
  assert.match(res.body.keys.live, /^sk_live_[0-9A-Za-z]{32}$/)

  const created = await checkout(ta, res.body.keys.test)
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal(created.body.mode, 'test')
  // Live creation needs a provider; the live key authenticating is what matters here.
  await assertKeyWorks(ta, res.body.keys.live)

  const { rows } = await ta.database.pool.query('select password_hash from merchants where id = $1', [res.body.id])
  assert.match(rows[0].password_hash, /^scrypt\$/)
  assert.equal(rows[0].password_hash.includes('correct horse'), false)
})

test('a merchant without an email has email null', async (t) => {
  const ta = await startTestApp(t)
  const res = await ta.admin('POST', '/merchants', { name: 'No Mail' })
  assert.equal(res.status, 201)
  assert.equal(res.body.email, null)
  assert.equal(res.body.name, 'No Mail')
})

test('a bad merchant request is refused and creates no merchant', async (t) => {
  const ta = await startTestApp(t)
  const taken = await ta.admin('POST', '/merchants', { name: 'First', email: 'taken@shop.example' })
  assert.equal(taken.status, 201)
  const cases: [unknown, string][] = [
    [{}, 'name: is required'],
    [{ name: '' }, 'name: must not be empty'],
    [{ name: 'X', email: 'not-an-email' }, 'email: must be an email address'],
    [{ name: 'X', password: 'short' }, 'password: must be at least 8 characters'],
    [{ name: 'X', plan: 'gold' }, 'unknown field: plan'],
  ]
  for (const [body, error] of cases) {
    const before = await count(ta, 'merchants')
    const res = await ta.admin('POST', '/merchants', body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.deepEqual(res.body, errorBody(error))
    assert.equal(await count(ta, 'merchants'), before)
  }
})

test('a login email is one merchant\'s, whatever its case: stored lower-cased, a taken one answers 409 email_in_use', async (t) => {
  const ta = await startTestApp(t)
  const first = await ta.admin('POST', '/merchants', { name: 'First', email: 'Owner@Shop.Example', password: 'correct horse' })
  assert.equal(first.status, 201, JSON.stringify(first.body))
  assert.equal(first.body.email, 'owner@shop.example')
  assert.equal((await ta.admin('GET', `/merchants/${first.body.id}`)).body.email, 'owner@shop.example')

  const taken = { error: 'email is already in use', code: 'email_in_use' }
  for (const email of ['owner@shop.example', 'OWNER@shop.example']) {
    const before = await count(ta, 'merchants')
    const res = await ta.admin('POST', '/merchants', { name: 'Second', email, password: 'another horse' })
    assert.deepEqual([res.status, res.body], [409, taken], email)
    assert.equal(await count(ta, 'merchants'), before)
  }
  // Giving another merchant that login is refused alike, and changes nothing.
  const moved = await ta.admin('POST', `/merchants/${ta.merchant.id}/password`, { password: 'long enough', email: 'owner@SHOP.example' })
  assert.deepEqual([moved.status, moved.body], [409, taken])
  assert.equal((await ta.admin('GET', `/merchants/${ta.merchant.id}`)).body.email, null)
})

test('a new API key is returned once with its id and mode, and works', async (t) => {
  const ta = await startTestApp(t)
  const live = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'live' })
  assert.equal(live.status, 201, JSON.stringify(live.body))
  assert.deepEqual(Object.keys(live.body).sort(), ['id', 'key', 'mode'])
  assert.match(live.body.id, /^key_[0-9A-Za-z]{24}$/)
  assert.equal(live.body.mode, 'live')
  assert.match(live.body.key, /^sk_live_[0-9A-Za-z]{32}$/)
  await assertKeyWorks(ta, live.body.key)

  const testKey = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'test' })
  assert.equal(testKey.status, 201)
  assert.equal(testKey.body.mode, 'test')
  assert.match(testKey.body.key, /^sk_test_[0-9A-Za-z]{32}$/)
  const created = await checkout(ta, testKey.body.key)
  assert.equal(created.status, 200)
  // The new key belongs to the same merchant: the original test key reads its session.
  const read = await ta.request('GET', `/api/v1/sessions/${created.body.id}`, { key: ta.merchant.testKey })
  assert.equal(read.status, 200)

  // The listing never shows the key again, only its last 4 characters.
  const list = await ta.admin('GET', `/merchants/${ta.merchant.id}/api_keys`)
  assert.equal(list.status, 200)
  assert.equal(JSON.stringify(list.body).includes(live.body.key), false)
  assert.ok(list.body.data.some((k: { id: string; last4: string }) => k.id === live.body.id && k.last4 === live.body.key.slice(-4)))
})

test('an API key request with a bad mode or for an unknown merchant is refused', async (t) => {
  const ta = await startTestApp(t)
  const before = await count(ta, 'api_keys')
  const bad = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'prod' })
  assert.equal(bad.status, 400)
  assert.deepEqual(bad.body, { error: 'mode: must be one of test, live', code: 'invalid_field', param: 'mode' })
  const missing = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, {})
  assert.equal(missing.status, 400)
  assert.deepEqual(missing.body, { error: 'mode: is required', code: 'invalid_field', param: 'mode' })
  const unknown = await ta.admin('POST', `/merchants/${UNKNOWN_MERCHANT}/api_keys`, { mode: 'test' })
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown.body, { error: 'Not found', code: 'not_found' })
  assert.equal(await count(ta, 'api_keys'), before)
})

test('a revoked key answers 401 from then on while the merchant\'s other keys keep working', async (t) => {
  const ta = await startTestApp(t)
  const extra = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'test' })
  assert.equal(extra.status, 201)
  assert.equal((await checkout(ta, extra.body.key)).status, 200)

  const revoked = await ta.admin('DELETE', `/merchants/${ta.merchant.id}/api_keys/${extra.body.id}`)
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body))
  assert.equal(revoked.body.id, extra.body.id)
  assert.equal(revoked.body.revoked, true)

  await assertKeyRefused(ta, extra.body.key)
  const refused = await checkout(ta, extra.body.key)
  assert.equal(refused.status, 401)
  assert.deepEqual(refused.body, { error: 'invalid API key', code: 'invalid_api_key' })

  assert.equal((await checkout(ta, ta.merchant.testKey)).status, 200)
  await assertKeyWorks(ta, ta.merchant.liveKey)

  // Revoking twice is harmless; the key stays revoked.
  const again = await ta.admin('DELETE', `/merchants/${ta.merchant.id}/api_keys/${extra.body.id}`)
  assert.equal(again.status, 200)
  await assertKeyRefused(ta, extra.body.key)
})

test('a key can only be revoked through its own merchant', async (t) => {
  const ta = await startTestApp(t)
  const other = await ta.newMerchant('Other')
  const key = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'test' })
  const wrong = await ta.admin('DELETE', `/merchants/${other.id}/api_keys/${key.body.id}`)
  assert.equal(wrong.status, 404)
  assert.deepEqual(wrong.body, { error: 'Not found', code: 'not_found' })
  const unknown = await ta.admin('DELETE', `/merchants/${ta.merchant.id}/api_keys/key_AAAAAAAAAAAAAAAAAAAAAAAA`)
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown.body, { error: 'Not found', code: 'not_found' })
  await assertKeyWorks(ta, key.body.key)
})

test('API keys are stored only as a SHA-256 hash and their last 4 characters', async (t) => {
  const ta = await startTestApp(t)
  const extra = await ta.admin('POST', `/merchants/${ta.merchant.id}/api_keys`, { mode: 'live' })
  const plaintexts = [ta.merchant.testKey, ta.merchant.liveKey, extra.body.key]
  const { rows } = await ta.database.pool.query('select * from api_keys where merchant_id = $1', [ta.merchant.id])
  assert.equal(rows.length, 3)
  const dump = JSON.stringify(rows)
  for (const key of plaintexts) {
    assert.equal(dump.includes(key), false, 'the plaintext key must not be stored')
    assert.equal(dump.includes(key.slice(8)), false, 'not even without its prefix')
    const row = rows.find((r) => r.key_hash === sha256(key))
    assert.ok(row, 'key_hash is the SHA-256 hex of the key')
    assert.match(row.key_hash, /^[0-9a-f]{64}$/)
    assert.equal(row.last4, key.slice(-4))
    assert.equal(row.mode, key.startsWith('sk_live_') ? 'live' : 'test')
  }
})

test('a provider configuration comes back without its credentials, and they are stored encrypted', async (t) => {
  const ta = await startTestApp(t)
  const wechat = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, {
    provider: 'wechat', label: 'main', credentials: WECHAT, settings: { apiBase: 'https://api.mch.weixin.qq.com' },
  })
  assert.equal(wechat.status, 201, JSON.stringify(wechat.body))
  assert.deepEqual(Object.keys(wechat.body).sort(), ['createdAt', 'enabled', 'id', 'isDefault', 'label', 'provider', 'settings', 'updatedAt'])
  assert.match(wechat.body.id, /^pc_[0-9A-Za-z]{24}$/)
  assert.equal(wechat.body.provider, 'wechat')
  assert.equal(wechat.body.label, 'main')
  assert.equal(wechat.body.enabled, true)
  assert.equal(wechat.body.isDefault, true, 'the first configuration of a provider is its default')
  assert.deepEqual(wechat.body.settings, { apiBase: 'https://api.mch.weixin.qq.com' })

  const creem = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'eu', credentials: CREEM })
  assert.equal(creem.status, 201, JSON.stringify(creem.body))
  assert.equal(Object.hasOwn(creem.body, 'credentials'), false)

  const secrets = [WECHAT.apiV3Key, pemBody(WECHAT.privateKey).slice(0, 64), WECHAT.privateKey, CREEM.webhookSecret, CREEM.apiKey]
  const list = await ta.admin('GET', `/merchants/${ta.merchant.id}/provider_configs`)
  assert.equal(list.status, 200)
  assert.deepEqual(list.body.data.map((c: { id: string }) => c.id), [wechat.body.id, creem.body.id])
  for (const text of [JSON.stringify(wechat.body), JSON.stringify(creem.body), JSON.stringify(list.body)]) {
    assert.equal(text.includes('credentials'), false)
    for (const secret of secrets) assert.equal(text.includes(secret), false, `a secret leaked: ${secret.slice(0, 12)}…`)
  }

  const { rows } = await ta.database.pool.query('select credentials_enc from provider_configs where merchant_id = $1', [ta.merchant.id])
  assert.equal(rows.length, 2)
  for (const { credentials_enc } of rows) {
    assert.equal(typeof credentials_enc, 'string')
    assert.ok(credentials_enc.length > 0)
    for (const secret of secrets) assert.equal(credentials_enc.includes(secret), false, 'credentials must be encrypted at rest')
    assert.equal(credentials_enc.includes(Buffer.from(WECHAT.apiV3Key).toString('base64')), false)
  }
})

test('invalid provider configurations are refused with the field named, and nothing is stored', async (t) => {
  const ta = await startTestApp(t)
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
  const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
  const wechat = (credentials: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ provider: 'wechat', label: 'main', credentials, ...extra })
  const PEM_ERROR = 'credentials.privateKey: must be an RSA private key in PKCS#8 PEM'
  const cases: [string, unknown, string][] = [
    ['malformed PEM', wechat({ ...WECHAT, privateKey: '-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n' }), PEM_ERROR],
    ['not a PEM at all', wechat({ ...WECHAT, privateKey: 'hello' }), PEM_ERROR],
    ['an RSA key in PKCS#1', wechat({ ...WECHAT, privateKey: pkcs1 }), PEM_ERROR],
    ['an EC key', wechat({ ...WECHAT, privateKey: ec }), PEM_ERROR],
    ['apiV3Key of 31 characters', wechat({ ...WECHAT, apiV3Key: 'a'.repeat(31) }), 'credentials.apiV3Key: must be 32 characters'],
    ['apiV3Key of 33 characters', wechat({ ...WECHAT, apiV3Key: 'a'.repeat(33) }), 'credentials.apiV3Key: must be 32 characters'],
    ['missing mchId', wechat({ ...WECHAT, mchId: undefined }), 'credentials.mchId: is required'],
    ['a bad platform public key', wechat({ ...WECHAT, platformPublicKey: 'nope' }), 'credentials.platformPublicKey: must be a public key in PEM'],
    ['an unknown credential field', wechat({ ...WECHAT, apiKey: 'x' }), 'unknown field: credentials.apiKey'],
    ['an unknown creem credential field', { provider: 'creem', label: 'eu', credentials: { ...CREEM, region: 'eu' } }, 'unknown field: credentials.region'],
    ['a creem config without webhookSecret', { provider: 'creem', label: 'eu', credentials: { apiKey: 'creem_test_x' } }, 'credentials.webhookSecret: is required'],
    ['settings.apiBase not a URL', wechat(WECHAT, { settings: { apiBase: 'not a url' } }), 'settings.apiBase: must be an absolute http or https URL'],
    ['settings.apiBase not http(s)', wechat(WECHAT, { settings: { apiBase: 'ftp://fake.example' } }), 'settings.apiBase: must be an absolute http or https URL'],
    ['an unknown setting', wechat(WECHAT, { settings: { timeout: 5 } }), 'unknown field: settings.timeout'],
    ['an unknown provider', { provider: 'paypal', label: 'main', credentials: {} }, 'provider: must be one of wechat, creem, alipay, stripe'],
    ['a label with spaces', wechat(WECHAT, { label: 'my label' }), 'label: must be 1 to 40 letters, digits, dots, dashes or underscores'],
    ['a label of 41 characters', wechat(WECHAT, { label: 'l'.repeat(41) }), 'label: must be 1 to 40 letters, digits, dots, dashes or underscores'],
    ['no credentials', { provider: 'wechat', label: 'main' }, 'credentials: is required'],
    ['an unknown top-level field', wechat(WECHAT, { priority: 1 }), 'unknown field: priority'],
  ]
  for (const [name, body, error] of cases) {
    await t.test(name, async () => {
      const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, body)
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.deepEqual(res.body, errorBody(error))
      assert.equal(await count(ta, 'provider_configs'), 0)
    })
  }
})

test('a label can be used once per provider', async (t) => {
  const ta = await startTestApp(t)
  const first = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: WECHAT })
  assert.equal(first.status, 201)
  const dup = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: WECHAT, isDefault: false })
  assert.equal(dup.status, 400)
  assert.deepEqual(dup.body, { error: 'provider wechat/main already exists', code: 'already_exists' })
  assert.equal(await count(ta, 'provider_configs'), 1)
  // The same label under another provider, or for another merchant, is fine.
  const creem = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'main', credentials: CREEM })
  assert.equal(creem.status, 201)
  const other = await ta.newMerchant('Other')
  const otherMain = await ta.admin('POST', `/merchants/${other.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: WECHAT })
  assert.equal(otherMain.status, 201)
  // Renaming onto a taken label is refused too.
  const second = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'second', credentials: WECHAT })
  const rename = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${second.body.id}`, { label: 'main' })
  assert.equal(rename.status, 400)
  assert.deepEqual(rename.body, { error: 'provider wechat/main already exists', code: 'already_exists' })
})

test('PATCH turns a configuration off and on', async (t) => {
  const ta = await startTestApp(t)
  const c = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'eu', credentials: CREEM })
  assert.equal(c.status, 201)
  const path = `/merchants/${ta.merchant.id}/provider_configs/${c.body.id}`

  const off = await ta.admin('PATCH', path, { enabled: false })
  assert.equal(off.status, 200, JSON.stringify(off.body))
  assert.equal(off.body.enabled, false)
  assert.equal(off.body.id, c.body.id)
  assert.equal(Object.hasOwn(off.body, 'credentials'), false)
  let list = await ta.admin('GET', `/merchants/${ta.merchant.id}/provider_configs`)
  assert.equal(list.body.data[0].enabled, false)

  const on = await ta.admin('PATCH', path, { enabled: true })
  assert.equal(on.status, 200)
  assert.equal(on.body.enabled, true)
  list = await ta.admin('GET', `/merchants/${ta.merchant.id}/provider_configs`)
  assert.equal(list.body.data[0].enabled, true)

  const bad = await ta.admin('PATCH', path, { enabled: 'no' })
  assert.equal(bad.status, 400)
  assert.deepEqual(bad.body, { error: 'enabled: must be a boolean', code: 'invalid_field', param: 'enabled' })
  const badCreds = await ta.admin('PATCH', path, { credentials: { apiKey: 'creem_test_y' } })
  assert.equal(badCreds.status, 400)
  assert.deepEqual(badCreds.body, { error: 'credentials.webhookSecret: is required', code: 'invalid_field', param: 'credentials.webhookSecret' })
})

test('only one configuration per provider is the default', async (t) => {
  const ta = await startTestApp(t)
  const post = (body: Record<string, unknown>) => ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, body)
  const defaults = async () => {
    const list = await ta.admin('GET', `/merchants/${ta.merchant.id}/provider_configs`)
    assert.equal(list.status, 200)
    return Object.fromEntries(list.body.data.map((c: { label: string; provider: string; isDefault: boolean }) => [`${c.provider}/${c.label}`, c.isDefault]))
  }

  const a = await post({ provider: 'wechat', label: 'a', credentials: WECHAT })
  const b = await post({ provider: 'wechat', label: 'b', credentials: WECHAT })
  const eu = await post({ provider: 'creem', label: 'eu', credentials: CREEM })
  assert.equal(a.body.isDefault, true)
  assert.equal(b.body.isDefault, false, 'a later configuration is not the default unless asked')
  assert.equal(eu.body.isDefault, true, 'each provider has its own default')
  assert.deepEqual(await defaults(), { 'wechat/a': true, 'wechat/b': false, 'creem/eu': true })

  // Creating a new default clears the previous one.
  const c = await post({ provider: 'wechat', label: 'c', credentials: WECHAT, isDefault: true })
  assert.equal(c.status, 201)
  assert.equal(c.body.isDefault, true)
  assert.deepEqual(await defaults(), { 'wechat/a': false, 'wechat/b': false, 'creem/eu': true, 'wechat/c': true })

  // PATCHing another one to default clears it again, without touching creem.
  const patched = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${b.body.id}`, { isDefault: true })
  assert.equal(patched.status, 200, JSON.stringify(patched.body))
  assert.equal(patched.body.isDefault, true)
  assert.deepEqual(await defaults(), { 'wechat/a': false, 'wechat/b': true, 'creem/eu': true, 'wechat/c': false })

  // Clearing the default leaves the provider with none.
  const cleared = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${b.body.id}`, { isDefault: false })
  assert.equal(cleared.status, 200)
  assert.deepEqual(await defaults(), { 'wechat/a': false, 'wechat/b': false, 'creem/eu': true, 'wechat/c': false })
})

test('PATCH of an unknown configuration, or another merchant\'s, answers 404', async (t) => {
  const ta = await startTestApp(t)
  const other = await ta.newMerchant('Other')
  const theirs = await ta.admin('POST', `/merchants/${other.id}/provider_configs`, { provider: 'creem', label: 'eu', credentials: CREEM })
  assert.equal(theirs.status, 201)
  const cross = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/${theirs.body.id}`, { enabled: false })
  assert.equal(cross.status, 404)
  assert.deepEqual(cross.body, { error: 'Not found', code: 'not_found' })
  const list = await ta.admin('GET', `/merchants/${other.id}/provider_configs`)
  assert.equal(list.body.data[0].enabled, true, 'the other merchant\'s configuration is unchanged')
  const unknown = await ta.admin('PATCH', `/merchants/${ta.merchant.id}/provider_configs/pc_AAAAAAAAAAAAAAAAAAAAAAAA`, { enabled: false })
  assert.equal(unknown.status, 404)
  assert.deepEqual(unknown.body, { error: 'Not found', code: 'not_found' })
})

test('an unknown merchant answers 404 on every merchant route', async (t) => {
  const ta = await startTestApp(t)
  const calls: [string, string, unknown?][] = [
    ['GET', `/merchants/${UNKNOWN_MERCHANT}`],
    ['POST', `/merchants/${UNKNOWN_MERCHANT}/api_keys`, { mode: 'test' }],
    ['GET', `/merchants/${UNKNOWN_MERCHANT}/api_keys`],
    ['POST', `/merchants/${UNKNOWN_MERCHANT}/provider_configs`, { provider: 'creem', label: 'eu', credentials: CREEM }],
    ['GET', `/merchants/${UNKNOWN_MERCHANT}/provider_configs`],
  ]
  for (const [method, path, body] of calls) {
    const res = await ta.admin(method, path, body)
    assert.equal(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body)}`)
    assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
  }
  assert.equal(await count(ta, 'provider_configs'), 0)
})

test('the admin API refuses a missing or wrong admin token with 401, secret keys included', async (t) => {
  const ta = await startTestApp(t)
  const merchantsBefore = await count(ta, 'merchants')
  const attempts: (string | null)[] = [null, 'wrong-token', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1), ta.merchant.testKey, ta.merchant.liveKey]
  for (const key of attempts) {
    const create = await ta.request('POST', '/admin/v1/merchants', { key, body: { name: 'Intruder' } })
    assert.equal(create.status, 401, String(key))
    assert.deepEqual(create.body, { error: 'invalid admin token', code: 'invalid_api_key' })
    const config = await ta.request('POST', `/admin/v1/merchants/${ta.merchant.id}/provider_configs`, {
      key, body: { provider: 'creem', label: 'evil', credentials: CREEM },
    })
    assert.equal(config.status, 401)
    const list = await ta.request('GET', `/admin/v1/merchants/${ta.merchant.id}/provider_configs`, { key })
    assert.equal(list.status, 401)
  }
  assert.equal(await count(ta, 'merchants'), merchantsBefore)
  assert.equal(await count(ta, 'provider_configs'), 0)
})

test('without the admin token a wrong method or an unknown admin path is 401 too, so nothing tells which routes exist', async (t) => {
  const ta = await startTestApp(t)
  const probes: [string, string, string][] = [
    ['DELETE', '/admin/v1/merchants', 'POST'],
    ['PUT', `/admin/v1/merchants/${ta.merchant.id}`, 'GET, HEAD'],
    ['DELETE', `/admin/v1/merchants/${ta.merchant.id}/provider_configs`, 'GET, HEAD, POST'],
    ['POST', '/admin/v1/discrepancies', 'GET, HEAD'],
  ]
  for (const key of [null, 'wrong-token', ta.merchant.testKey]) {
    for (const [method, path] of [...probes, ['GET', '/admin/v1/nothing'], ['DELETE', `/admin/v1/merchants/${ta.merchant.id}/extra`]]) {
      const res = await ta.request(method, path, { key })
      assert.equal(res.status, 401, `${method} ${path} with ${key}`)
      assert.deepEqual(res.body, { error: 'invalid admin token', code: 'invalid_api_key' })
      assert.equal(res.headers.get('allow'), null)
    }
  }
  // With the token, the same requests learn the allowed methods, or that there is no such path.
  for (const [method, path, allow] of probes) {
    const res = await ta.request(method, path, { key: ADMIN_TOKEN })
    assert.deepEqual([res.status, res.headers.get('allow'), res.body], [405, allow, { error: 'method not allowed', code: 'method_not_allowed' }], `${method} ${path}`)
  }
  assert.equal((await ta.admin('GET', '/nothing')).status, 404)
})

test('without ADMIN_TOKEN the admin API does not exist', async (t) => {
  const ta = await startTestApp(t, { adminToken: null })
  for (const [method, path, body] of [
    ['POST', '/admin/v1/merchants', { name: 'X' }],
    ['GET', `/admin/v1/merchants/${ta.merchant.id}`, undefined],
    ['POST', `/admin/v1/merchants/${ta.merchant.id}/api_keys`, { mode: 'test' }],
    ['POST', `/admin/v1/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'eu', credentials: CREEM }],
  ] as const) {
    for (const key of [ADMIN_TOKEN, null]) {
      const res = await ta.request(method, path, { key, body })
      assert.equal(res.status, 404, `${method} ${path}`)
      assert.deepEqual(res.body, { error: 'Not found', code: 'not_found' })
    }
  }
  assert.equal(await count(ta, 'merchants'), 1)
  assert.equal(await count(ta, 'provider_configs'), 0)
  // The merchant API itself still works.
  assert.equal((await checkout(ta, ta.merchant.testKey)).status, 200)
})
