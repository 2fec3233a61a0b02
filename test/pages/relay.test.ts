/**
 * /c/<session_id>/done, the relay (docs/integrate.md#coming-back-successurl-the-relay-and-paid_confirmed, issue #3 §3): where it sends the customer in every
 * state, that it waits for a payment in flight and is woken by the commit (not a poll), and its
 * limit. Each test asserts why the wait ended (its Server-Timing header), never how long it took:
 * latency figures belong in the benchmarks.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { startAttempt } from '../../src/services/attempts.js'
import { mockPayment } from '../../src/services/test-helpers.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { getPage, relayWait } from '../helpers/pages.js'
import { createSession } from '../helpers/store-queries.js'

const helper = (ta: TestApp, id: string, action: string) =>
  ta.request('POST', `/api/v1/test_helpers/sessions/${id}/${action}`, { key: ta.merchant.testKey })

/** The customer has chosen and the provider is working on it: an attempt, the session `processing`. */
const inFlight = (ta: TestApp, id: string) => startAttempt(ta.deps, id, { provider: 'mock', providerConfigId: null, channel: 'mock' })

/** A canceled, a failed and an expired session (expired with a payment in flight, read before any sweep). */
async function finishedUnpaid(ta: TestApp, body: Record<string, unknown>) {
  const canceled = await createSession(ta, { ...body, expiresInSeconds: 60 })
  await helper(ta, canceled.id, 'cancel')
  const failed = await createSession(ta, { ...body, expiresInSeconds: 60 })
  await helper(ta, failed.id, 'fail')
  const expired = await createSession(ta, { ...body, expiresInSeconds: 60 })
  await inFlight(ta, expired.id)
  ta.clock.advance(61_000)
  return [canceled, failed, expired]
}

test('a paid session goes to successUrl with session_id, record_id and paid_confirmed=1, keeping its own parameters', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'http://localhost:3000/orders/42/thanks?ref=A%2F1&utm=x#done' })
  const res = await getPage(ta, `/c/${paid.id}/done`)
  assert.equal(res.status, 303)
  assert.equal(res.location, `http://localhost:3000/orders/42/thanks?ref=A%2F1&utm=x&session_id=${paid.id}&record_id=${paid.record.id}&paid_confirmed=1#done`)
  assert.equal(res.headers.get('cache-control'), 'no-store')
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer')
})

test('without successUrl a paid session goes to its receipt', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  const res = await getPage(ta, `/c/${paid.id}/done`)
  assert.equal(res.status, 303)
  assert.equal(res.location, `/r/${paid.record.id}`)
})

test('canceled, failed and expired sessions go to successUrl with paid_confirmed=0 and no record_id, at once', async (t) => {
  const ta = await startTestApp(t)
  const sessions = await finishedUnpaid(ta, { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/back?o=7' })
  for (const s of sessions) {
    const res = await getPage(ta, `/c/${s.id}/done`)
    assert.equal(relayWait(res.headers), 'none', 'a finished session is not waited on')
    assert.equal(res.status, 303)
    assert.equal(res.location, `https://shop.example/back?o=7&session_id=${s.id}&paid_confirmed=0`)
  }
})

test('with cancelUrl, canceled, failed and expired sessions go there with session_id instead, at once; a paid one still to successUrl', async (t) => {
  const ta = await startTestApp(t)
  const body = { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/thanks', cancelUrl: 'https://shop.example/cart?o=7' }
  const paid = await paidSession(ta, body)
  for (const s of await finishedUnpaid(ta, body)) {
    const res = await getPage(ta, `/c/${s.id}/done`)
    assert.equal(relayWait(res.headers), 'none')
    assert.equal(res.location, `https://shop.example/cart?o=7&session_id=${s.id}`)
  }
  assert.equal((await getPage(ta, `/c/${paid.id}/done`)).location, `https://shop.example/thanks?session_id=${paid.id}&record_id=${paid.record.id}&paid_confirmed=1`)
})

test('without successUrl an unpaid session goes back to its checkout page', async (t) => {
  const ta = await startTestApp(t)
  const pending = await createSession(ta)
  const canceled = await createSession(ta)
  await helper(ta, canceled.id, 'cancel')
  for (const s of [pending, canceled]) {
    const res = await getPage(ta, `/c/${s.id}/done`)
    assert.equal(res.status, 303)
    assert.equal(res.location, `/c/${s.id}`)
  }
})

test('a pending session (nothing in flight) is answered at once with paid_confirmed=0', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/back' })
  const res = await getPage(ta, `/c/${s.id}/done`)
  assert.equal(relayWait(res.headers), 'none')
  assert.equal(res.location, `https://shop.example/back?session_id=${s.id}&paid_confirmed=0`)
})

test('a payment in flight: the relay waits, and answers as soon as the confirmation commits', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/back' })
  await inFlight(ta, s.id)
  const waiting = once(ta.deps.signals, 'waiting')
  const relay = getPage(ta, `/c/${s.id}/done`)
  await waiting // the relay has read `processing` and is now blocked on the signal
  await mockPayment(ta.deps, s.id, 'succeeded')
  const page = await relay
  assert.equal(relayWait(page.headers), 'signalled', 'woken by the commit, not by its deadline')
  const record = (await ta.request('GET', `/api/v1/sessions/${s.id}`, { key: ta.merchant.testKey })).body.record
  assert.equal(page.location, `https://shop.example/back?session_id=${s.id}&record_id=${record.id}&paid_confirmed=1`)
})

test('a customer who cancels while another tab waits on the relay: the relay answers at once with paid_confirmed=0', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/back' })
  await inFlight(ta, s.id)
  const waiting = once(ta.deps.signals, 'waiting')
  const relay = getPage(ta, `/c/${s.id}/done`)
  await waiting
  await helper(ta, s.id, 'cancel')
  const page = await relay
  assert.equal(relayWait(page.headers), 'signalled')
  assert.equal(page.location, `https://shop.example/back?session_id=${s.id}&paid_confirmed=0`)
})

test('a payment that is not confirmed in time: the relay gives up at its limit with paid_confirmed=0', async (t) => {
  // The limit is 5 s in production (config.test.ts); a short one here, the same code path.
  const ta = await startTestApp(t, { relayWaitMs: 300 })
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/back' })
  await inFlight(ta, s.id)
  const waiting = once(ta.deps.signals, 'waiting')
  const page = await getPage(ta, `/c/${s.id}/done`)
  await waiting // it did wait, rather than answer at once
  assert.equal(relayWait(page.headers), 'timeout')
  assert.equal(page.status, 303)
  assert.equal(page.location, `https://shop.example/back?session_id=${s.id}&paid_confirmed=0`)
  assert.equal(ta.deps.signals.subscribers(s.id), 0, 'the waiter is gone')
})

test('a waiting relay does not hold up a shutdown: it answers when the app closes', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta, { amount: 1000, currency: 'CNY', successUrl: 'https://shop.example/back' })
  await inFlight(ta, s.id)
  const waiting = once(ta.deps.signals, 'waiting')
  const relay = getPage(ta, `/c/${s.id}/done`)
  await waiting
  await ta.app.close()
  const page = await relay
  assert.equal(relayWait(page.headers), 'closed', 'woken by the shutdown, not by its deadline')
  assert.equal(page.location, `https://shop.example/back?session_id=${s.id}&paid_confirmed=0`)
})
