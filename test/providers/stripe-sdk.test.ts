/**
 * The fake and Till's Stripe verifier against Stripe's official Node SDK (`stripe` 23.1.0, a
 * development dependency): the SDK pointed at the fake (host, port, protocol) makes and reads what
 * Till makes and reads, with the fields Till reads present and typed; its webhook verifier accepts
 * the fake's signatures (a rotation's two v1 too); Till's verifier accepts the SDK's test headers.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import Stripe from 'stripe'
import { verifyWebhook } from '../../src/providers/stripe/sign.js'
import { setup } from '../helpers/stripe.js'

function sdkAt(url: string, key: string) {
  const u = new URL(url)
  return new Stripe(key, { host: u.hostname, port: Number(u.port), protocol: 'http', maxNetworkRetries: 0 })
}

/** An endpoint that keeps every delivery's raw bytes and headers. */
async function catcher(t: TestContext) {
  const got: Array<{ body: Buffer; headers: IncomingHttpHeaders }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks), headers: req.headers })
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

test('the SDK pointed at the fake: sessions, refunds, balance transactions and webhook endpoints parse, with the fields Till reads typed', async (t) => {
  const s = await setup(t)
  const sdk = sdkAt(s.fake.url, s.secretKey)
  const made = await sdk.checkout.sessions.create({
    mode: 'payment', client_reference_id: 'att_sdk', success_url: 'https://till.example/c/sess_sdk/done', cancel_url: 'https://till.example/c/sess_sdk',
    line_items: [{ quantity: 1, price_data: { currency: 'jpy', unit_amount: 1500, product_data: { name: 'Blue mug' } } }],
    metadata: { till_session_id: 'sess_sdk', till_attempt_id: 'att_sdk' }, payment_intent_data: { metadata: { till_attempt_id: 'att_sdk' } },
    expires_at: Math.floor(s.clock().getTime() / 1000) + 3600, locale: 'auto',
  }, { idempotencyKey: 'till-checkout-att_sdk' })
  assert.equal(typeof made.id, 'string')
  assert.equal(typeof made.url, 'string')
  assert.deepEqual([made.status, made.payment_status, made.client_reference_id, made.amount_total, made.currency], ['open', 'unpaid', 'att_sdk', 1500, 'jpy'])

  await s.ctl.complete(made.id)
  const paid = await sdk.checkout.sessions.retrieve(made.id, { expand: ['payment_intent'] })
  assert.deepEqual([paid.status, paid.payment_status, paid.amount_total, paid.currency], ['complete', 'paid', 1500, 'jpy'])
  const pi = paid.payment_intent as Stripe.PaymentIntent
  assert.equal(typeof pi.id, 'string')
  assert.deepEqual([pi.status, pi.metadata.till_attempt_id], ['succeeded', 'att_sdk'])

  const refund = await sdk.refunds.create({ payment_intent: pi.id, amount: 500, metadata: { till_refund_id: 'rf_sdk', till_attempt_id: 'att_sdk' } }, { idempotencyKey: 'till-refund-rf_sdk' })
  assert.deepEqual([refund.status, refund.amount, refund.currency, refund.metadata?.till_refund_id], ['succeeded', 500, 'jpy', 'rf_sdk'])
  const read = await sdk.refunds.retrieve(refund.id, { expand: ['payment_intent'] })
  assert.equal((read.payment_intent as Stripe.PaymentIntent).metadata.till_attempt_id, 'att_sdk')
  const list = await sdk.refunds.list({ payment_intent: pi.id, limit: 100 })
  assert.deepEqual([list.object, list.has_more, list.data.map((r) => r.id)], ['list', false, [refund.id]])

  const day = Math.floor(s.clock().getTime() / 1000)
  const bts = await sdk.balanceTransactions.list({ created: { gte: day - 3600, lt: day + 3600 }, limit: 100, expand: ['data.source'] })
  assert.deepEqual(bts.data.map((b) => [b.type, b.amount, typeof b.fee, (b.source as Stripe.Charge | Stripe.Refund).object]), [['refund', -500, 'number', 'refund'], ['charge', 1500, 'number', 'charge']])

  const other = await sdk.checkout.sessions.create({ mode: 'payment', success_url: 'https://till.example/done', line_items: [{ quantity: 1, price_data: { currency: 'hkd', unit_amount: 1234, product_data: { name: 'x' } } }] })
  assert.equal((await sdk.checkout.sessions.expire(other.id)).status, 'expired')
  await assert.rejects(sdk.checkout.sessions.expire(other.id), (e: Stripe.errors.StripeError) => e.type === 'StripeInvalidRequestError' && e.statusCode === 400)
  await assert.rejects(sdk.refunds.create({ payment_intent: pi.id, amount: 5000 }), (e: Stripe.errors.StripeError) => e.code === 'amount_too_large')

  const endpoint = await sdk.webhookEndpoints.create({ url: 'https://till.example/hooks/stripe/pc_sdk', enabled_events: ['checkout.session.completed'] })
  assert.ok(endpoint.secret?.startsWith('whsec_'))
  // What Till does when it replaces its endpoint: list them (no secrets), delete the old one.
  const listed = await sdk.webhookEndpoints.list({ limit: 100 })
  assert.deepEqual(listed.data.filter((e) => e.id === endpoint.id).map((e) => [e.url, e.secret]), [[endpoint.url, undefined]])
  assert.deepEqual(await sdk.webhookEndpoints.del(endpoint.id), { id: endpoint.id, object: 'webhook_endpoint', deleted: true })
  assert.equal((await sdk.webhookEndpoints.list({ limit: 100 })).data.some((e) => e.id === endpoint.id), false)
  await assert.rejects(sdk.webhookEndpoints.del(endpoint.id), (e: Stripe.errors.StripeError) => e.type === 'StripeInvalidRequestError' && e.statusCode === 404)
})

