/**
 * The provider as Medusa's payment module calls it, method by method, against a real Till in test
 * mode (test/support/global-setup.ts starts it). The customer's part is played with Till's test
 * helpers; Medusa's part (carts, orders) is in integration-tests/.
 */
import { createHmac } from 'node:crypto'
import { BigNumber } from '@medusajs/framework/utils'
import { Till } from '../../../js/src/index'
import { TillPaymentProvider, type TillOptions } from '../../src'
import { startReceiver } from '../support/receiver'

const baseUrl = () => process.env.TILL_BASE_URL!
const till = () => new Till({ apiKey: process.env.TILL_TEST_KEY!, baseUrl: baseUrl() })
const WEBHOOK_SECRET = 'whsec_not_the_endpoints_secret'

function provider(options: Partial<TillOptions> = {}) {
  return new TillPaymentProvider({}, { baseUrl: baseUrl(), apiKey: process.env.TILL_TEST_KEY!, webhookSecret: WEBHOOK_SECRET, ...options })
}

let n = 0
/** What Medusa's payment module passes to initiatePayment: its own session id in data, and as the idempotency key. */
function initiateInput(amount: unknown, currency_code: string, data: Record<string, unknown> = {}) {
  const sessionId = `payses_test_${Date.now()}_${n++}`
  return { amount: amount as number, currency_code, data: { session_id: sessionId, ...data }, context: { idempotency_key: sessionId } }
}

async function paidPayment(p: TillPaymentProvider, amount = 19.99, refundBehavior?: 'succeed' | 'pending' | 'fail') {
  const { data } = await p.initiatePayment(initiateInput(amount, 'usd'))
  await till().testHelpers.sessions.pay(data!.till_session_id as string, refundBehavior ? { refundBehavior } : {})
  const authorized = await p.authorizePayment({ data })
  expect(authorized.status).toBe('captured')
  return authorized.data!
}

describe('validateOptions', () => {
  it('names the option that is wrong', () => {
    const good = { baseUrl: 'https://pay.example.com', apiKey: 'sk_test_abc', webhookSecret: 'whsec_abc' }
    expect(() => TillPaymentProvider.validateOptions(good)).not.toThrow()
    expect(() => TillPaymentProvider.validateOptions({ ...good, webhookSecret: undefined })).toThrow('`webhookSecret` must be')
    expect(() => TillPaymentProvider.validateOptions({ ...good, apiKey: 'pk_test_abc' })).toThrow('`apiKey` must be')
    expect(() => TillPaymentProvider.validateOptions({ ...good, baseUrl: 'pay.example.com' })).toThrow('`baseUrl` must be')
    expect(() => TillPaymentProvider.validateOptions({ ...good, sessionTtlSeconds: 30 })).toThrow('`sessionTtlSeconds` must be')
  })
})

describe('initiatePayment', () => {
  it('opens a Till session in minor units, with Medusa\'s session in its metadata, and gives the storefront its url', async () => {
    const input = initiateInput(19.99, 'usd', { return_url: 'http://localhost:8000/checkout/return' })
    const out = await provider({ description: 'Medusa store', sessionTtlSeconds: 600 }).initiatePayment(input)
    expect(out.status).toBe('pending')
    const session = await till().getSession(out.id)
    expect(session).toMatchObject({
      amount: 1999, currency: 'USD', status: 'pending', description: 'Medusa store',
      metadata: { medusa_payment_session_id: input.data.session_id },
    })
    expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(600_000)
    expect(out.data).toEqual({
      session_id: input.data.session_id, till_session_id: session.id, url: `${baseUrl()}/c/${session.id}`, amount: 1999, currency: 'USD',
      status: 'pending', return_url: 'http://localhost:8000/checkout/return',
    })
  })

  it('charges JPY in yen, not in hundredths', async () => {
    const out = await provider().initiatePayment(initiateInput(1500, 'jpy'))
    expect(await till().getSession(out.id)).toMatchObject({ amount: 1500, currency: 'JPY' })
  })

  it('takes Medusa\'s BigNumber amounts, exactly', async () => {
    const p = provider()
    const fromBigNumber = await p.initiatePayment(initiateInput(new BigNumber('1234.56'), 'eur'))
    const fromRaw = await p.initiatePayment(initiateInput({ value: '0.07', precision: 20 }, 'hkd'))
    expect(fromBigNumber.data!.amount).toBe(123456)
    expect(fromRaw.data!.amount).toBe(7)
  })

  it('opens one session when Medusa retries with the same idempotency key', async () => {
    const input = initiateInput(5, 'cny')
    const first = await provider().initiatePayment(input)
    const again = await provider().initiatePayment(input)
    expect(again.id).toBe(first.id)
  })

  it('refuses a currency Till does not take, before calling Till', async () => {
    await expect(provider().initiatePayment(initiateInput(10, 'gbp'))).rejects.toThrow('Till takes CNY, USD, EUR, HKD, JPY; this payment is in GBP')
  })
})

