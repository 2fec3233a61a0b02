/**
 * Stripe end to end through Till: a live merchant whose stripe configuration (made through the admin
 * API) points settings.apiBase at the fake; the fake's signed events reach /hooks/stripe/{configId}.
 * JPY and HKD payments, refunds, expiry and cancel expiring the Checkout Session, late payments, lost events.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reconcileAttempts, reconcileRefunds } from '../../src/jobs/reconcile.js'
import { startAttempt } from '../../src/services/attempts.js'
import { cancelSession, expireDue } from '../../src/services/sessions.js'
import { stripeTill } from '../helpers/stripe-till.js'

test('a JPY session paid by card: checkout.session.completed makes it paid, for ¥1,500 exactly, with the PaymentIntent kept', async (t) => {
  const c = await stripeTill(t)
  const id = await c.session({ amount: 1500, currency: 'JPY' })
  const { action, attempt } = await c.start(id)
  assert.deepEqual(action, { kind: 'redirect', url: `${c.fake.url}/c/pay/${attempt.providerRef}` })
  const cs = await c.ctl.session(attempt.providerRef!)
  assert.deepEqual([cs.amount_total, cs.currency, cs.client_reference_id, cs.success_url, cs.cancel_url], [1500, 'jpy', attempt.id, `${c.ta.baseUrl}/c/${id}/done`, `${c.ta.baseUrl}/c/${id}`])
  const done = await c.ctl.complete(attempt.providerRef!)
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.type, d.status]), [['checkout.session.completed', 200]])
  const s = await c.read(id)
  assert.deepEqual([s.status, s.record.amount, s.record.providerRef, s.record.provider], ['paid', 1500, done.session.payment_intent.id, 'stripe'])
  const [row] = await c.query('select provider_data from records where id = $1', [s.record.id])
  assert.deepEqual(row.provider_data, { checkoutSessionId: attempt.providerRef, paymentIntentId: done.session.payment_intent.id })
  assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])
})

test('an HKD session: a partial refund, then the rest; the record ends refunded, each refund keyed by Till\'s id', async (t) => {
  const c = await stripeTill(t)
  const { id, recordId } = await c.paid()
  const part = await c.refund(recordId, 234)
  assert.equal(part.status, 200, JSON.stringify(part.body))
  assert.deepEqual([part.body.refund.status, part.body.refundedAmount], ['succeeded', 234])
  const rest = await c.refund(recordId)
  assert.deepEqual([rest.body.refund.status, rest.body.refund.amount, rest.body.status], ['succeeded', 1000, 'refunded'])
  const posts = (await c.ctl.requests()).filter((r) => r.path === '/v1/refunds')
  assert.deepEqual(posts.map((p) => p.idempotencyKey), [`till-refund-${part.body.refund.id}`, `till-refund-${rest.body.refund.id}`])
  assert.equal((await c.read(id)).status, 'refunded')
  assert.deepEqual(await c.types('refundId', part.body.refund.id), ['refund.pending', 'refund.succeeded'])
  // The refund events that follow are the same refunds: nothing twice.
  assert.deepEqual(await c.query('select count(*)::int as n from refunds where record_id = $1', [recordId]), [{ n: 2 }])
})

test('a refund Stripe fails later: pending, then failed with Stripe\'s reason, and the amount can be refunded again', async (t) => {
  const c = await stripeTill(t)
  const { recordId } = await c.paid()
  await c.ctl.refundOutcome({ status: 'failed', delayMs: 1000 })
  const res = await c.refund(recordId, 500)
  assert.deepEqual([res.body.refund.status, res.body.status], ['pending', 'refunding'])
  c.ta.clock.advance(1000)
  await c.ctl.tick()
  const [row] = await c.query('select status, failure_reason from refunds where id = $1', [res.body.refund.id])
  assert.deepEqual(row, { status: 'failed', failure_reason: 'failed: expired_or_canceled_card' })
  assert.equal((await c.refund(recordId)).body.refund.status, 'succeeded')
})

test('Till\'s expiry expires the Checkout Session at Stripe; the attempt is closed and the page takes no payment', async (t) => {
  const c = await stripeTill(t)
  const id = await c.session({ expiresInSeconds: 60 })
  const { attempt } = await c.start(id)
  // Stripe's earliest expiry is 30 minutes ahead: Till closes it itself at its own.
  assert.equal((await c.ctl.session(attempt.providerRef!)).expires_at, Math.floor(c.ta.clock().getTime() / 1000) + 31 * 60)
  c.ta.clock.advance(61_000)
  assert.equal(await expireDue(c.ta.deps), 1)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  assert.equal((await c.ctl.session(attempt.providerRef!)).status, 'expired')
  assert.deepEqual(await c.query('select status from attempts where id = $1', [attempt.id]), [{ status: 'closed' }])
  await assert.rejects(c.ctl.complete(attempt.providerRef!), /expired/)
  assert.equal((await c.read(id)).status, 'expired')
})

test('a payment that lands as the customer cancels: the close finds it paid at Stripe and records it; its late event changes nothing more', async (t) => {
  const c = await stripeTill(t)
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.notifications({ mode: 'delayed', delayMs: 5000 })
  await c.ctl.complete(attempt.providerRef!)
  assert.equal((await c.read(id)).status, 'processing')
  await cancelSession(c.ta.deps, id)
  c.ta.clock.advance(1000)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  assert.equal((await c.read(id)).status, 'paid')
  c.ta.clock.advance(5000)
  await c.ctl.tick()
  assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.type, d.status]), [['checkout.session.completed', 200]])
  assert.deepEqual(await c.types('sessionId', id), ['session.canceled', 'payment.succeeded'])
})

test('a dropped checkout.session.completed: reconciliation reads the session back from Stripe and records the payment', async (t) => {
  const c = await stripeTill(t)
  await c.ctl.notifications({ mode: 'drop' })
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  assert.equal((await c.read(id)).status, 'processing')
  c.ta.clock.advance(60_000)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  assert.equal((await c.read(id)).status, 'paid')
})

test('a refund made in Stripe\'s Dashboard, pending, whose refund.updated is lost: reconciliation reads it back from Stripe and settles it', async (t) => {
  const c = await stripeTill(t)
  const { id, recordId, paymentIntent } = await c.paid()
  await c.ctl.refundOutcome({ status: 'succeeded', delayMs: 60_000 })
  // The Dashboard's refund carries no metadata of Till's: refund.created makes it one Till did not start, pending.
  const made = await fetch(`${c.fake.url}/v1/refunds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ payment_intent: paymentIntent, amount: '500' }),
  })
  assert.equal(made.status, 200, await made.text())
  const [refund] = await c.query('select id, status, initiated_by from refunds where record_id = $1', [recordId])
  assert.deepEqual([refund.status, refund.initiated_by], ['pending', 'provider'])
  assert.equal((await c.read(id)).record.status, 'refunding')
  // Stripe settles it and its refund.updated never arrives.
  await c.ctl.notifications({ mode: 'drop' })
  c.ta.clock.advance(60_000)
  await c.ctl.tick()
  c.ta.clock.advance(3600_000)
  await reconcileRefunds(c.ta.deps)
  const s = await c.read(id)
  assert.deepEqual([s.record.status, s.record.refundedAmount], ['partially_refunded', 500])
  assert.deepEqual(await c.types('refundId', refund.id), ['refund.pending', 'refund.succeeded'])
})

test('a bad signature is refused and changes nothing; Stripe\'s retry, signed, pays', async (t) => {
  const c = await stripeTill(t)
  await c.ctl.badSignature()
  const id = await c.session()
  const { attempt } = await c.start(id)
  await c.ctl.complete(attempt.providerRef!)
  assert.deepEqual((await c.ctl.deliveries()).map((d) => d.status), [400])
  assert.equal((await c.read(id)).status, 'processing')
  c.ta.clock.advance(60_000)
  await c.ctl.tick()
  assert.deepEqual((await c.ctl.deliveries()).map((d) => d.status), [400, 200])
  assert.equal((await c.read(id)).status, 'paid')
})

/** A session paid through the configuration labelled `auto`: its status checked, the statuses of Stripe's deliveries to `url`. */
async function paidThroughAuto(c: Awaited<ReturnType<typeof stripeTill>>, configId: string, url: string) {
  const res = await c.ta.request('POST', '/api/v1/checkout', { key: c.ta.merchant.liveKey, body: { amount: 1234, currency: 'HKD', providerHints: { stripe: 'auto' } } })
  const { attempt } = await startAttempt(c.ta.deps, res.body.id, { provider: 'stripe', providerConfigId: configId, channel: null })
  await c.ctl.complete(attempt.providerRef!)
  assert.equal((await c.read(res.body.id)).status, 'paid')
  return (await c.ctl.deliveries()).filter((d) => d.url === url).map((d) => d.status)
}

