/**
 * Disputes through Till: the fake Stripe opens and closes a dispute on a card payment; Till reads the
 * Dispute back from Stripe, records it, and the merchant's endpoint receives payment.disputed and
 * payment.dispute_closed, signed, once each, with the console's payment page showing the dispute.
 * A repeated Stripe event, or one about a payment Till did not take, changes nothing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deliverDue } from '../../src/jobs/outbox.js'
import { ConsoleBrowser } from '../helpers/console.js'
import { createEndpoint, startReceiver, TRUST_TEST_CA, verifySignature } from '../helpers/receiver.js'
import { stripeTill } from '../helpers/stripe-till.js'

const DAY = 86_400_000

async function disputed(t: Parameters<typeof stripeTill>[0]) {
  const c = await stripeTill(t, { webhookAllowPrivate: true })
  const rx = await startReceiver(t, undefined, { tls: true })
  const ep = await createEndpoint(c.ta, rx.url, {}, c.ta.merchant.liveKey)
  const paid = await c.paid({ amount: 1500, currency: 'JPY', metadata: { order_id: 'A-7' } })
  const { dispute } = await c.ctl.dispute(paid.paymentIntent)
  const deliver = async (n: number) => {
    await deliverDue(c.ta.deps, { tls: TRUST_TEST_CA })
    return rx.received(n)
  }
  return { c, rx, ep, paid, dispute, deliver }
}

const hooks = (rx: { requests: { json: any }[] }) => rx.requests.map((r) => r.json.type)

for (const outcome of ['won', 'lost'] as const) {
  test(`a card payment disputed, then ${outcome}: payment.disputed and payment.dispute_closed reach the merchant signed, once each`, async (t) => {
    const { c, rx, ep, paid, dispute, deliver } = await disputed(t)
    // Till asked Stripe for the Dispute before believing the event.
    assert.ok((await c.ctl.requests()).some((r) => r.method === 'GET' && r.path === `/v1/disputes/${dispute}?expand[]=payment_intent`))
    const [opened] = (await deliver(2)).slice(1)
    assert.equal(opened.json.type, 'payment.disputed')
    assert.ok(verifySignature(ep.secret, opened.body, opened.headers['x-service-signature']))
    const d = opened.json.data
    assert.match(d.disputeId, /^dsp_/)
    assert.deepEqual(
      [d.recordId, d.sessionId, d.provider, d.providerDisputeRef, d.amount, d.currency, d.paymentAmount, d.reason, d.status, d.outcome, d.closedAt, d.metadata],
      [paid.recordId, paid.id, 'stripe', dispute, 1500, 'JPY', 1500, 'fraudulent', 'needs_response', null, null, { order_id: 'A-7' }])
    assert.equal(d.dueBy, new Date(c.ta.clock().getTime() - (c.ta.clock().getTime() % 1000) + 7 * DAY).toISOString())

    await c.ctl.closeDispute(paid.paymentIntent, dispute, outcome)
    const closed = (await deliver(3))[2]
    assert.ok(verifySignature(ep.secret, closed.body, closed.headers['x-service-signature']))
    assert.deepEqual([closed.json.type, closed.json.data.disputeId, closed.json.data.status, closed.json.data.outcome], ['payment.dispute_closed', d.disputeId, outcome, outcome])
    assert.deepEqual(hooks(rx), ['payment.succeeded', 'payment.disputed', 'payment.dispute_closed'])
    // Stored once each (the test clock stands still: compared as a set with its counts).
    assert.deepEqual((await c.types('recordId', paid.recordId)).sort(), ['payment.dispute_closed', 'payment.disputed', 'payment.succeeded'])
    // The record's money is as it was: a dispute is not a refund.
    assert.deepEqual((await c.read(paid.id)).record.status, 'paid')

    // The console's payment page shows the dispute, in the merchant's language.
    await c.ta.admin('POST', `/merchants/${c.ta.merchant.id}/password`, { email: 'shop@example.com', password: 'correct horse battery' })
    const browser = new ConsoleBrowser(c.ta, { 'accept-language': 'zh-CN' })
    assert.equal((await browser.signIn('shop@example.com', 'correct horse battery')).status, 303)
    const page = await browser.get(`/console/live/payments/${paid.id}`)
    const row = new RegExp(`<tr data-dispute="${d.disputeId}">([\\s\\S]*?)</tr>`).exec(page.html)
    assert.ok(row, 'a dispute line on the payment page')
    assert.match(row[1], new RegExp(dispute))
    assert.match(row[1], outcome === 'won' ? /胜诉/ : /败诉/)
    assert.match(row[1], /fraudulent/)
    assert.match(row[1], /¥1,500/)
    assert.match(page.html, /Stripe 的后台回应/)
  })
}

test('a repeated or stale Stripe dispute event changes nothing: one dispute row, one event of each', async (t) => {
  const { c, rx, paid, dispute, deliver } = await disputed(t)
  const created = (await c.ctl.deliveries()).filter((x) => x.type === 'charge.dispute.created')
  assert.equal(created.length, 1)
  // Stripe delivers the same event again (at least once), and after the close, the old created event once more.
  await c.ctl.resend(created[0].eventId)
  await c.ctl.closeDispute(paid.paymentIntent, dispute, 'lost')
  await c.ctl.resend(created[0].eventId)
  const closedEvent = (await c.ctl.deliveries()).find((x) => x.type === 'charge.dispute.closed')!
  await c.ctl.resend(closedEvent.eventId)
  assert.ok((await c.ctl.deliveries()).every((x) => x.status === 200))
  await deliver(3)
  assert.deepEqual(hooks(rx), ['payment.succeeded', 'payment.disputed', 'payment.dispute_closed'])
  assert.deepEqual(await c.query('select status, provider_ref, amount, currency from disputes where record_id = $1', [paid.recordId]), [{ status: 'lost', provider_ref: dispute, amount: 1500, currency: 'JPY' }])
  // Stored once each (the test clock stands still: compared as a set with its counts).
    assert.deepEqual((await c.types('recordId', paid.recordId)).sort(), ['payment.dispute_closed', 'payment.disputed', 'payment.succeeded'])
})
