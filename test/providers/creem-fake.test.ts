/**
 * The fake itself checks requests as Creem does (docs/providers.md#testing-offline-till-fake-creem): key, field rules with the
 * message array, unknown ids, accounts kept apart, and a hosted page that follows the test cards.
 * Merchants testing their own integration offline rely on this as much as Till's adapter does.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startCreem } from '../helpers/creem.js'

async function fake(t: Parameters<typeof startCreem>[0]) {
  const { fake, ctl } = await startCreem(t)
  const a = fake.addAccount()
  const call = async (method: string, path: string, body?: unknown, key: string | null = a.apiKey) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (key) headers['x-api-key'] = key
    const res = await fetch(fake.url + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as any }
  }
  const product = async (over: object = {}) => (await call('POST', '/v1/products', { name: 'Mug', price: 1500, currency: 'USD', billing_type: 'onetime', ...over })).body
  return { fake, ctl, a, call, product }
}

test('no key or an unknown key: 403 with Creem\'s error shape (401 by knob)', async (t) => {
  const f = await fake(t)
  for (const key of [null, 'creem_test_unknown']) {
    const r = await f.call('GET', '/v1/products/prod_1', undefined, key)
    assert.equal(r.status, 403)
    assert.deepEqual({ ...r.body, trace_id: typeof r.body.trace_id, timestamp: typeof r.body.timestamp }, { trace_id: 'string', status: 403, error: 'Forbidden', timestamp: 'number' })
  }
  await f.ctl.settings({ authFailureStatus: 401 })
  assert.deepEqual([(await f.call('GET', '/v1/products/x', undefined, null)).body.error], ['Unauthorized'])
})

test('product rules: every problem listed in the message array', async (t) => {
  const f = await fake(t)
  const rows: Array<[object, string[]]> = [
    [{ name: 'x', price: 50, currency: 'EUR', billing_type: 'onetime' }, ['price must be an integer of at least 100 (or 0 for a free product)']],
    [{ name: 'x', price: 10.5, currency: 'GBP', billing_type: 'onetime' }, ['price must be an integer of at least 100 (or 0 for a free product)', 'currency must be one of the following values: EUR, USD']],
    [{ name: '', price: 100, currency: 'EUR', billing_type: 'recurring' }, ['name must be a non-empty string', 'billing_period must be one of the following values: every-month, every-three-months, every-six-months, every-year']],
    [{ name: 'x', price: 100, currency: 'EUR', billing_type: 'onetime', tax_mode: 'both' }, ['tax_mode must be one of the following values: inclusive, exclusive']],
    [{ name: 'x', price: 100, currency: 'EUR', billing_type: 'onetime', colour: 'red' }, ['property colour should not exist']],
  ]
  for (const [body, message] of rows) {
    const r = await f.call('POST', '/v1/products', body)
    assert.deepEqual([r.status, r.body.error, r.body.message], [400, 'Bad Request', message], JSON.stringify(body))
  }
  const bad = await f.call('POST', '/v1/products', '{"name":')
  assert.equal(bad.status, 400)
  const free = await f.product({ price: 0 })
  assert.equal(free.price, 0)
})

test('checkout rules: product must exist in this account, one of customer id or email, at most 3 custom fields, a real URL', async (t) => {
  const f = await fake(t)
  const p = await f.product()
  const rows: Array<[object, number, string[] | undefined]> = [
    [{ product_id: 'prod_nope' }, 404, ['Product not found']],
    [{ product_id: p.id, customer: { id: 'cust_1', email: 'a@b.c' } }, 400, ['You may only specify one of these parameters: customer.id, customer.email']],
    [{ product_id: p.id, units: 0 }, 400, ['units must not be less than 1']],
    [{ product_id: p.id, custom_fields: [{}, {}, {}, {}] }, 400, ['custom_fields must contain no more than 3 elements']],
    [{ product_id: p.id, success_url: 'not a url' }, 400, ['success_url must be a URL address']],
    [{ product_id: p.id, amount: 100 }, 400, ['property amount should not exist']],
    [{ product_id: p.id, custom_price: 99 }, 400, ['custom_price must be an integer from 100 to 99999999']],
    [{ product_id: p.id, custom_price: 100_000_000 }, 400, ['custom_price must be an integer from 100 to 99999999']],
    [{ product_id: (await f.product({ billing_type: 'recurring', billing_period: 'every-month' })).id, custom_price: 500 }, 400, ['custom_price is only supported for one-time payment products']],
  ]
  for (const [body, status, message] of rows) {
    const r = await f.call('POST', '/v1/checkouts', body)
    assert.deepEqual([r.status, r.body.message], [status, message], JSON.stringify(body))
  }
  const ok = await f.call('POST', '/v1/checkouts', { product_id: p.id, request_id: 'order-1', success_url: 'https://shop.example/ok?plan=a' })
  assert.deepEqual({ ...ok.body, id: undefined, checkout_url: undefined }, {
    id: undefined, object: 'checkout', mode: 'test', status: 'pending', request_id: 'order-1', product: p.id, units: 1, custom_fields: [],
    checkout_url: undefined, success_url: 'https://shop.example/ok?plan=a',
  })
  assert.equal(ok.body.checkout_url, `${f.fake.url}/test/checkout/${p.id}/${ok.body.id}`)
  // custom_price replaces the product's price for this checkout only; the SDK reads a product at /v1/products/{id}.
  const custom = await f.call('POST', '/v1/checkouts', { product_id: p.id, custom_price: 2500 })
  assert.equal(custom.body.custom_price, 2500)
  await f.ctl.complete(custom.body.id)
  assert.deepEqual([(await f.ctl.checkout(custom.body.id)).order.amount, (await f.call('GET', `/v1/products/${p.id}`)).body.price], [2500, 1500])
  // Another account cannot see it.
  const other = f.fake.addAccount()
  assert.equal((await f.call('GET', `/v1/checkouts?checkout_id=${ok.body.id}`, undefined, other.apiKey)).status, 404)
  assert.equal((await f.call('GET', `/v1/checkouts?checkout_id=${ok.body.id}`)).status, 200)
})

test('the hosted page follows the test cards, then redirects with the merchant\'s own query kept and the signed parameters', async (t) => {
  const f = await fake(t)
  const p = await f.product()
  const ch = (await f.call('POST', '/v1/checkouts', { product_id: p.id, success_url: 'https://shop.example/ok?plan=a' })).body
  const page = await fetch(ch.checkout_url)
  assert.match(await page.text(), /<button type="submit">Pay \$15\.00<\/button>/)
  const pay = (card: string) => fetch(ch.checkout_url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: 'ann@example.com', card }) })
  for (const [card, text] of [['4000 0000 0000 0002', 'Your card was declined.'], ['4000000000009995', 'Your card has insufficient funds.'], ['1234', 'Use one of the test cards']]) {
    const r = await pay(card)
    assert.equal(r.status, 200)
    assert.ok((await r.text()).includes(`<p class="error" role="alert">${text}`), card)
  }
  assert.equal((await f.ctl.checkout(ch.id)).failed_tries, 2)
  const ok = await pay('4242 4242 4242 4242')
  assert.equal(ok.status, 302)
  const to = new URL(ok.headers.get('location')!)
  assert.deepEqual([...to.searchParams.keys()], ['plan', 'checkout_id', 'order_id', 'customer_id', 'product_id', 'signature'])
  const done = (await f.call('GET', `/v1/checkouts?checkout_id=${ch.id}`)).body
  assert.deepEqual([done.status, done.order.status, done.order.amount, done.order.currency], ['completed', 'paid', 1500, 'USD'])
  const search = (await f.call('GET', `/v1/transactions/search?order_id=${done.order.id}`)).body
  assert.deepEqual([search.items.length, search.items[0].id, search.pagination.total_records], [1, done.order.transaction, 1])
})

test('forced errors: before acting, or after acting (the answer lost)', async (t) => {
  const f = await fake(t)
  await f.ctl.error({ route: 'createProduct', status: 503, message: 'maintenance' })
  const r = await f.call('POST', '/v1/products', { name: 'x', price: 100, currency: 'EUR', billing_type: 'onetime' })
  assert.deepEqual([r.status, r.body.error, r.body.message], [503, 'Service Unavailable', ['maintenance']])
  assert.deepEqual(await f.ctl.products(), [])
  await f.ctl.error({ route: 'createProduct', status: 500, applied: true })
  assert.equal((await f.call('POST', '/v1/products', { name: 'x', price: 100, currency: 'EUR', billing_type: 'onetime' })).status, 500)
  assert.equal((await f.ctl.products()).length, 1)
})
