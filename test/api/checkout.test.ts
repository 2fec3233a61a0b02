/**
 * POST /api/v1/checkout (docs/integrate.md#create-a-session, docs/integrate.md#amounts, docs/architecture.md#the-state-machines, docs/integrate.md#errors-idempotency-and-rate-limits): the session a merchant gets back, and
 * every way a request is refused, with the exact body and without leaving a session behind.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { errorBody } from '../helpers/errors.js'

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const SESSION_ID = /^sess_[0-9A-Za-z]{24}$/

const countSessions = async (ta: TestApp): Promise<number> =>
  (await ta.database.pool.query('select count(*)::int as n from sessions')).rows[0].n

const create = (ta: TestApp, body: unknown, key: string | null = ta.merchant.testKey) => ta.request('POST', '/api/v1/checkout', { key, body })

/** Sends a request that must be refused with exactly `status` and `error`, and must store nothing. */
async function refused(ta: TestApp, send: () => ReturnType<TestApp['request']>, status: number, error: string) {
  const before = await countSessions(ta)
  const res = await send()
  assert.equal(res.status, status, JSON.stringify(res.body))
  assert.deepEqual(res.body, errorBody(error))
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
  assert.ok(res.headers.get('request-id'), 'every response carries a Request-Id header')
  assert.equal(await countSessions(ta), before, 'a refused request must not create a session')
}

test('a new session comes back pending with exactly the documented fields and a checkout URL on this server', async (t) => {
  const ta = await startTestApp(t)
  const res = await create(ta, { amount: 9900, currency: 'CNY', description: 'Order #42', metadata: { orderId: '42' } })
  assert.equal(res.status, 200)
  assert.deepEqual(Object.keys(res.body).sort(), ['amount', 'createdAt', 'currency', 'description', 'expiresAt', 'customerEmail', 'id', 'locale', 'metadata', 'mode', 'status', 'url'].sort())
  // Description and metadata come back as given.
  assert.equal(res.body.description, 'Order #42')
  assert.deepEqual(res.body.metadata, { orderId: '42' })
  assert.match(res.body.id, SESSION_ID)
  assert.equal(res.body.status, 'pending')
  assert.equal(res.body.url, `${ta.baseUrl}/c/${res.body.id}`)
  assert.equal(res.body.amount, 9900)
  assert.equal(res.body.currency, 'CNY')
  assert.equal(res.body.mode, 'test')
  assert.match(res.body.createdAt, ISO_MS)
  assert.match(res.body.expiresAt, ISO_MS)
  assert.equal(res.body.createdAt, ta.clock().toISOString())
  assert.ok(res.headers.get('request-id'), 'every response carries a Request-Id header')
  assert.equal(await countSessions(ta), 1)

  // description and metadata are kept for the webhooks even though the response does not show them.
  const { rows } = await ta.database.pool.query('select description, metadata from sessions where id = $1', [res.body.id])
  assert.deepEqual(rows[0], { description: 'Order #42', metadata: { orderId: '42' } })
})

test('two sessions get different ids', async (t) => {
  const ta = await startTestApp(t)
  const a = await create(ta, { amount: 100, currency: 'USD' })
  const b = await create(ta, { amount: 100, currency: 'USD' })
  assert.equal(a.status, 200)
  assert.equal(b.status, 200)
  assert.notEqual(a.body.id, b.body.id)
})

test('a session expires one hour after creation by default, and expiresInSeconds sets another lifetime', async (t) => {
  const ta = await startTestApp(t)
  const plain = await create(ta, { amount: 100, currency: 'CNY' })
  assert.equal(plain.status, 200)
  assert.equal(Date.parse(plain.body.expiresAt) - Date.parse(plain.body.createdAt), 3600 * 1000)

  for (const seconds of [60, 900, 86400]) {
    const res = await create(ta, { amount: 100, currency: 'CNY', expiresInSeconds: seconds })
    assert.equal(res.status, 200, `expiresInSeconds ${seconds}: ${JSON.stringify(res.body)}`)
    assert.equal(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt), seconds * 1000)
  }
})

test('amounts are minor units: JPY 1500 stays 1500 and CNY 9900 stays 9900', async (t) => {
  const ta = await startTestApp(t)
  const jpy = await create(ta, { amount: 1500, currency: 'JPY' })
  assert.equal(jpy.status, 200)
  assert.equal(jpy.body.amount, 1500)
  assert.equal(jpy.body.currency, 'JPY')
  const read = await ta.request('GET', `/api/v1/sessions/${jpy.body.id}`, { key: ta.merchant.testKey })
  assert.equal(read.body.amount, 1500)
  const { rows } = await ta.database.pool.query('select amount, currency from sessions where id = $1', [jpy.body.id])
  assert.deepEqual(rows[0], { amount: 1500, currency: 'JPY' })
})

