/**
 * A delayed payment method through Till (a bank transfer, as Stripe's docs describe): the fake's
 * checkout.session.completed arrives with payment_status `unpaid`, signed, and leaves the session
 * `processing`; checkout.session.async_payment_succeeded makes it paid, _failed makes it failed.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { stripeTill } from '../helpers/stripe-till.js'

const HOUR = 3600_000

for (const outcome of ['succeeded', 'failed'] as const) {
  test(`a delayed method that ${outcome === 'succeeded' ? 'pays' : 'fails'} an hour later: completed unpaid keeps the session processing, then async_payment_${outcome} decides`, async (t) => {
    const c = await stripeTill(t)
    const id = await c.session({ amount: 1500, currency: 'JPY' })
    const { attempt } = await c.start(id)
    const done = await c.ctl.payLater(attempt.providerRef!, outcome, HOUR)
    assert.deepEqual([done.session.status, done.session.payment_status, done.session.payment_intent.status], ['complete', 'unpaid', 'processing'])
    assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.type, d.status]), [['checkout.session.completed', 200]])
    assert.equal((await c.read(id)).status, 'processing')
    assert.deepEqual(await c.types('sessionId', id), [])

    c.ta.clock.advance(HOUR)
    await c.ctl.tick()
    assert.deepEqual((await c.ctl.deliveries()).map((d) => [d.type, d.status]), [['checkout.session.completed', 200], [`checkout.session.async_payment_${outcome}`, 200]])
    const s = await c.read(id)
    if (outcome === 'succeeded') {
      assert.deepEqual([s.status, s.record.amount, s.record.providerRef], ['paid', 1500, done.session.payment_intent.id])
      assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])
    } else {
      assert.equal(s.status, 'failed')
      assert.equal(s.record, undefined)
      assert.deepEqual(await c.types('sessionId', id), ['payment.failed'])
    }
  })
}