test('the SDK\'s constructEvent accepts the fake\'s signed events, both secrets of a rotation; Till\'s verifier accepts the SDK\'s test header', async (t) => {
  const s = await setup(t)
  const sdk = sdkAt(s.fake.url, s.secretKey)
  const hook = await catcher(t)
  const endpoint = await s.ctl.registerWebhook(hook.url, { secretKey: s.secretKey })
  const nowSec = () => Math.floor(s.clock().getTime() / 1000)
  const made = await s.provider.createAttempt(s.cfg, s.attempt())
  await s.ctl.complete(made.providerRef!)
  const [first] = hook.got
  // The SDK checks against the real time: the fake's clock is the test's, so give it the tolerance that covers the difference.
  const tolerance = Math.abs(Date.now() / 1000 - nowSec()) + 60
  const event = sdk.webhooks.constructEvent(first.body, String(first.headers['stripe-signature']), endpoint.secret, tolerance)
  assert.equal(event.type, 'checkout.session.completed')
  assert.equal((event.data.object as Stripe.Checkout.Session).client_reference_id, (await s.ctl.session(made.providerRef!)).client_reference_id)
  assert.throws(() => sdk.webhooks.constructEvent(first.body, String(first.headers['stripe-signature']), 'whsec_someoneelse', tolerance), /signature/i)

  const rolled = await s.ctl.rollSecret(endpoint.id)
  await s.ctl.resend(event.id)
  const second = hook.got.at(-1)!
  assert.equal(String(second.headers['stripe-signature']).match(/v1=/g)!.length, 2)
  for (const secret of [rolled.secret, rolled.previous]) assert.equal(sdk.webhooks.constructEvent(second.body, String(second.headers['stripe-signature']), secret, tolerance).id, event.id)

  // The other way round: the SDK signs, Till verifies (its clock at the SDK's timestamp).
  const payload = first.body.toString('utf8')
  const header = sdk.webhooks.generateTestHeaderString({ payload, secret: endpoint.secret, timestamp: nowSec() })
  assert.deepEqual(verifyWebhook([endpoint.secret], first.body, header, nowSec()), { ok: true, timestamp: nowSec() })
  assert.deepEqual(verifyWebhook([endpoint.secret], Buffer.from(`${payload} `), header, nowSec()), { ok: false, reason: 'mismatch' })
  const res = await s.provider.parseNotification(s.cfg, { body: first.body, headers: { 'stripe-signature': sdk.webhooks.generateTestHeaderString({ payload, secret: String(s.cfg.credentials.webhookSecret), timestamp: nowSec() }) } })
  assert.deepEqual([res.ack.status, res.facts[0].kind], [200, 'payment'])
})
