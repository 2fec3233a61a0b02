/**
 * Medusa's own integration runner (@medusajs/test-utils) starts a Medusa on PostgreSQL with this
 * package as its payment provider (integration-tests/app/medusa-config.ts), against a real Till in
 * test mode. The storefront and the admin are Medusa's HTTP APIs; the customer is a browser on
 * Till's hosted page; Till's webhooks reach Medusa's /hooks/payment/till_till.
 *
 * The Hong Kong region pays through the package's second registration, `till_live`, with Till's live
 * key: the merchant's live Stripe configuration points at the Stripe fake (test/support/stripe.ts),
 * the customer pays by card on its hosted page, and Till's live webhooks reach Medusa's
 * /hooks/payment/till_till_live through an https front (live endpoints are https only).
 *
 * The runner restores Medusa's database before each test, so a webhook of one test that Medusa
 * processes (5 s after receiving it) during the next finds no payment session and is logged as an
 * error ("PaymentSession … was not found"): expected, and without effect.
 */
import { createServer } from 'node:net'
import path from 'node:path'
import { medusaIntegrationTestRunner } from '@medusajs/test-utils'
import { Till } from '../../../js/src/index'
import { onTillPage, payByCard } from '../../test/support/customer'
import { startHttpsFront } from '../../test/support/https-front'
import {
  adminOrder, checkout, completeCart, LIVE_RETURN_URL, nextWebhookProcessed, orderOfCart, payWithTill, RETURN_URL, setUpStore, type Store,
} from '../../test/support/medusa-store'
import { stripeAccount } from '../../test/support/stripe'

const till = () => new Till({ apiKey: process.env.TILL_TEST_KEY!, baseUrl: process.env.TILL_BASE_URL! })
const tillLive = () => new Till({ apiKey: process.env.TILL_LIVE_KEY!, baseUrl: process.env.TILL_BASE_URL! })
const stripe = () => stripeAccount(process.env.STRIPE_FAKE_URL!, process.env.STRIPE_SECRET_KEY!)

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** `promise`, or an error naming what did not happen within timeoutMs. */
async function within<T>(what: string, promise: Promise<T>, timeoutMs = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs) })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

async function eventually<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

// Till's webhook endpoints for this Medusa, one per mode, registered as README.md says, before Medusa
// loads its config (the secrets are options of the providers): the runner listens on PORT.
let endpointIds: { test: string; live: string }
let front: Awaited<ReturnType<typeof startHttpsFront>>
beforeAll(async () => {
  process.env.PORT = String(await freePort())
  front = await startHttpsFront(() => Number(process.env.PORT))
  const endpoint = await till().webhookEndpoints.create({ url: `http://127.0.0.1:${process.env.PORT}/hooks/payment/till_till` })
  const live = await tillLive().webhookEndpoints.create({ url: `${front.origin}/hooks/payment/till_till_live` })
  endpointIds = { test: endpoint.id, live: live.id }
  process.env.TILL_WEBHOOK_SECRET = endpoint.secret
  process.env.TILL_LIVE_WEBHOOK_SECRET = live.secret
})
afterAll(async () => {
  await till().webhookEndpoints.delete(endpointIds.test)
  await tillLive().webhookEndpoints.delete(endpointIds.live)
  await front.close()
})

