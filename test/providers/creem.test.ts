/**
 * The Creem adapter against its fake over real HTTP on loopback (docs/providers.md#creem-creem): products per
 * amount, checkouts, webhook verification (tampered bodies, bad signatures, a missing secret,
 * duplicates, retries), queries, closing, and the signed success redirect.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { ProviderError, type PaymentFact } from '../../src/providers/types.js'
import { createCreemProvider } from '../../src/providers/creem/index.js'
import { webhookSignature } from '../../src/providers/creem/sign.js'
import { setup } from '../helpers/creem.js'

const posts = async (ctl: Awaited<ReturnType<typeof setup>>['ctl'], path: string) => (await ctl.requests()).filter((r) => r.method === 'POST' && r.path === path)

test('a checkout for any amount: one product per currency, custom_price per checkout, request_id = attempt, success_url = relay', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  const [product] = await s.ctl.products()
  assert.deepEqual({ ...product, id: undefined }, { id: undefined, price: 100, currency: 'EUR', name: 'Payment', taxMode: 'inclusive' })
  const checkout = await s.ctl.checkout(made.providerRef!)
  assert.equal(checkout.request_id, a.attemptId)
  assert.equal(checkout.custom_price, 1234)
  assert.equal(checkout.success_url, a.returnUrl)
  assert.deepEqual(checkout.metadata, { sessionId: a.sessionId, attemptId: a.attemptId })
  assert.deepEqual(made.action, { kind: 'redirect', url: `${s.fake.url}/test/checkout/${product.id}/${made.providerRef}` })
  assert.deepEqual(made.data, { checkoutId: made.providerRef, productId: product.id })

  await s.provider.createAttempt(s.cfg, s.attempt({ amount: 99_999_999 }))
  await s.provider.createAttempt(s.cfg, s.attempt({ currency: 'USD' }))
  const cheap = await s.provider.createAttempt(s.cfg, s.attempt({ amount: 100 }))
  assert.deepEqual((await s.ctl.products()).map((p) => [p.price, p.currency]), [[100, 'EUR'], [100, 'USD']])
  assert.deepEqual((await posts(s.ctl, '/v1/checkouts')).map((r) => r.body.custom_price), [1234, 99_999_999, 1234, 100])
  // The customer pays the checkout's amount, not the product's price.
  await s.ctl.complete(made.providerRef!)
  assert.deepEqual([(await s.ctl.checkout(made.providerRef!)).order.amount, (await s.ctl.checkout(cheap.providerRef!)).custom_price], [1234, 100])
})

test('five first uses of a new amount at once make one product', async (t) => {
  const s = await setup(t)
  const made = await Promise.all([1, 2, 3, 4, 5].map(() => s.provider.createAttempt(s.cfg, s.attempt({ amount: 4999 }))))
  assert.equal((await s.ctl.products()).length, 1)
  assert.equal(new Set(made.map((m) => m.data!.productId)).size, 1)
})

test('below 1.00, or in a currency Creem does not take, nothing is sent', async (t) => {
  const s = await setup(t)
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ amount: 99 })), (e: unknown) => e instanceof ProviderError && e.code === 'amount_below_minimum' && e.outcome === 'rejected')
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ amount: 100_000_000 })), (e: unknown) => e instanceof ProviderError && e.code === 'amount_above_maximum')
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ currency: 'JPY' })), (e: unknown) => e instanceof ProviderError && e.code === 'unsupported_currency')
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ channel: 'native' })), (e: unknown) => e instanceof ProviderError && e.code === 'unsupported_channel')
  assert.deepEqual(await s.ctl.requests(), [])
})

test('a wrong API key is refused (403, or 401) and no product is remembered', async (t) => {
  const s = await setup(t)
  const wrong = { ...s.cfg, credentials: { ...s.cfg.credentials, apiKey: 'creem_test_wrong' } }
  await assert.rejects(s.provider.createAttempt(wrong, s.attempt()), (e: unknown) => e instanceof ProviderError && e.outcome === 'rejected' && e.code === 'unauthorized' && e.message === 'Creem 403 Forbidden')
  await s.ctl.settings({ authFailureStatus: 401 })
  await assert.rejects(s.provider.createAttempt(wrong, s.attempt()), (e: unknown) => e instanceof ProviderError && e.message === 'Creem 401 Unauthorized')
  assert.equal(await s.products.find('pc_test', 100, 'EUR'), null)
  const [r] = await s.ctl.requests()
  assert.deepEqual(Object.keys(r.body).sort(), ['error', 'status', 'timestamp', 'trace_id'])
})

test('a remembered product Creem no longer knows is replaced once, and the checkout goes through', async (t) => {
  const s = await setup(t)
  await s.products.remember('pc_test', 100, 'EUR', 'prod_deleted')
  const made = await s.provider.createAttempt(s.cfg, s.attempt())
  const [product] = await s.ctl.products()
  assert.equal(made.data!.productId, product.id)
  assert.equal(await s.products.find('pc_test', 100, 'EUR'), product.id)
  assert.deepEqual((await posts(s.ctl, '/v1/checkouts')).map((r) => r.status), [404, 200])
})

test('Creem failing or too slow is an unknown outcome, never a refusal', async (t) => {
  const s = await setup(t)
  await s.ctl.error({ route: 'createCheckout', status: 500, applied: true })
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt()), (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === 'HTTP_500')
  // A short timeout for the hanging query only: the checkout's work is not cut by it on a busy machine.
  const impatient = createCreemProvider({ products: s.products, timeoutMs: 300, now: s.clock })
  t.after(() => impatient.client.close())
  await s.ctl.error({ route: 'getCheckout', status: 200, hangMs: 1000 })
  await assert.rejects(impatient.queryPayment(s.cfg, { attemptId: 'att_x', providerRef: 'ch_x', data: {} }), (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown' && e.code === 'network')
})

test('checkout.completed: signed over the raw body, acknowledged with 200, a payment fact with the transaction id', async (t) => {
  const s = await setup(t)
  const { a, made } = await s.paid()
  const [d] = await s.ctl.deliveries()
  assert.deepEqual([d.eventType, d.status, d.acked, d.attempt], ['checkout.completed', 200, true, 0])
  const rx = s.rx.received[0]
  assert.match(String(rx.headers['creem-signature']), /^[0-9a-f]{64}$/)
  const checkout = await s.ctl.checkout(made.providerRef!)
  assert.deepEqual(rx.result, {
    ack: { status: 200 },
    facts: [{
      kind: 'payment', attemptId: a.attemptId, status: 'succeeded', providerRef: checkout.order.id, amount: 1234, currency: 'EUR',
      paidAt: new Date('2026-05-20T04:00:00.000Z'), data: { checkoutId: made.providerRef, orderId: checkout.order.id, transactionId: checkout.order.transaction },
    }],
  })
})

test('checkout.completed with the order as a bare id: the amount comes from the checkout Creem shows, or is reported unknown', async (t) => {
  const s = await setup(t)
  const { a, made } = await s.paid()
  const event = JSON.parse(s.rx.received[0].body.toString())
  const checkout = await s.ctl.checkout(made.providerRef!)
  const bare = Buffer.from(JSON.stringify({ ...event, object: { ...event.object, order: checkout.order.id } }))
  const signed = { 'creem-signature': webhookSignature(s.creds.webhookSecret, bare) }
  const r = await s.provider.parseNotification(s.cfg, { body: bare, headers: signed })
  assert.deepEqual(r.ack, { status: 200 })
  const fact = r.facts[0] as PaymentFact
  assert.deepEqual([fact.attemptId, fact.status, fact.providerRef, fact.amount, fact.currency, fact.data?.transactionId], [a.attemptId, 'succeeded', checkout.order.id, 1234, 'EUR', checkout.order.transaction])
  assert.equal((await s.ctl.requests()).filter((q) => q.path === `/v1/checkouts?checkout_id=${made.providerRef}`).length, 1)

  // Creem cannot say: the webhook is retried later rather than taken without its amount.
  await s.ctl.error({ route: 'getCheckout', status: 503 })
  assert.deepEqual((await s.provider.parseNotification(s.cfg, { body: bare, headers: signed })).ack.status, 503)
  // A checkout Creem does not know: the payment is reported with its amount unknown, for the core to refuse.
  const stranger = Buffer.from(JSON.stringify({ ...event, object: { ...event.object, id: 'ch_unknown', order: checkout.order.id } }))
  const unknown = await s.provider.parseNotification(s.cfg, { body: stranger, headers: { 'creem-signature': webhookSignature(s.creds.webhookSecret, stranger) } })
  const f = unknown.facts[0] as PaymentFact
  assert.deepEqual([unknown.ack.status, f.kind, f.status, f.amount, f.currency], [200, 'payment', 'succeeded', undefined, undefined])
})

test('a tampered body, a missing header, another secret or no secret at all: 401 and no fact', async (t) => {
  const s = await setup(t)
  await s.paid()
  const { body, headers } = s.rx.received[0]
  const sig = String(headers['creem-signature'])
  const tampered = Buffer.from(body.toString().replace('"amount":1234', '"amount":1'))
  assert.notDeepEqual(tampered, body)
  const cases: Array<[string, typeof s.cfg, Buffer, Record<string, string>, string]> = [
    ['tampered body', s.cfg, tampered, { 'creem-signature': sig }, 'signature refused: mismatch'],
    ['no header', s.cfg, body, {}, 'signature refused: no_signature'],
    ['another secret', { ...s.cfg, credentials: { ...s.cfg.credentials, webhookSecret: 'whsec_other' } }, body, { 'creem-signature': sig }, 'signature refused: mismatch'],
    ['no secret configured', { ...s.cfg, credentials: { apiKey: s.creds.apiKey } }, body, { 'creem-signature': sig }, 'signature refused: no_secret'],
    ['a sha256= prefix', s.cfg, body, { 'creem-signature': `sha256=${sig}` }, 'signature refused: malformed_signature'],
  ]
  for (const [name, cfg, b, h, reason] of cases) {
    const r = await s.provider.parseNotification(cfg, { body: b, headers: h })
    assert.deepEqual(r, { ack: { status: 401, body: { error: reason } }, facts: [{ kind: 'ignored', reason }] }, name)
  }
})

test('a delivery signed wrongly is refused, and the retry 30 s later is accepted', async (t) => {
  const s = await setup(t)
  await s.ctl.badSignature()
  await s.paid()
  assert.deepEqual((await s.ctl.deliveries()).map((d) => [d.attempt, d.badSignature, d.status]), [[0, true, 401]])
  s.clock.advance(29_999)
  assert.equal((await s.ctl.tick()).ran, 0)
  s.clock.advance(1)
  await s.ctl.tick()
  assert.deepEqual((await s.ctl.deliveries()).map((d) => [d.attempt, d.badSignature, d.status]), [[0, true, 401], [1, false, 200]])
  assert.equal(s.rx.received[1].result.facts[0].kind, 'payment')
})

test('an endpoint that keeps failing is retried after 30 s, 1 min, 5 min and 1 h, then given up', async (t) => {
  const s = await setup(t)
  const down = createServer((_req, res) => res.writeHead(503).end('down'))
  await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => down.close(() => resolve())))
  await s.ctl.registerWebhook(`http://127.0.0.1:${(down.address() as AddressInfo).port}/hook`, s.creds.apiKey, true)
  const made = await s.provider.createAttempt(s.cfg, s.attempt())
  const start = s.clock().getTime()
  await s.ctl.complete(made.providerRef!)
  for (const waitSec of [30, 60, 300, 3600]) {
    s.clock.advance(waitSec * 1000 - 1)
    assert.equal((await s.ctl.tick()).ran, 0, `not before ${waitSec} s`)
    s.clock.advance(1)
    assert.equal((await s.ctl.tick()).ran, 1, `after ${waitSec} s`)
  }
  s.clock.advance(7 * 24 * 3600_000)
  assert.deepEqual(await s.ctl.tick(), { ran: 0, pending: 0 })
  const deliveries = await s.ctl.deliveries()
  assert.deepEqual(deliveries.map((d) => [d.attempt, d.status, d.acked, d.atMs - start]), [
    [0, 503, false, 0], [1, 503, false, 30_000], [2, 503, false, 90_000], [3, 503, false, 390_000], [4, 503, false, 3_990_000],
  ])
})

test('duplicate deliveries carry the same event and both get 200', async (t) => {
  const s = await setup(t)
  await s.ctl.notifications({ mode: 'duplicate', count: 3 })
  await s.paid()
  const d = await s.ctl.deliveries()
  assert.deepEqual(d.map((x) => x.status), [200, 200, 200])
  assert.equal(new Set(d.map((x) => x.eventId)).size, 1)
  assert.equal(new Set(s.rx.received.map((r) => r.body.toString())).size, 1)
})

test('a dispute is acknowledged and reported as ignored, to be answered in the Creem dashboard', async (t) => {
  const s = await setup(t)
  const { ref } = await s.paid()
  const { dispute } = await s.ctl.dispute(String(ref.data.transactionId))
  const r = s.rx.received.at(-1)!.result
  assert.deepEqual(r, { ack: { status: 200 }, facts: [{ kind: 'ignored', reason: `dispute ${dispute} on transaction ${ref.data.transactionId} (1234 EUR): answer it in the Creem dashboard` }] })
})

test('queryPayment: pending until paid, then the order; expired is closed; unknown is closed', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  const ref = { attemptId: a.attemptId, providerRef: made.providerRef!, data: made.data! }
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref), { status: 'pending' })
  await s.ctl.fail(made.providerRef!)
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref), { status: 'pending' })
  await s.ctl.complete(made.providerRef!)
  const order = (await s.ctl.checkout(made.providerRef!)).order
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref), { status: 'succeeded', providerRef: order.id, amount: 1234, currency: 'EUR', paidAt: new Date('2026-05-20T04:00:00.000Z') })

  const b = s.attempt()
  const other = await s.provider.createAttempt(s.cfg, b)
  await s.ctl.expire(other.providerRef!)
  assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: b.attemptId, providerRef: other.providerRef!, data: other.data! }), { status: 'closed' })
  assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: 'att_x', providerRef: 'ch_unknown', data: {} }), { status: 'closed' })
  assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: 'att_x', providerRef: null, data: {} }), { status: 'pending' })
  // Another attempt's checkout never settles this one.
  await assert.rejects(s.provider.queryPayment(s.cfg, { ...ref, attemptId: b.attemptId }), (e: unknown) => e instanceof ProviderError && e.code === 'request_id_mismatch')
})

test('closing: Creem cannot close a checkout, so an unpaid one is closed on our side and a paid one surfaces its money', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  const ref = { attemptId: a.attemptId, providerRef: made.providerRef!, data: made.data! }
  assert.deepEqual(await s.provider.closePayment(s.cfg, ref), { closed: true })
  await s.ctl.complete(made.providerRef!)
  const closed = await s.provider.closePayment(s.cfg, ref)
  assert.ok('alreadyPaid' in closed)
  const fact = closed.alreadyPaid as PaymentFact
  assert.deepEqual([fact.attemptId, fact.status, fact.amount, fact.currency], [a.attemptId, 'succeeded', 1234, 'EUR'])
})

test('the success redirect: request_id first, signed with the API key, verified; any change is refused', async (t) => {
  const s = await setup(t)
  const { a, made, redirect } = await s.paid()
  const url = new URL(redirect)
  assert.equal(url.origin + url.pathname, a.returnUrl)
  assert.deepEqual([...url.searchParams.keys()], ['request_id', 'checkout_id', 'order_id', 'customer_id', 'product_id', 'signature'])
  assert.equal(url.searchParams.get('checkout_id'), made.providerRef)
  assert.deepEqual(s.provider.verifyReturn!(s.cfg, url.searchParams), { verified: true, attemptId: a.attemptId })
  const other = { ...s.cfg, credentials: { ...s.cfg.credentials, apiKey: 'creem_test_other' } }
  assert.deepEqual(s.provider.verifyReturn!(other, url.searchParams), { verified: false, reason: 'mismatch' })
  const forged = new URLSearchParams(url.search.replace(a.attemptId, 'att_000000000000000000000000'))
  assert.deepEqual(s.provider.verifyReturn!(s.cfg, forged), { verified: false, reason: 'mismatch' })
})