describe('authorizePayment and getPaymentStatus', () => {
  it('is pending until Till says the session is paid, then captured, with the record to refund', async () => {
    const p = provider()
    const { data } = await p.initiatePayment(initiateInput(19.99, 'usd'))
    expect((await p.authorizePayment({ data })).status).toBe('pending')
    const paid = await till().testHelpers.sessions.pay(data!.till_session_id as string, {})
    const authorized = await p.authorizePayment({ data })
    expect(authorized).toEqual({ status: 'captured', data: { ...data, status: 'paid', record_id: paid.record!.id, refunded_amount: 0 } })
    expect((await p.getPaymentStatus({ data })).status).toBe('captured')
    expect((await p.retrievePayment({ data })).data).toMatchObject({ status: 'paid', record_id: paid.record!.id })
  })

  it.each([
    ['fail', 'error'],
    ['cancel', 'canceled'],
    ['expire', 'canceled'],
  ] as const)('a session the customer ended with %s is %s', async (helper, status) => {
    const p = provider()
    const { data } = await p.initiatePayment(initiateInput(3, 'usd'))
    await till().testHelpers.sessions[helper](data!.till_session_id as string)
    expect((await p.authorizePayment({ data })).status).toBe(status)
  })

  it('refuses a Till session that is not the one this payment opened', async () => {
    const p = provider()
    const { data } = await p.initiatePayment(initiateInput(19.99, 'usd'))
    const other = await p.initiatePayment(initiateInput(19.99, 'usd'))
    await till().testHelpers.sessions.pay(other.id, {})
    // Another Medusa session's paid Till session, or the right one with another amount: never captured.
    await expect(p.authorizePayment({ data: { ...data, till_session_id: other.id } })).rejects.toThrow('is not the one this payment opened')
    await expect(p.authorizePayment({ data: { ...other.data, amount: 1 } })).rejects.toThrow('is not the one this payment opened')
  })

  it('says the data is not a Till payment\'s when it has no Till session', async () => {
    await expect(provider().authorizePayment({ data: { id: 'pi_123' } })).rejects.toThrow('has no Till session in its data')
  })
})

describe('capturePayment', () => {
  it('has nothing to do for a paid session, and refuses an unpaid one', async () => {
    const p = provider()
    const data = await paidPayment(p)
    expect((await p.capturePayment({ data })).data).toMatchObject({ status: 'paid' })
    const unpaid = await p.initiatePayment(initiateInput(1, 'usd'))
    await expect(p.capturePayment({ data: unpaid.data })).rejects.toThrow('is pending, not paid')
  })
})

describe('refundPayment', () => {
  it('refunds in part and then the rest through Till, once per Medusa idempotency key', async () => {
    const p = provider()
    const data = await paidPayment(p, 19.99)
    const partial = await p.refundPayment({ data, amount: 5.5, context: { idempotency_key: 'refund_1' } })
    expect(partial.data).toMatchObject({ refunded_amount: 550, status: 'paid' })
    // Medusa retrying the same refund: Till replays the answer, nothing more is refunded.
    await p.refundPayment({ data, amount: 5.5, context: { idempotency_key: 'refund_1' } })
    const record = await till().records.retrieve(data.record_id as string)
    expect(record).toMatchObject({ refundedAmount: 550, status: 'partially_refunded' })
    expect(record.refunds).toHaveLength(1)

    const rest = await p.refundPayment({ data: partial.data, amount: new BigNumber('14.49'), context: { idempotency_key: 'refund_2' } })
    expect(rest.data).toMatchObject({ refunded_amount: 1999, status: 'refunded' })
    expect(await till().records.retrieve(data.record_id as string)).toMatchObject({ refundedAmount: 1999, status: 'refunded' })
  })

  it('passes on Till\'s refusal of more than what remains, and refunds nothing', async () => {
    const p = provider()
    const data = await paidPayment(p, 10)
    await expect(p.refundPayment({ data, amount: 10.01, context: { idempotency_key: 'refund_over' } }))
      .rejects.toThrow('Till answered 400 while refunding: amount exceeds refundable (amount_exceeds_refundable)')
    expect(await till().records.retrieve(data.record_id as string)).toMatchObject({ refundedAmount: 0 })
  })

  it('throws when the payment provider behind Till refuses the refund, so Medusa records none', async () => {
    const p = provider()
    const data = await paidPayment(p, 10, 'fail')
    await expect(p.refundPayment({ data, amount: 10, context: { idempotency_key: 'refund_failing' } })).rejects.toThrow('refused refund ref_')
  })

  it('refunds JPY in yen', async () => {
    const p = provider()
    const { data } = await p.initiatePayment(initiateInput(1500, 'jpy'))
    await till().testHelpers.sessions.pay(data!.till_session_id as string, {})
    const paid = (await p.authorizePayment({ data })).data!
    await p.refundPayment({ data: paid, amount: 500, context: { idempotency_key: 'refund_jpy' } })
    expect(await till().records.retrieve(paid.record_id as string)).toMatchObject({ refundedAmount: 500, currency: 'JPY' })
  })
})