medusaIntegrationTestRunner({
  cwd: path.join(__dirname, '../app'),
  testSuite: ({ api, getContainer }) => {
    let store: Store
    beforeAll(async () => {
      store = await setUpStore(api, getContainer())
    })

    /** The customer pays on Till's page and comes back; the storefront completes the cart. */
    async function placeOrder() {
      const { cart, session } = await checkout(api, store, 'usd')
      await onTillPage(session.data.url, 'pay')
      const completed = await completeCart(api, store, cart.id)
      expect(completed.type).toBe('order')
      return completed.order
    }

    it('completes a cart after the customer pays on Till\'s hosted page, with the payment captured', async () => {
      const { cart, session } = await checkout(api, store, 'usd')
      const webhook = nextWebhookProcessed(getContainer())
      expect(session.data).toMatchObject({ amount: 1999, currency: 'USD', status: 'pending' })
      expect(session.data.url).toBe(`${process.env.TILL_BASE_URL}/c/${session.data.till_session_id}`)

      const visit = await onTillPage(session.data.url, 'pay')
      // Back at the storefront through Till's relay; the storefront trusts none of it, Medusa asks Till.
      expect(visit.location).toMatch(new RegExp(`^${RETURN_URL}\\?session_id=${session.data.till_session_id}&record_id=rec_\\w+&paid_confirmed=1$`))

      const completed = await completeCart(api, store, cart.id)
      expect(completed.type).toBe('order')
      const order = await adminOrder(api, store, completed.order.id)
      expect(order).toMatchObject({ total: 19.99, currency_code: 'usd', payment_status: 'captured' })
      const [payment] = order.payment_collections[0].payments
      expect(payment.captured_at).toBeTruthy()
      expect(payment.captures.map((c: { amount: number }) => c.amount)).toEqual([19.99])
      expect(payment.data).toMatchObject({ status: 'paid', record_id: expect.stringMatching(/^rec_/) })
      expect(await till().getSession(session.data.till_session_id)).toMatchObject({ status: 'paid', amount: 1999, currency: 'USD' })

      // Till's payment.succeeded arrives after the customer is back: Medusa takes it without capturing twice.
      expect(await within('Medusa processing Till\'s payment.succeeded', webhook)).toMatchObject({ state: 'done', errors: [] })
      expect((await adminOrder(api, store, completed.order.id)).payment_collections[0].payments[0].captures).toHaveLength(1)
    })

    it('refunds part and then the rest of an order from Medusa\'s admin through Till', async () => {
      const order = await placeOrder()
      const { id: paymentId, data: { record_id: recordId } } = (await adminOrder(api, store, order.id)).payment_collections[0].payments[0]

      await api.post(`/admin/payments/${paymentId}/refund`, { amount: 5 }, store.admin)
      expect(await till().records.retrieve(recordId)).toMatchObject({ refundedAmount: 500, status: 'partially_refunded' })
      expect((await adminOrder(api, store, order.id)).payment_status).toBe('partially_refunded')

      await api.post(`/admin/payments/${paymentId}/refund`, { amount: 14.99 }, store.admin)
      const record = await till().records.retrieve(recordId)
      expect(record).toMatchObject({ refundedAmount: 1999, status: 'refunded' })
      expect(record.refunds.map((r) => r.amount)).toEqual([1499, 500])
      const refunded = await adminOrder(api, store, order.id)
      expect(refunded.payment_status).toBe('refunded')
      expect(refunded.payment_collections[0].payments[0].refunds.map((r: { amount: number }) => r.amount).sort()).toEqual([14.99, 5])
    })

    it('completes the order from Till\'s webhook when the customer never returns to the store', async () => {
      const { cart, session } = await checkout(api, store, 'usd')
      await onTillPage(session.data.url, 'pay') // and closes the tab on the way back

      const orderId = await eventually('an order made from Till\'s payment.succeeded webhook', () => orderOfCart(getContainer(), cart.id))
      const order = await adminOrder(api, store, orderId)
      expect(order).toMatchObject({ total: 19.99, payment_status: 'captured' })
      expect(order.payment_collections[0].payments[0].captures.map((c: { amount: number }) => c.amount)).toEqual([19.99])

      // The customer comes back late: the storefront's completion finds the same order.
      const late = await completeCart(api, store, cart.id)
      expect(late).toMatchObject({ type: 'order', order: { id: orderId } })
    })

    it('leaves the cart open after a failed payment, and a new Till session then completes it', async () => {
      const { cart, session } = await checkout(api, store, 'usd')
      await onTillPage(session.data.url, 'fail')

      // Medusa asks Till, which says failed: Medusa refuses to complete (400), and the cart stays open.
      const attempt = await api.post(`/store/carts/${cart.id}/complete`, {}, store.storefront).catch((e: { response: { status: number; data: any } }) => e.response)
      expect(attempt.status).toBe(400)
      expect(attempt.data.message).toBe(`Session: ${session.id} was not authorized with the provider.`)
      expect(await orderOfCart(getContainer(), cart.id)).toBeUndefined()
      const { data: { cart: open } } = await api.get(`/store/carts/${cart.id}?fields=completed_at,*payment_collection.payment_sessions`, store.storefront)
      expect(open.completed_at).toBeNull()
      expect(open.payment_collection.payment_sessions).toMatchObject([{ id: session.id, status: 'error' }])

      const retry = await payWithTill(api, store, cart.id)
      expect(retry.data.till_session_id).not.toBe(session.data.till_session_id)
      await onTillPage(retry.data.url, 'pay')
      const completed = await completeCart(api, store, cart.id)
      expect(completed.type).toBe('order')
      expect((await adminOrder(api, store, completed.order.id)).payment_status).toBe('captured')
    })

    it('charges a JPY cart ¥1,500 on Till (no minor unit) and refunds it in yen', async () => {
      const { cart, session } = await checkout(api, store, 'jpy')
      expect(await till().getSession(session.data.till_session_id)).toMatchObject({ amount: 1500, currency: 'JPY' })
      const page = await (await fetch(session.data.url)).text()
      expect(page).toContain('¥1,500')

      await onTillPage(session.data.url, 'pay')
      const completed = await completeCart(api, store, cart.id)
      const order = await adminOrder(api, store, completed.order.id)
      expect(order).toMatchObject({ total: 1500, currency_code: 'jpy', payment_status: 'captured' })

      const [payment] = order.payment_collections[0].payments
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 500 }, store.admin)
      expect(await till().records.retrieve(payment.data.record_id)).toMatchObject({ amount: 1500, refundedAmount: 500, currency: 'JPY' })
    })

    it('takes HK$158 by card through Till\'s live Stripe: Stripe\'s webhook to Till, Till\'s to Medusa, places the order; a refund reaches Stripe', async () => {
      const { cart, session } = await checkout(api, store, 'hkd')
      expect(session.data).toMatchObject({ amount: 15800, currency: 'HKD', status: 'pending' })

      // The customer pays by card on Stripe's page and closes the tab on the way back to the store.
      const visit = await payByCard(session.data.url, '4242 4242 4242 4242', process.env.STRIPE_FAKE_URL!)
      expect(visit.location).toMatch(new RegExp(`^${LIVE_RETURN_URL}\\?session_id=${session.data.till_session_id}&record_id=rec_\\w+&paid_confirmed=1$`))
      const paid = await tillLive().getSession(session.data.till_session_id)
      expect(paid).toMatchObject({ mode: 'live', status: 'paid', amount: 15800, currency: 'HKD', record: { provider: 'stripe' } })
      const paymentIntent = paid.record!.providerRef
      // Stripe signed checkout.session.completed to Till, which took it.
      expect((await stripe().deliveries()).filter((d) => d.type === 'checkout.session.completed').map((d) => d.status)).toEqual([200])

      // Till's payment.succeeded (live) makes Medusa place the order, its payment captured.
      const orderId = await eventually('an order made from Till\'s live payment.succeeded webhook', () => orderOfCart(getContainer(), cart.id))
      const order = await adminOrder(api, store, orderId)
      expect(order).toMatchObject({ total: 158, currency_code: 'hkd', payment_status: 'captured' })
      const [payment] = order.payment_collections[0].payments
      expect(payment).toMatchObject({ provider_id: 'pp_till_till_live', data: { record_id: paid.record!.id } })
      expect(payment.captures.map((c: { amount: number }) => c.amount)).toEqual([158])

      // A partial refund from Medusa's admin: Till refunds it at Stripe, keyed by Till's refund id.
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 58 }, store.admin)
      expect((await adminOrder(api, store, orderId)).payment_status).toBe('partially_refunded')
      const record = await tillLive().records.retrieve(paid.record!.id)
      expect(record).toMatchObject({ refundedAmount: 5800, status: 'partially_refunded' })
      const [refund] = record.refunds
      const atStripe = await stripe().refunds(paymentIntent)
      expect(atStripe).toMatchObject([{ amount: 5800, currency: 'hkd', status: 'succeeded', metadata: { till_refund_id: refund.id } }])
      const posts = (await stripe().requests()).filter((r) => r.method === 'POST' && r.path === '/v1/refunds')
      expect(posts.map((r) => [r.idempotencyKey, r.status])).toEqual([[`till-refund-${refund.id}`, 200]])
    })
  },
})