test('every allowed currency and the amount bounds 1 and 99,999,999 are accepted', async (t) => {
  const ta = await startTestApp(t)
  for (const currency of ['CNY', 'USD', 'EUR', 'JPY', 'HKD']) {
    for (const amount of [1, 99_999_999]) {
      const res = await create(ta, { amount, currency })
      assert.equal(res.status, 200, `${amount} ${currency}: ${JSON.stringify(res.body)}`)
      assert.equal(res.body.amount, amount)
      assert.equal(res.body.currency, currency)
    }
  }
})

test('values exactly at the limits are accepted', async (t) => {
  const ta = await startTestApp(t)
  const fiftyKeys = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']))
  const ok: Record<string, unknown>[] = [
    { description: 'd'.repeat(200) },
    { description: '' },
    { metadata: fiftyKeys },
    { metadata: { ['k'.repeat(40)]: 'v' } },
    { metadata: { orderId: 'v'.repeat(500) } },
    { metadata: {} },
    { successUrl: 'https://shop.example.com/thanks?order=42' },
    { successUrl: `https://shop.example.com/${'a'.repeat(2048 - 'https://shop.example.com/'.length)}` },
    { successUrl: 'http://localhost:3000/thanks' },
    { successUrl: 'http://127.0.0.1/thanks' },
    { expiresInSeconds: 60 },
    { expiresInSeconds: 86400 },
  ]
  for (const extra of ok) {
    const res = await create(ta, { amount: 100, currency: 'CNY', ...extra })
    assert.equal(res.status, 200, `${JSON.stringify(extra).slice(0, 100)}: ${JSON.stringify(res.body)}`)
  }
  assert.equal(await countSessions(ta), ok.length)
})

test('length limits count characters: an emoji or a Chinese character counts once, in description and metadata alike', async (t) => {
  const ta = await startTestApp(t)
  const emoji = '😀' // two UTF-16 code units, one character
  const ok: Record<string, unknown>[] = [
    { description: emoji.repeat(200) },
    { description: '支'.repeat(200) },
    { metadata: { note: emoji.repeat(500) } },
    { metadata: { note: '支'.repeat(500) } },
    { metadata: { [emoji.repeat(40)]: 'v' } },
  ]
  for (const extra of ok) {
    const res = await create(ta, { amount: 100, currency: 'CNY', ...extra })
    assert.equal(res.status, 200, `${JSON.stringify(extra).slice(0, 40)}: ${JSON.stringify(res.body)}`)
  }
  await refused(ta, () => create(ta, { amount: 100, currency: 'CNY', description: emoji.repeat(201) }), 400, 'description: must be at most 200 characters')
  await refused(ta, () => create(ta, { amount: 100, currency: 'CNY', metadata: { note: emoji.repeat(501) } }), 400, 'metadata.note: must be at most 500 characters')
  await refused(ta, () => create(ta, { amount: 100, currency: 'CNY', metadata: { [emoji.repeat(41)]: 'v' } }), 400, 'metadata: keys must be 1 to 40 characters')
})

test('a missing or badly typed amount or currency is refused with one exact message', async (t) => {
  const ta = await startTestApp(t)
  const cases: [unknown, string][] = [
    [{ currency: 'CNY' }, 'amount: is required'],
    [{ amount: 100 }, 'currency: is required'],
    [{}, 'amount: is required'],
    [{ amount: 1.5, currency: 'CNY' }, 'amount: must be an integer'],
    [{ amount: '100', currency: 'CNY' }, 'amount: must be an integer'],
    [{ amount: true, currency: 'CNY' }, 'amount: must be an integer'],
    [{ amount: null, currency: 'CNY' }, 'amount: must be an integer'],
    [{ amount: 0, currency: 'CNY' }, 'amount: must be at least 1'],
    [{ amount: -100, currency: 'CNY' }, 'amount: must be at least 1'],
    [{ amount: 100_000_000, currency: 'CNY' }, 'amount: must be at most 99999999'],
    [{ amount: 100, currency: 'GBP' }, 'currency: must be one of CNY, USD, EUR, HKD, JPY'],
    [{ amount: 100, currency: 'cny' }, 'currency: must be one of CNY, USD, EUR, HKD, JPY'],
    [{ amount: 100, currency: 156 }, 'currency: must be one of CNY, USD, EUR, HKD, JPY'],
  ]
  for (const [body, error] of cases) {
    await t.test(JSON.stringify(body), () => refused(ta, () => create(ta, body), 400, error))
  }
})