describe('cancelPayment', () => {
  it('gives the customer back what remains of a paid session, once however often Medusa retries', async () => {
    const p = provider()
    const data = await paidPayment(p, 19.99)
    await p.refundPayment({ data, amount: 4.99, context: { idempotency_key: 'refund_before_cancel' } })
    const canceled = await p.cancelPayment({ data })
    expect(canceled.data).toMatchObject({ status: 'refunded', refunded_amount: 1999 })
    expect((await p.cancelPayment({ data })).data).toMatchObject({ status: 'refunded' })
    const record = await till().records.retrieve(data.record_id as string)
    expect(record).toMatchObject({ status: 'refunded', refundedAmount: 1999 })
    expect(record.refunds.map((r) => r.amount)).toEqual([1500, 499])
  })

  it('cancels an unpaid session at Till, so it can no longer be paid; a retry finds it canceled', async () => {
    const p = provider()
    const { data } = await p.initiatePayment(initiateInput(2, 'usd'))
    expect((await p.cancelPayment({ data })).data).toMatchObject({ status: 'canceled' })
    expect(await till().getSession(data!.till_session_id as string)).toMatchObject({ status: 'canceled' })
    expect((await p.cancelPayment({ data })).data).toMatchObject({ status: 'canceled' })
    await expect(till().testHelpers.sessions.pay(data!.till_session_id as string, {})).rejects.toThrow('session is canceled')
    expect(await provider().cancelPayment({ data: { session_id: 'payses_1' } })).toEqual({ data: { session_id: 'payses_1' } })
  })
})

describe('deletePayment', () => {
  it('cancels an unpaid session at Till, and refuses to drop one the customer paid', async () => {
    const p = provider()
    const { data } = await p.initiatePayment(initiateInput(2, 'usd'))
    expect((await p.deletePayment({ data })).data).toMatchObject({ status: 'canceled' })
    expect(await till().getSession(data!.till_session_id as string)).toMatchObject({ status: 'canceled' })
    const paid = await paidPayment(p)
    await expect(p.deletePayment({ data: paid })).rejects.toThrow('the customer paid this cart, complete it')
    expect(await till().records.retrieve(paid.record_id as string)).toMatchObject({ status: 'paid', refundedAmount: 0 })
  })

  it('has nothing to do when no Till session was opened (Medusa cleaning up a failed initiate)', async () => {
    expect(await provider().deletePayment({ data: { session_id: 'payses_1' } })).toEqual({ data: { session_id: 'payses_1' } })
  })
})

describe('updatePayment', () => {
  it('keeps the session for the same amount and opens a new one for another', async () => {
    const p = provider()
    const input = initiateInput(19.99, 'usd', { return_url: 'http://localhost:8000/return' })
    const { data } = await p.initiatePayment(input)
    expect((await p.updatePayment({ data, amount: '19.99', currency_code: 'usd' })).data).toMatchObject({ till_session_id: data!.till_session_id })

    const updated = await p.updatePayment({ data, amount: 25, currency_code: 'usd' })
    expect(updated.status).toBe('pending')
    expect(updated.data!.till_session_id).not.toBe(data!.till_session_id)
    expect(await till().getSession(updated.data!.till_session_id as string)).toMatchObject({
      amount: 2500, metadata: { medusa_payment_session_id: input.data.session_id },
    })
    expect(updated.data).toMatchObject({ session_id: input.data.session_id, amount: 2500, return_url: 'http://localhost:8000/return' })
    // Retried, the same update finds the same new session.
    expect((await p.updatePayment({ data, amount: 25, currency_code: 'usd' })).data!.till_session_id).toBe(updated.data!.till_session_id)
  })

  it('refuses to change the amount of a session the customer paid', async () => {
    const p = provider()
    const paid = await paidPayment(p)
    await expect(p.updatePayment({ data: paid, amount: 30, currency_code: 'usd' })).rejects.toThrow('is paid: the customer has paid or is paying')
  })
})

