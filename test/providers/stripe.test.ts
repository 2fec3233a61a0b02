/**
 * The Stripe adapter against the fake: the Checkout Session it asks for, events verified and read
 * back before they become facts, query and close, refunds (partial, full, lost answers, failures).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { signPayload } from '../../src/providers/stripe/sign.js'
import { ProviderError } from '../../src/providers/types.js'
import { setup } from '../helpers/stripe.js'

test('a Checkout Session as Till asks for it: one inline-priced line item, the attempt as client_reference_id, Till\'s relay and page, an Idempotency-Key', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  assert.equal(made.action.kind, 'redirect')
  assert.ok(made.providerRef!.startsWith('cs_test_'))
  assert.deepEqual(made.action, { kind: 'redirect', url: `${s.fake.url}/c/pay/${made.providerRef}` })
  const [req] = await s.ctl.requests()
  assert.equal(req.idempotencyKey, `till-checkout-${a.attemptId}`)
  const nowSec = s.clock().getTime() / 1000
  assert.deepEqual(req.request, {
    mode: 'payment',
    line_items: [{ quantity: '1', price_data: { currency: 'hkd', unit_amount: '1234', product_data: { name: 'Order #42' } } }],
    client_reference_id: a.attemptId,
    metadata: { till_session_id: a.sessionId, till_attempt_id: a.attemptId },
    payment_intent_data: { metadata: { till_session_id: a.sessionId, till_attempt_id: a.attemptId } },
    success_url: a.returnUrl, cancel_url: a.checkoutUrl, expires_at: String(nowSec + 3600), locale: 'auto',
  })
  // The same attempt asked again (a lost answer) is the same Checkout Session.
  const again = await s.provider.createAttempt(s.cfg, a)
  assert.equal(again.providerRef, made.providerRef)
  assert.equal(s.fake.store.sessions.size, 1)
})

test('expires_at kept inside Stripe\'s 30 min – 24 h window: a shorter Till expiry gets the earliest, a longer one the latest', async (t) => {
  const s = await setup(t)
  const nowSec = s.clock().getTime() / 1000
  await s.provider.createAttempt(s.cfg, s.attempt({ expiresAt: new Date(s.clock().getTime() + 10 * 60_000) }))
  await s.provider.createAttempt(s.cfg, s.attempt({ expiresAt: new Date(s.clock().getTime() + 3 * 24 * 3600_000) }))
  const [short, long] = await s.ctl.requests()
  assert.deepEqual([short.status, Number(short.request.expires_at) - nowSec], [200, 31 * 60])
  assert.deepEqual([long.status, Number(long.request.expires_at) - nowSec], [200, 24 * 3600 - 60])
})

test('JPY is zero-decimal: ¥1500 is unit_amount 1500; below Stripe\'s minimum or an unknown currency is refused before any call', async (t) => {
  const s = await setup(t)
  const { fact } = await s.paid({ amount: 1500, currency: 'JPY' })
  assert.deepEqual([fact.status, fact.amount, fact.currency], ['succeeded', 1500, 'JPY'])
  assert.equal((await s.ctl.requests())[0].request.line_items[0].price_data.unit_amount, '1500')
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ amount: 49, currency: 'JPY' })), { code: 'amount_below_minimum', outcome: 'rejected' })
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ amount: 399, currency: 'HKD' })), { code: 'amount_below_minimum' })
  await assert.rejects(s.provider.createAttempt(s.cfg, s.attempt({ currency: 'GBP' as 'USD' })), { code: 'unsupported_currency' })
})

test('checkout.session.completed: verified, the session read back from Stripe, then a fact with the amount, currency and PaymentIntent', async (t) => {
  const s = await setup(t)
  const { a, made, fact, redirect } = await s.paid()
  assert.equal(redirect, a.returnUrl)
  const session = await s.ctl.session(made.providerRef!)
  assert.deepEqual(fact, {
    kind: 'payment', attemptId: a.attemptId, status: 'succeeded', providerRef: session.payment_intent.id, amount: 1234, currency: 'HKD',
    data: { checkoutSessionId: made.providerRef, paymentIntentId: session.payment_intent.id },
  })
  assert.equal(s.rx.received.at(-1)!.result.ack.status, 200)
  const reads = (await s.ctl.requests()).filter((r) => r.method === 'GET').map((r) => r.path)
  assert.deepEqual(reads, [`/v1/checkout/sessions/${made.providerRef}?expand[]=payment_intent`])
  assert.deepEqual(await s.provider.queryPayment(s.cfg, { attemptId: a.attemptId, providerRef: made.providerRef!, data: made.data! }), {
    status: 'succeeded', providerRef: session.payment_intent.id, amount: 1234, currency: 'HKD', data: fact.data,
  })
})

test('signatures: a wrong secret, an old timestamp or no header is refused with nothing learnt; every v1 of a rotation is tried', async (t) => {
  const s = await setup(t)
  await s.ctl.badSignature()
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  await s.ctl.complete(made.providerRef!)
  const first = s.rx.received.at(-1)!
  assert.deepEqual([first.result.ack.status, first.result.facts], [400, [{ kind: 'ignored', reason: 'signature refused: mismatch' }]])
  // Stripe retries; the retry is signed properly.
  s.clock.advance(60_000)
  await s.fake.runDue()
  assert.equal(s.rx.received.at(-1)!.result.facts[0].kind, 'payment')

  const body = s.rx.received.at(-1)!.body
  const nowSec = s.clock().getTime() / 1000
  const parse = (header: string | undefined) => s.provider.parseNotification(s.cfg, { body, headers: header === undefined ? {} : { 'stripe-signature': header } })
  const secret = String(s.cfg.credentials.webhookSecret)
  assert.equal((await parse(undefined)).ack.status, 400)
  assert.equal((await parse(`t=${nowSec - 301},v1=${signPayload(secret, nowSec - 301, body)}`)).facts[0].kind, 'ignored')
  assert.equal((await parse(`t=${nowSec - 299},v1=${signPayload(secret, nowSec - 299, body)}`)).facts[0].kind, 'payment')
  // Stripe rolling the secret signs with both: the old one configured still verifies, and so does the new one.
  const rolled = await s.ctl.rollSecret(s.endpoint.id)
  const both = `t=${nowSec},v1=${signPayload(rolled.secret, nowSec, body)},v1=${signPayload(secret, nowSec, body)}`
  assert.equal((await parse(both)).facts[0].kind, 'payment')
  const onlyNew = { ...s.cfg, credentials: { ...s.cfg.credentials, webhookSecret: `${rolled.secret} ${secret}` } }
  const res = await s.provider.parseNotification(onlyNew, { body, headers: { 'stripe-signature': `t=${nowSec},v1=${signPayload(rolled.secret, nowSec, body)}` } })
  assert.equal(res.facts[0].kind, 'payment')
})

test('an event whose object claims another attempt is not believed: Stripe\'s own session decides', async (t) => {
  const s = await setup(t)
  const { made } = await s.paid()
  const nowSec = s.clock().getTime() / 1000
  const body = Buffer.from(JSON.stringify({ id: 'evt_x', object: 'event', type: 'checkout.session.completed', data: { object: { id: made.providerRef, client_reference_id: 'att_someoneelse', payment_status: 'paid', amount_total: 1, currency: 'hkd' } } }))
  const res = await s.provider.parseNotification(s.cfg, { body, headers: { 'stripe-signature': `t=${nowSec},v1=${signPayload(String(s.cfg.credentials.webhookSecret), nowSec, body)}` } })
  assert.deepEqual([res.ack.status, res.facts[0].kind], [200, 'ignored'])
})

test('a secret key of another account than the webhook\'s: the paid session\'s event is refused (Stripe sends it again) and the attempt is not called closed', async (t) => {
  const s = await setup(t)
  const { a, made, fact } = await s.paid()
  // The merchant pasted another account's key: the webhook's events are genuine, the key cannot read their sessions.
  const otherKey = { ...s.cfg, credentials: { ...s.cfg.credentials, secretKey: s.fake.addAccount().secretKey } }
  const nowSec = s.clock().getTime() / 1000
  const body = Buffer.from(JSON.stringify({ id: 'evt_y', object: 'event', type: 'checkout.session.completed', data: { object: { id: made.providerRef, client_reference_id: a.attemptId } } }))
  const res = await s.provider.parseNotification(otherKey, { body, headers: { 'stripe-signature': `t=${nowSec},v1=${signPayload(String(s.cfg.credentials.webhookSecret), nowSec, body)}` } })
  assert.equal(res.ack.status, 503, 'not acknowledged: a paid session must not be dropped')
  assert.deepEqual(res.facts.map((f) => f.kind), ['ignored'], 'no payment fact')
  const ref = { attemptId: a.attemptId, providerRef: made.providerRef!, data: made.data! }
  await assert.rejects(s.provider.queryPayment(otherKey, ref), (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown')
  await assert.rejects(s.provider.closePayment(otherKey, ref), (e: unknown) => e instanceof ProviderError && e.outcome === 'unknown')
  // A dispute on the payment, its event to the same endpoint: refused alike, not dropped.
  const { dispute } = await s.ctl.dispute(String(fact.data!.paymentIntentId))
  const disputeBody = Buffer.from(JSON.stringify({ id: 'evt_d', object: 'event', type: 'charge.dispute.created', data: { object: { id: dispute, object: 'dispute' } } }))
  const signed = (b: Buffer) => ({ 'stripe-signature': `t=${nowSec},v1=${signPayload(String(s.cfg.credentials.webhookSecret), nowSec, b)}` })
  assert.equal((await s.provider.parseNotification(otherKey, { body: disputeBody, headers: signed(disputeBody) })).ack.status, 503)
  assert.equal((await s.provider.parseNotification(s.cfg, { body: disputeBody, headers: signed(disputeBody) })).facts[0].kind, 'dispute')
  // With the right key again, the same event pays.
  const again = await s.provider.parseNotification(s.cfg, { body, headers: { 'stripe-signature': `t=${nowSec},v1=${signPayload(String(s.cfg.credentials.webhookSecret), nowSec, body)}` } })
  assert.deepEqual([again.ack.status, again.facts[0].kind], [200, 'payment'])
})

test('a declined card leaves the session open and sends nothing; the 3-D Secure card pays after its challenge', async (t) => {
  const s = await setup(t)
  const made = await s.provider.createAttempt(s.cfg, s.attempt())
  await assert.rejects(s.ctl.complete(made.providerRef!, '4000000000000002'), /declined/)
  assert.equal(s.rx.received.length, 0)
  await s.ctl.complete(made.providerRef!, '4000002760003184')
  assert.equal(s.rx.received.at(-1)!.result.facts[0].kind, 'payment')
})

test('close: an open session is expired at Stripe; a paid one comes back as alreadyPaid; Stripe unreachable is unknown', async (t) => {
  const s = await setup(t)
  const a = s.attempt()
  const made = await s.provider.createAttempt(s.cfg, a)
  const ref = { attemptId: a.attemptId, providerRef: made.providerRef!, data: made.data! }
  assert.deepEqual(await s.provider.closePayment(s.cfg, ref), { closed: true })
  assert.equal((await s.ctl.session(made.providerRef!)).status, 'expired')
  assert.deepEqual(await s.provider.queryPayment(s.cfg, ref), { status: 'closed' })
  // Closed twice: Stripe refuses to expire an expired session; still closed.
  assert.deepEqual(await s.provider.closePayment(s.cfg, ref), { closed: true })

  const p = await s.paid()
  const closed = await s.provider.closePayment(s.cfg, { attemptId: p.a.attemptId, providerRef: p.made.providerRef!, data: p.made.data! })
  assert.ok('alreadyPaid' in closed && closed.alreadyPaid.status === 'succeeded' && closed.alreadyPaid.amount === 1234)

  const other = await s.provider.createAttempt(s.cfg, s.attempt())
  await s.ctl.error({ route: 'expireCheckoutSession', status: 500 })
  await assert.rejects(s.provider.closePayment(s.cfg, { attemptId: 'x', providerRef: other.providerRef!, data: other.data! }), (e: ProviderError) => e.outcome === 'unknown')
})

test('refunds: partial then the rest, keyed by Till\'s refund id; more than is left is refused by Stripe', async (t) => {
  const s = await setup(t)
  const { ref } = await s.paid()
  const first = await s.provider.refund(s.cfg, { refundId: 'rf_1', amount: 234, totalAmount: 1234, currency: 'HKD', reason: 'damaged', payment: ref, notifyUrl: '' })
  assert.equal(first.status, 'succeeded')
  const post = (await s.ctl.requests()).find((r) => r.path === '/v1/refunds')!
  assert.equal(post.idempotencyKey, 'till-refund-rf_1')
  assert.deepEqual(post.request, { payment_intent: ref.data.paymentIntentId, amount: '234', metadata: { till_refund_id: 'rf_1', till_attempt_id: ref.attemptId, till_reason: 'damaged' } })
  const facts = s.rx.received.flatMap((r) => r.result.facts).filter((f) => f.kind === 'refund')
  assert.deepEqual(facts.at(-1), { kind: 'refund', refundId: 'rf_1', providerRefundRef: first.providerRefundRef, attemptId: ref.attemptId, status: 'succeeded', amount: 234, currency: 'HKD' })
  await assert.rejects(s.provider.refund(s.cfg, { refundId: 'rf_2', amount: 1001, totalAmount: 1234, currency: 'HKD', reason: null, payment: ref, notifyUrl: '' }), { outcome: 'rejected', code: 'amount_too_large' })
  assert.equal((await s.provider.refund(s.cfg, { refundId: 'rf_3', amount: 1000, totalAmount: 1234, currency: 'HKD', reason: null, payment: ref, notifyUrl: '' })).status, 'succeeded')
})

test('a refund whose answer was lost: found by our id in the PaymentIntent\'s refunds; never sent: not_found, and the resend with the same key makes one refund', async (t) => {
  const s = await setup(t)
  const { ref } = await s.paid()
  const input = { refundId: 'rf_lost', amount: 500, totalAmount: 1234, currency: 'HKD' as const, reason: null, payment: ref, notifyUrl: '' }
  await s.ctl.error({ route: 'createRefund', status: 500, applied: true })
  await assert.rejects(s.provider.refund(s.cfg, input), { outcome: 'unknown' })
  const found = await s.provider.queryRefund(s.cfg, { refundId: 'rf_lost', providerRefundRef: null, amount: 500, createdAt: s.clock(), payment: ref })
  assert.equal(found.status, 'succeeded')
  await assert.rejects(s.provider.queryRefund(s.cfg, { refundId: 'rf_never', providerRefundRef: null, amount: 1, createdAt: s.clock(), payment: ref }), { code: 'not_found' })
  // Stripe's own id that Stripe no longer finds is never "not found": that would send the refund again.
  await assert.rejects(s.provider.queryRefund(s.cfg, { refundId: 'rf_lost', providerRefundRef: 're_unknown', amount: 500, createdAt: s.clock(), payment: ref }), { code: 'refund_unreadable', outcome: 'unknown' })
  // The resend of the lost one: the same key, the same refund.
  await s.ctl.error({ route: 'createRefund', status: 500, applied: true })
  await assert.rejects(s.provider.refund(s.cfg, { ...input, refundId: 'rf_twice' }), { outcome: 'unknown' })
  assert.equal((await s.provider.refund(s.cfg, { ...input, refundId: 'rf_twice' })).providerRefundRef, [...s.fake.store.refunds.values()].at(-1)!.id)
  assert.equal(s.fake.store.refunds.size, 2)
})

test('refund states: pending until settled; failed and canceled give a failure with Stripe\'s reason', async (t) => {
  const s = await setup(t)
  const { ref } = await s.paid()
  await s.ctl.refundOutcome({ status: 'failed', delayMs: 1000 })
  const r = await s.provider.refund(s.cfg, { refundId: 'rf_f', amount: 100, totalAmount: 1234, currency: 'HKD', reason: null, payment: ref, notifyUrl: '' })
  assert.equal(r.status, 'pending')
  s.clock.advance(1000)
  await s.fake.runDue()
  const q = await s.provider.queryRefund(s.cfg, { refundId: 'rf_f', providerRefundRef: r.providerRefundRef!, amount: 100, createdAt: s.clock(), payment: ref })
  assert.deepEqual(q, { status: 'failed', providerRefundRef: r.providerRefundRef, currency: 'HKD', failureReason: 'failed: expired_or_canceled_card' })
  const last = s.rx.received.at(-1)!
  assert.equal(JSON.parse(last.body.toString()).type, 'refund.failed')
  assert.deepEqual([last.result.facts[0].kind, (last.result.facts[0] as { status: string }).status], ['refund', 'failed'])
  await s.ctl.refundOutcome({ status: 'canceled' })
  const c = await s.provider.refund(s.cfg, { refundId: 'rf_c', amount: 100, totalAmount: 1234, currency: 'HKD', reason: null, payment: ref, notifyUrl: '' })
  assert.deepEqual([c.status, c.failureReason], ['failed', 'canceled'])
})