test('description, expiresInSeconds and metadata outside their limits are refused with one exact message', async (t) => {
  const ta = await startTestApp(t)
  const base = { amount: 100, currency: 'CNY' }
  const cases: [string, Record<string, unknown>, string][] = [
    ['description of 201 characters', { description: 'd'.repeat(201) }, 'description: must be at most 200 characters'],
    ['description not a string', { description: 42 }, 'description: must be a string'],
    ['expiresInSeconds 59', { expiresInSeconds: 59 }, 'expiresInSeconds: must be at least 60'],
    ['expiresInSeconds 86401', { expiresInSeconds: 86401 }, 'expiresInSeconds: must be at most 86400'],
    ['expiresInSeconds a float', { expiresInSeconds: 600.5 }, 'expiresInSeconds: must be an integer'],
    ['expiresInSeconds a string', { expiresInSeconds: '600' }, 'expiresInSeconds: must be an integer'],
    ['metadata with 51 keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata: must have at most 50 keys'],
    ['metadata key of 41 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata: keys must be 1 to 40 characters'],
    ['metadata value a number', { metadata: { orderId: 42 } }, 'metadata.orderId: must be a string'],
    ['metadata value of 501 characters', { metadata: { orderId: 'v'.repeat(501) } }, 'metadata.orderId: must be at most 500 characters'],
    ['metadata an array', { metadata: ['a'] }, 'metadata: must be an object'],
    ['metadata a string', { metadata: 'order 42' }, 'metadata: must be an object'],
  ]
  for (const [name, extra, error] of cases) {
    await t.test(name, () => refused(ta, () => create(ta, { ...base, ...extra }), 400, error))
  }
})

test('a successUrl that is not an allowed absolute URL is refused with one exact message', async (t) => {
  const ta = await startTestApp(t)
  const base = { amount: 100, currency: 'CNY' }
  const cases: [string, string, string][] = [
    ['not a URL', 'not a url', 'successUrl: must be an absolute http or https URL'],
    ['a relative path', '/thanks', 'successUrl: must be an absolute http or https URL'],
    ['ftp:', 'ftp://shop.example.com/thanks', 'successUrl: must be an absolute http or https URL'],
    ['javascript:', 'javascript:alert(1)', 'successUrl: must be an absolute http or https URL'],
    ['http to another host in test mode', 'http://shop.example.com/thanks', 'successUrl: must use https (http only for localhost in test mode)'],
    ['longer than 2048 characters', `https://shop.example.com/${'a'.repeat(2049 - 'https://shop.example.com/'.length)}`, 'successUrl: must be at most 2048 characters'],
  ]
  for (const [name, successUrl, error] of cases) {
    await t.test(name, () => refused(ta, () => create(ta, { ...base, successUrl }), 400, error))
  }
})

test('cancelUrl is optional, kept on the session (not in its answers), and refused with one exact message like successUrl', async (t) => {
  const ta = await startTestApp(t)
  const base = { amount: 100, currency: 'CNY' }
  const ok = await create(ta, { ...base, cancelUrl: 'https://shop.example.com/cart?order=42', successUrl: 'https://shop.example.com/thanks' })
  assert.equal(ok.status, 200, JSON.stringify(ok.body))
  assert.ok(!('cancelUrl' in ok.body), 'like successUrl, it is not echoed')
  const { rows } = await ta.database.pool.query('select cancel_url, success_url from sessions where id = $1', [ok.body.id])
  assert.deepEqual(rows[0], { cancel_url: 'https://shop.example.com/cart?order=42', success_url: 'https://shop.example.com/thanks' })
  const plain = await create(ta, base)
  assert.equal((await ta.database.pool.query('select cancel_url from sessions where id = $1', [plain.body.id])).rows[0].cancel_url, null)
  // With an Idempotency-Key the session is written by another statement (with the key's claim): it keeps cancelUrl too.
  const keyed = await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, body: { ...base, cancelUrl: 'https://shop.example.com/cart' }, headers: { 'idempotency-key': 'cart-1' } })
  assert.equal(keyed.status, 200, keyed.text)
  assert.equal((await ta.database.pool.query('select cancel_url from sessions where id = $1', [keyed.body.id])).rows[0].cancel_url, 'https://shop.example.com/cart')
  for (const cancelUrl of ['http://localhost:3000/cart', 'http://127.0.0.1/cart', `https://shop.example.com/${'a'.repeat(2048 - 'https://shop.example.com/'.length)}`]) {
    assert.equal((await create(ta, { ...base, cancelUrl })).status, 200, cancelUrl.slice(0, 40))
  }
  const cases: [string, unknown, string][] = [
    ['not a URL', 'not a url', 'cancelUrl: must be an absolute http or https URL'],
    ['javascript:', 'javascript:alert(1)', 'cancelUrl: must be an absolute http or https URL'],
    ['http to another host in test mode', 'http://shop.example.com/cart', 'cancelUrl: must use https (http only for localhost in test mode)'],
    ['longer than 2048 characters', `https://shop.example.com/${'a'.repeat(2049 - 'https://shop.example.com/'.length)}`, 'cancelUrl: must be at most 2048 characters'],
    ['a NUL character', 'https://shop.example.com/\u0000', 'cancelUrl: must not contain NUL characters'],
    ['not a string', 42, 'cancelUrl: must be a string'],
  ]
  for (const [name, cancelUrl, error] of cases) {
    await t.test(name, () => refused(ta, () => create(ta, { ...base, cancelUrl }), 400, error))
  }
})