test('a configuration saved without a signing secret: Till adds its endpoint at Stripe and keeps the secret; a refusal saves nothing', async (t) => {
  const c = await stripeTill(t)
  const made = await c.ta.admin('POST', `/merchants/${c.ta.merchant.id}/provider_configs`, { provider: 'stripe', label: 'auto', credentials: { secretKey: c.secretKey }, settings: { apiBase: c.fake.url } })
  assert.equal(made.status, 201, JSON.stringify(made.body))
  const endpoint = c.fake.store.accounts.get(c.secretKey)!.endpoints.at(-1)!
  assert.equal(endpoint.url, `${c.ta.baseUrl}/hooks/stripe/${made.body.id}`)
  assert.deepEqual(endpoint.events.sort(), ['charge.dispute.closed', 'charge.dispute.created', 'charge.refunded', 'checkout.session.async_payment_failed', 'checkout.session.async_payment_succeeded', 'checkout.session.completed', 'checkout.session.expired', 'refund.created', 'refund.failed', 'refund.updated'])
  // The kept secret verifies what Stripe sends there: a session paid through this configuration.
  assert.deepEqual(await paidThroughAuto(c, made.body.id, endpoint.url), [200])

  // A label already taken is refused before Stripe is asked to make anything.
  const endpoints = c.fake.store.accounts.get(c.secretKey)!.endpoints.length
  const taken = await c.ta.admin('POST', `/merchants/${c.ta.merchant.id}/provider_configs`, { provider: 'stripe', label: 'auto', credentials: { secretKey: c.secretKey }, settings: { apiBase: c.fake.url } })
  assert.deepEqual([taken.status, taken.body.code, c.fake.store.accounts.get(c.secretKey)!.endpoints.length], [400, 'already_exists', endpoints])

  await c.ctl.error({ route: 'createWebhookEndpoint', status: 403, message: 'The provided key does not have the required permissions' })
  const refused = await c.ta.admin('POST', `/merchants/${c.ta.merchant.id}/provider_configs`, { provider: 'stripe', label: 'restricted', credentials: { secretKey: c.secretKey }, settings: { apiBase: c.fake.url } })
  assert.equal(refused.status, 400)
  assert.match(refused.body.error, /^credentials\.webhookSecret: Stripe did not add Till's webhook endpoint \(Stripe 403 .*required permissions\): add http:.*\/hooks\/stripe\/pc_\w+ in the Dashboard and give its signing secret$/)
  const labels = (await c.ta.admin('GET', `/merchants/${c.ta.merchant.id}/provider_configs`)).body.data.map((x: { label: string }) => x.label).sort()
  assert.deepEqual(labels, ['auto', 'cards'])
})

test('new credentials saved without a signing secret: the same endpoint within 24 hours, a replacement after, never two', async (t) => {
  const c = await stripeTill(t)
  const account = c.fake.store.accounts.get(c.secretKey)!
  const made = await c.ta.admin('POST', `/merchants/${c.ta.merchant.id}/provider_configs`, { provider: 'stripe', label: 'auto', credentials: { secretKey: c.secretKey }, settings: { apiBase: c.fake.url } })
  assert.equal(made.status, 201, JSON.stringify(made.body))
  const url = `${c.ta.baseUrl}/hooks/stripe/${made.body.id}`
  const atUrl = () => account.endpoints.filter((e) => e.url === url)
  const resave = async () => {
    const res = await c.ta.admin('PATCH', `/merchants/${c.ta.merchant.id}/provider_configs/${made.body.id}`, { credentials: { secretKey: c.secretKey } })
    assert.equal(res.status, 200, JSON.stringify(res.body))
  }
  const first = atUrl()
  assert.equal(first.length, 1)

  // Within Stripe's 24 hours the create is the same request: the same endpoint, nothing deleted.
  c.ta.clock.advance(3600_000)
  await resave()
  assert.deepEqual(atUrl().map((e) => e.id), [first[0].id])

  // A day later Stripe has forgotten the key and makes another endpoint; the first goes.
  c.ta.clock.advance(24 * 3600_000)
  await resave()
  const now = atUrl()
  assert.equal(now.length, 1)
  assert.notEqual(now[0].id, first[0].id)
  assert.deepEqual((await c.ctl.requests()).filter((r) => r.method === 'DELETE').map((r) => [r.path, r.status]), [[`/v1/webhook_endpoints/${first[0].id}`, 200]])

  // The secret kept is the new endpoint's: a payment through the configuration is delivered once and accepted.
  assert.deepEqual(await paidThroughAuto(c, made.body.id, url), [200])
})

test('every spec currency through one Stripe configuration: CNY, USD, HKD, JPY, EUR in Stripe\'s minor units, each paid and refunded', async (t) => {
  const c = await stripeTill(t)
  const amounts = { CNY: 8888, USD: 1999, HKD: 9900, JPY: 1500, EUR: 1234 }
  for (const [currency, amount] of Object.entries(amounts)) {
    const { id, checkoutSessionId, recordId } = await c.paid({ amount, currency })
    const cs = await c.ctl.session(checkoutSessionId)
    assert.deepEqual([cs.amount_total, cs.currency], [amount, currency.toLowerCase()])
    assert.equal((await c.refund(recordId)).body.refund.status, 'succeeded')
    assert.equal((await c.read(id)).status, 'refunded', currency)
  }
})