describe('getWebhookActionAndData', () => {
  const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex')

  it('verifies a delivery from Till and tells Medusa the session was captured, in major units', async () => {
    const receiver = await startReceiver()
    const endpoint = await till().webhookEndpoints.create({ url: receiver.url, events: ['payment.succeeded', 'payment.failed'] })
    try {
      const p = provider({ webhookSecret: endpoint.secret })
      const paid = await p.initiatePayment(initiateInput(19.99, 'usd'))
      const failed = await p.initiatePayment(initiateInput(1500, 'jpy'))
      await till().testHelpers.sessions.pay(paid.id, {})
      await till().testHelpers.sessions.fail(failed.id)
      const about = (id: string) => (r: { body: Buffer }) => JSON.parse(r.body.toString()).data.sessionId === id
      const [succeeded, failure] = [await receiver.next(about(paid.id)), await receiver.next(about(failed.id))]

      // As Medusa's /hooks/payment route hands it over: parsed body, raw body, Node's lower-cased headers.
      const payload = (r: typeof succeeded) => ({ data: JSON.parse(r.body.toString()), rawData: r.body, headers: r.headers })
      expect(await p.getWebhookActionAndData(payload(succeeded))).toEqual({
        action: 'captured', data: { session_id: paid.data!.session_id, amount: '19.99' },
      })
      expect(await p.getWebhookActionAndData(payload(failure))).toEqual({
        action: 'failed', data: { session_id: failed.data!.session_id, amount: '1500' },
      })
      // The raw body as a string verifies too (an event bus may hand it over so).
      expect((await p.getWebhookActionAndData({ ...payload(succeeded), rawData: succeeded.body.toString() })).action).toBe('captured')

      const tampered = Buffer.from(succeeded.body.toString().replace('"amount":1999', '"amount":1'))
      await expect(p.getWebhookActionAndData({ ...payload(succeeded), rawData: tampered })).rejects.toThrow('Till webhook not accepted: No signature')
      await expect(provider().getWebhookActionAndData(payload(succeeded))).rejects.toThrow('Till webhook not accepted')
      await expect(p.getWebhookActionAndData({ ...payload(succeeded), headers: {} })).rejects.toThrow('Till webhook not accepted')
    } finally {
      await till().webhookEndpoints.delete(endpoint.id)
      await receiver.close()
    }
  })

  it('refuses a signed delivery older than the tolerance (a replay)', async () => {
    const event = { id: 'evt_1', type: 'payment.succeeded', mode: 'test', createdAt: new Date(Date.now() - 301_000).toISOString(),
      data: { sessionId: 'sess_1', status: 'paid', amount: 100, currency: 'USD', metadata: { medusa_payment_session_id: 'payses_1' } } }
    const body = JSON.stringify(event)
    const payload = { data: event, rawData: body, headers: { 'x-service-signature': sign(body, WEBHOOK_SECRET) } }
    await expect(provider().getWebhookActionAndData(payload)).rejects.toThrow('outside the tolerance of 300 s')
    expect((await provider({ webhookToleranceSeconds: 600 }).getWebhookActionAndData(payload)).action).toBe('captured')
  })

  it.each([
    ['a session not opened by Medusa', { type: 'payment.succeeded', mode: 'test', metadata: { order: 'A-1' } }],
    ['an event of the other mode', { type: 'payment.succeeded', mode: 'live', metadata: { medusa_payment_session_id: 'payses_1' } }],
    ['a refund event', { type: 'refund.succeeded', mode: 'test', metadata: { medusa_payment_session_id: 'payses_1' } }],
  ])('leaves %s to others (not_supported)', async (_, e) => {
    const body = JSON.stringify({ id: 'evt_2', type: e.type, mode: e.mode, createdAt: new Date().toISOString(),
      data: { sessionId: 'sess_2', amount: 100, currency: 'USD', metadata: e.metadata } })
    const payload = { data: JSON.parse(body), rawData: body, headers: { 'x-service-signature': sign(body, WEBHOOK_SECRET) } }
    expect(await provider().getWebhookActionAndData(payload)).toEqual({ action: 'not_supported' })
  })
})
