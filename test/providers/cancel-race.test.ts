/**
 * The merchant's cancel or expire (POST /api/v1/sessions/{id}/cancel|expire) racing the customer's
 * payment at each live provider's fake, for real: both sent at once, no sleeps. Whichever wins, money
 * is never dropped: either the close wins and the provider refuses the payment (the session stays
 * closed, its one event sent), or the payment lands and the session ends paid, once, with
 * payment.succeeded, whether before the close (the close answers `session is paid`) or after it.
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import type { TestApp } from '../helpers/app.js'
import { alipayTill } from '../helpers/alipay-till.js'
import { creemTill } from '../helpers/creem-till.js'
import { stripeTill } from '../helpers/stripe-till.js'
import { startFake } from '../helpers/wechat.js'
import { startTestApp } from '../helpers/app.js'
import { eventsWhere } from '../helpers/store-queries.js'
import { startAttempt } from '../../src/services/attempts.js'

interface Racer {
  ta: TestApp
  session(): Promise<string>
  /** Starts the customer's attempt; returns what pay needs. */
  start(id: string): Promise<{ providerRef: string | null; id: string }>
  /** The customer pays at the provider; resolves once its notification was delivered, rejects when the provider refuses. */
  pay(attempt: { providerRef: string | null; id: string }): Promise<unknown>
  /** How the provider refuses a payment to an order it closed; null: it cannot close (Creem), every payment lands. */
  refused: RegExp | null
}

const ROUNDS = 6

async function outcome(r: Racer, id: string) {
  const { ta } = r
  const session = (await ta.request('GET', `/api/v1/sessions/${id}`, { key: ta.merchant.liveKey })).body
  const { rows } = await ta.database.pool.query('select count(*)::int as n from records where session_id = $1', [id])
  return { status: session.status as string, records: rows[0].n as number, types: (await eventsWhere(ta, 'sessionId', id)).map((e) => e.type).sort() }
}

/** One round: the close and the payment sent at once; every outcome checked. Returns which won. */
async function round(r: Racer, action: 'cancel' | 'expire', order: 'close-first' | 'pay-first' | 'close-sent-first') {
  const id = await r.session()
  const attempt = await r.start(id)
  const closeIt = () => r.ta.request('POST', `/api/v1/sessions/${id}/${action}`, { key: r.ta.merchant.liveKey })
  let closed, paid
  if (order === 'close-first') {
    closed = await closeIt()
    paid = await r.pay(attempt).then((v) => ({ status: 'fulfilled' as const, value: v }), (e: unknown) => ({ status: 'rejected' as const, reason: e }))
  } else {
    const [p, c] = order === 'pay-first' ? await Promise.allSettled([r.pay(attempt), closeIt()]) : (await Promise.allSettled([closeIt(), r.pay(attempt)])).reverse() as [PromiseSettledResult<unknown>, PromiseSettledResult<Awaited<ReturnType<typeof closeIt>>>]
    paid = p
    if (c.status === 'rejected') throw c.reason
    closed = c.value
  }
  const closedStatus = action === 'cancel' ? 'canceled' : 'expired'
  const closedEvent = action === 'cancel' ? 'session.canceled' : 'session.expired'
  const seen = await outcome(r, id)
  const where = `${action} ${order}: ${JSON.stringify({ close: [closed.status, closed.body], paid: paid.status, seen })}`
  if (paid.status === 'rejected') {
    // The close won at the provider: the payment was refused there, nothing is owed.
    assert.ok(r.refused, `${where}: a provider without a close refused a payment`)
    assert.match(String((paid.reason as Error).message), r.refused, where)
    assert.equal(closed.status, 200, where)
    assert.equal(closed.body.status, closedStatus, where)
    assert.deepEqual(seen, { status: closedStatus, records: 0, types: [closedEvent] }, where)
    return 'close'
  }
  // The payment landed: the session ends paid, once, whatever the close answered.
  if (closed.status === 200) {
    assert.equal(closed.body.status, closedStatus, where)
    assert.deepEqual(seen, { status: 'paid', records: 1, types: ['payment.succeeded', closedEvent] }, where)
    return 'paid after the close'
  }
  assert.equal(closed.status, 400, where)
  assert.deepEqual(closed.body, { error: 'session is paid', code: 'session_terminal' }, where)
  assert.deepEqual(seen, { status: 'paid', records: 1, types: ['payment.succeeded'] }, where)
  return 'paid before the close'
}

async function race(t: TestContext, r: Racer) {
  const first = await round(r, 'cancel', 'close-first')
  assert.equal(first, r.refused ? 'close' : 'paid after the close')
  const outcomes: string[] = [first]
  for (let i = 0; i < ROUNDS; i++) outcomes.push(await round(r, i % 2 ? 'expire' : 'cancel', i % 3 ? 'pay-first' : 'close-sent-first'))
  t.diagnostic(`outcomes: ${outcomes.join(', ')}`)
}

test('WeChat Pay: a payment racing the merchant\'s cancel or expire is refused at the closed order, or recorded paid once', async (t) => {
  const ta = await startTestApp(t)
  const { fake, ctl } = await startFake(t, { clock: ta.clock })
  const res = await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: fake.addMerchant(), settings: { apiBase: fake.url } })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  const configId = res.body.id as string
  await race(t, {
    ta,
    refused: /order is CLOSED/,
    session: async () => (await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: { amount: 9900, currency: 'CNY', providerHints: { wechat: 'main' } } })).body.id,
    start: async (id) => (await startAttempt(ta.deps, id, { provider: 'wechat', providerConfigId: configId, channel: 'native' })).attempt,
    pay: (a) => ctl.pay({ out_trade_no: a.id }),
  })
})

test('Alipay: a payment racing the merchant\'s cancel or expire is refused at the closed trade, or recorded paid once', async (t) => {
  const a = await alipayTill(t)
  await race(t, {
    ta: a.ta,
    refused: /TRADE_CLOSED|closed/i,
    session: () => a.session(),
    // Scanned: the trade exists at Alipay, so there is one to close (an unscanned QR code has none).
    start: async (id) => {
      const { attempt } = await a.start(id)
      await a.ctl.scan({ out_trade_no: attempt.id })
      return attempt
    },
    pay: (at) => a.ctl.pay({ out_trade_no: at.id }),
  })
})

test('Creem, which cannot close a checkout: a payment after the merchant\'s cancel or expire is still recorded paid once', async (t) => {
  const c = await creemTill(t)
  await race(t, {
    ta: c.ta,
    refused: null,
    session: () => c.session(),
    start: async (id) => (await c.start(id)).attempt,
    pay: (at) => c.ctl.complete(at.providerRef!),
  })
})

test('Stripe: a payment racing the merchant\'s cancel or expire is refused by the expired Checkout Session, or recorded paid once', async (t) => {
  const s = await stripeTill(t)
  await race(t, {
    ta: s.ta,
    refused: /expired/,
    session: () => s.session(),
    start: async (id) => (await s.start(id)).attempt,
    pay: (at) => s.ctl.complete(at.providerRef!),
  })
})
