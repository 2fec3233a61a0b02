/**
 * Creem end to end through Till: a live merchant whose creem configuration (made through the admin
 * API) points settings.apiBase at the fake; the fake's signed webhooks reach /hooks/creem/{configId};
 * reconciliation is driven by the clock. Payments, sessions below Creem's minimum, isolation.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { webhookSignature } from '../../src/providers/creem/sign.js'
import { fitsSession } from '../../src/providers/registry.js'
import { cancelSession, expireDue } from '../../src/services/sessions.js'
import { creemTill } from '../helpers/creem-till.js'

test('a live EUR session paid on Creem: checkout.completed makes it paid, with the order id and the transaction kept', async (t) => {
  const c = await creemTill(t)
  const id = await c.session()
  const { action, attempt } = await c.start(id)
  assert.equal((await c.read(id)).status, 'processing')
  const [product] = await c.ctl.products()
  assert.deepEqual(action, { kind: 'redirect', url: `${c.fake.url}/test/checkout/${product.id}/${attempt.providerRef}` })
  assert.deepEqual(await c.query('select amount, currency, product_id from provider_products where provider_config_id = $1', [c.configId]), [{ amount: 100, currency: 'EUR', product_id: product.id }])
  const checkout = await c.ctl.checkout(attempt.providerRef!)
  assert.deepEqual([checkout.request_id, checkout.success_url], [attempt.id, `${c.ta.baseUrl}/c/${id}/done`])

  await c.ctl.complete(attempt.providerRef!)
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.url, d.status]), [[c.hookUrl(c.configId), 200]])
  const s = await c.read(id)
  const order = (await c.ctl.checkout(attempt.providerRef!)).order
  assert.equal(s.status, 'paid')
  assert.deepEqual({ ...s.record, id: undefined, paidAt: undefined }, { id: undefined, paidAt: undefined, provider: 'creem', providerRef: order.id, amount: 1234, refundedAmount: 0, status: 'paid' })
  const [record] = await c.query('select provider_data from records where id = $1', [s.record.id])
  assert.deepEqual(record.provider_data, { checkoutId: attempt.providerRef, productId: product.id, orderId: order.id, transactionId: order.transaction })
  assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])

  // The next session, of any amount, reuses the product and sets its own price.
  const next = await c.start(await c.session({ amount: 999 }))
  assert.equal((await c.ctl.products()).length, 1)
  assert.equal((await c.ctl.checkout(next.attempt.providerRef!)).custom_price, 999)
})

test('below Creem\'s 1.00 minimum: a creem hint is refused with a clear message, and an unhinted session finds no provider', async (t) => {
  const c = await creemTill(t)
  const hinted = await c.ta.request('POST', '/api/v1/checkout', { key: c.ta.merchant.liveKey, body: { amount: 99, currency: 'EUR', providerHints: { creem: 'main' } } })
  assert.deepEqual([hinted.status, hinted.body], [400, { error: 'provider creem/main not available: amount_below_minimum (at least 100)', code: 'provider_unavailable' }])
  const unhinted = await c.ta.request('POST', '/api/v1/checkout', { key: c.ta.merchant.liveKey, body: { amount: 99, currency: 'USD' } })
  assert.deepEqual([unhinted.status, unhinted.body], [400, { error: 'no provider available for USD in live mode: the amount is below the smallest creem/main takes', code: 'provider_unavailable' }])
  const ok = await c.ta.request('POST', '/api/v1/checkout', { key: c.ta.merchant.liveKey, body: { amount: 100, currency: 'USD' } })
  assert.equal(ok.status, 200)
  // The same rule decides what the checkout page offers.
  assert.deepEqual([fitsSession('creem', 'EUR', 99), fitsSession('creem', 'EUR', 100), fitsSession('creem', 'CNY', 100), fitsSession('wechat', 'CNY', 1)], [false, true, false, true])
})

test('three deliveries of checkout.completed make one record and one event', async (t) => {
  const c = await creemTill(t)
  await c.ctl.notifications({ mode: 'duplicate', count: 3 })
  const { id } = await c.paid()
  assert.deepEqual((await c.ctl.deliveries()).map((d) => d.status), [200, 200, 200])
  assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])
  assert.deepEqual(await c.query('select count(*)::int as n from records where session_id = $1', [id]), [{ n: 1 }])
})

test('reordered webhooks: the later session\'s payment arrives first, each session is paid once', async (t) => {
  const c = await creemTill(t)
  const first = await c.session()
  const second = await c.session()
  const a = (await c.start(first)).attempt
  const b = (await c.start(second)).attempt
  await c.ctl.notifications({ mode: 'reorder' })
  await c.ctl.complete(a.providerRef!)
  assert.equal((await c.read(first)).status, 'processing', 'held back')
  await c.ctl.complete(b.providerRef!)
  const order = (await c.ctl.deliveries()).map((d) => d.eventId)
  const events = await c.ctl.events()
  const requestOf = (eventId: string) => events.find((e) => e.id === eventId)!.body.object.request_id
  assert.deepEqual(order.map(requestOf), [b.id, a.id])
  assert.deepEqual([(await c.read(first)).status, (await c.read(second)).status], ['paid', 'paid'])
  assert.deepEqual(await c.types('sessionId', first), ['payment.succeeded'])
})

test('a dropped checkout.completed: reconciliation asks Creem and records the payment', async (t) => {
  const c = await creemTill(t)
  await c.ctl.notifications({ mode: 'drop' })
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  assert.equal((await c.read(id)).status, 'processing')
  c.ta.clock.advance(59_000)
  assert.equal(await reconcileAttempts(c.ta.deps), 0, 'not due before its first check')
  c.ta.clock.advance(1_000)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  const s = await c.read(id)
  assert.equal(s.status, 'paid')
  assert.equal(s.record.providerRef, (await c.ctl.checkout(attempt.providerRef!)).order.id)
  assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])
})

test('reconciliation checks the currency Creem shows: a USD order on a EUR session is not recorded as paid, and is recorded as a discrepancy once however often it is asked', async (t) => {
  const c = await creemTill(t)
  await c.ctl.notifications({ mode: 'drop' })
  // The configuration's remembered EUR product is (wrongly) a USD one: Creem charges dollars.
  const res = await fetch(`${c.fake.url}/v1/products`, {
    method: 'POST', headers: { 'x-api-key': c.creds.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Payment', price: 100, currency: 'USD', billing_type: 'onetime', tax_mode: 'inclusive' }),
  })
  const usd = (await res.json()) as { id: string }
  await c.query('insert into provider_products (provider_config_id, amount, currency, product_id) values ($1, 100, $2, $3)', [c.configId, 'EUR', usd.id])
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  assert.deepEqual([(await c.ctl.checkout(attempt.providerRef!)).order.amount, (await c.ctl.checkout(attempt.providerRef!)).order.currency], [1234, 'USD'])
  c.ta.clock.advance(60_000)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  assert.notEqual((await c.read(id)).status, 'paid')
  assert.deepEqual(await c.types('sessionId', id), [])
  // Asked again every hour while the attempt is open, Creem says the same: recorded once, not once an hour.
  for (let i = 0; i < 3; i++) {
    c.ta.clock.advance(3_600_000)
    assert.equal(await reconcileAttempts(c.ta.deps), 1)
  }
  assert.deepEqual(await c.query(`select kind, report->>'currency' as currency from discrepancies`, []), [{ kind: 'payment_amount', currency: 'USD' }])
})

test('a tampered body or a bad signature is refused with 401 and changes nothing; the genuine retry pays', async (t) => {
  const c = await creemTill(t)
  await c.ctl.badSignature()
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.badSignature, d.status]), [[true, 401]])
  assert.equal((await c.read(id)).status, 'processing')

  // A genuine body with one byte changed, under its genuine signature.
  const [event] = await c.ctl.events()
  const body = JSON.stringify(event.body)
  const { createHmac } = await import('node:crypto')
  const signature = createHmac('sha256', c.creds.webhookSecret).update(body).digest('hex')
  const tampered = await c.ta.request('POST', `/hooks/creem/${c.configId}`, { raw: body.replace('"sub_total":1234', '"sub_total":1233'), headers: { 'creem-signature': signature } })
  assert.deepEqual([tampered.status, tampered.body], [401, { error: 'signature refused: mismatch' }])
  const unsigned = await c.ta.request('POST', `/hooks/creem/${c.configId}`, { raw: body })
  assert.deepEqual([unsigned.status, unsigned.body], [401, { error: 'signature refused: no_signature' }])
  assert.equal((await c.read(id)).status, 'processing')
  assert.deepEqual(await c.types('sessionId', id), [])

  c.ta.clock.advance(30_000)
  await c.ctl.tick()
  assert.equal((await c.read(id)).status, 'paid')
})

test('a webhook is verified over its raw bytes: pretty-printed and signed as sent it pays; signed over its compact form it is refused', async (t) => {
  const c = await creemTill(t)
  await c.ctl.notifications({ mode: 'drop' })
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  const [event] = await c.ctl.events()
  const pretty = JSON.stringify(event.body, null, 2)
  const post = (signedOver: string) =>
    c.ta.request('POST', `/hooks/creem/${c.configId}`, { raw: pretty, headers: { 'creem-signature': webhookSignature(c.creds.webhookSecret, signedOver) } })
  // What a receiver that parsed and re-serialised the body would have checked.
  const compact = await post(JSON.stringify(event.body))
  assert.deepEqual([compact.status, compact.body], [401, { error: 'signature refused: mismatch' }])
  assert.equal((await c.read(id)).status, 'processing')
  const asSent = await post(pretty)
  assert.equal(asSent.status, 200)
  assert.equal((await c.read(id)).status, 'paid')
  assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])
})

test('a genuine webhook posted to another configuration\'s URL does not touch this session', async (t) => {
  const c = await creemTill(t)
  // The same Creem account under a second label (same secret), and another account altogether.
  const sameAccount = await c.addConfig('second', c.creds)
  const otherAccount = await c.addConfig('third', c.fake.addAccount())
  await c.ctl.notifications({ mode: 'drop' })
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  const [event] = await c.ctl.events()
  await c.ctl.resend(event.id, c.hookUrl(sameAccount))
  await c.ctl.resend(event.id, c.hookUrl(otherAccount))
  assert.deepEqual((await c.ctl.deliveries()).map((d) => d.status), [null, 200, 401])
  assert.equal((await c.read(id)).status, 'processing')
  assert.deepEqual(await c.types('sessionId', id), [])
  // A configuration id under the wrong provider's path is not found.
  const wrongPath = await c.ta.request('POST', `/hooks/wechat/${c.configId}`, { raw: JSON.stringify(event.body) })
  assert.equal(wrongPath.status, 404)
  await c.ctl.resend(event.id)
  assert.equal((await c.read(id)).status, 'paid')
})

test('Creem has no close: after expiry the checkout is closed on our side, and paying it anyway is still recorded', async (t) => {
  const c = await creemTill(t)
  const id = await c.session({ expiresInSeconds: 60 })
  const { attempt } = await c.start(id)
  c.ta.clock.advance(61_000)
  assert.equal(await expireDue(c.ta.deps), 1)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  assert.deepEqual(await c.query('select status from attempts where id = $1', [attempt.id]), [{ status: 'closed' }])
  assert.equal((await c.read(id)).status, 'expired')
  // The customer had the Creem page open and pays now: money that moved is never lost.
  c.ta.clock.advance(1000)
  await c.ctl.complete(attempt.providerRef!)
  assert.equal((await c.read(id)).status, 'paid')
  assert.deepEqual(await c.types('sessionId', id), ['session.expired', 'payment.succeeded'])
})

test('a payment confirmed after the customer canceled is still recorded', async (t) => {
  const c = await creemTill(t)
  const id = await c.session()
  const { attempt } = await c.start(id)
  await cancelSession(c.ta.deps, id)
  c.ta.clock.advance(1000)
  await c.ctl.complete(attempt.providerRef!)
  assert.equal((await c.read(id)).status, 'paid')
  assert.deepEqual(await c.types('sessionId', id), ['session.canceled', 'payment.succeeded'])
})

test('a dispute is acknowledged and changes nothing: it is answered in the Creem dashboard', async (t) => {
  const c = await creemTill(t)
  const { id, checkoutId } = await c.paid()
  await c.ctl.dispute((await c.ctl.checkout(checkoutId)).order.transaction)
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.eventType, d.status]), [['checkout.completed', 200], ['dispute.created', 200]])
  assert.equal((await c.read(id)).status, 'paid')
})