test('a NUL character in a text field is refused with 400 naming the field, not a server error', async (t) => {
  const ta = await startTestApp(t)
  const base = { amount: 100, currency: 'CNY' }
  await refused(ta, () => create(ta, { ...base, description: 'Order\u0000 42' }), 400, 'description: must not contain NUL characters')
  await refused(ta, () => create(ta, { ...base, metadata: { orderId: '42\u0000' } }), 400, 'metadata.orderId: must not contain NUL characters')
  await refused(ta, () => create(ta, { ...base, metadata: { ['order\u0000Id']: '42' } }), 400, 'metadata: must not contain NUL characters')
  await refused(ta, () => create(ta, { ...base, successUrl: 'https://shop.example.com/\u0000' }), 400, 'successUrl: must not contain NUL characters')
})

test('an unknown top-level field is named in the error', async (t) => {
  const ta = await startTestApp(t)
  await refused(ta, () => create(ta, { amount: 100, currency: 'CNY', foo: 1 }), 400, 'unknown field: foo')
  await refused(ta, () => create(ta, { amount: 100, currency: 'CNY', success_url: 'https://x.example' }), 400, 'unknown field: success_url')
  // A misspelt field is named even when other fields are wrong too.
  await refused(ta, () => create(ta, { amount: 'x', currency: 'CNY', descripton: 'typo' }), 400, 'unknown field: descripton')
})

test('a body that is not JSON, or not a JSON object, is refused', async (t) => {
  const ta = await startTestApp(t)
  const raw = (text: string) => () => ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw: text })
  await refused(ta, raw('{"amount": 100, "currency": '), 400, 'invalid JSON body')
  await refused(ta, raw('amount=100&currency=CNY'), 400, 'invalid JSON body')
  await refused(ta, raw(''), 400, 'invalid JSON body')
  await refused(ta, raw('[]'), 400, 'body: must be an object')
})

test('a body over 64 KiB is refused with 413', async (t) => {
  const ta = await startTestApp(t)
  const text = JSON.stringify({ amount: 100, currency: 'CNY', description: 'd'.repeat(64 * 1024) })
  await refused(ta, () => ta.request('POST', '/api/v1/checkout', { key: ta.merchant.testKey, raw: text }), 413, 'request body too large')
})

test('a request without a usable secret key is refused with 401 and creates nothing', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 100, currency: 'CNY' }
  await refused(ta, () => create(ta, body, null), 401, 'missing API key: send Authorization: Bearer <secret key>')
  await refused(ta, () => create(ta, body, 'not-a-key'), 401, 'invalid API key')
  await refused(ta, () => create(ta, body, 'sk_test_short'), 401, 'invalid API key')
  await refused(ta, () => create(ta, body, `pk_test_${'a'.repeat(32)}`), 401, 'invalid API key')
  // Well formed (sk_test_ + 32 base62) but never issued.
  await refused(ta, () => create(ta, body, `sk_test_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6'}`), 401, 'invalid API key')
  await refused(ta, () => ta.request('POST', '/api/v1/checkout', { headers: { authorization: `Basic ${ta.merchant.testKey}` }, body }), 401, 'invalid API key')
  // The 401 comes first: a bad body with no key still answers 401.
  await refused(ta, () => create(ta, { amount: 'x' }, null), 401, 'missing API key: send Authorization: Bearer <secret key>')
})

test('providerHints are ignored in test mode: the session uses the mock provider', async (t) => {
  const ta = await startTestApp(t)
  for (const providerHints of [{ paypal: 'x' }, { wechat: 'nope' }, { creem: 'eu' }]) {
    const res = await create(ta, { amount: 100, currency: 'JPY', providerHints })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.body.mode, 'test')
    assert.equal(Object.hasOwn(res.body, 'chosenProvider'), false)
    const read = await ta.request('GET', `/api/v1/sessions/${res.body.id}`, { key: ta.merchant.testKey })
    assert.equal(read.status, 200)
    assert.equal(read.body.chosenProvider, 'mock')
    const { rows } = await ta.database.pool.query('select provider_config_id from sessions where id = $1', [res.body.id])
    assert.equal(rows[0].provider_config_id, null)
  }
})
