/**
 * The Creem adapter: plumbing only. Wire shapes and status maps are in wire.ts, signatures in
 * sign.ts, the HTTP client in http.ts, the product-per-currency memory in products.ts. Our attempt id
 * is the checkout's request_id; Creem echoes it in checkout.completed, refund.created and the
 * success redirect, which is how every answer finds its attempt.
 */
import type { Dispatcher } from 'undici'
import type { PaymentFact, PaymentProvider, PaymentRef, ProviderConfig } from '../types.js'
import { ProviderError } from '../types.js'
import { accept, ignore, isHttpUrl, refuse } from '../json-acks.js'
import { checkAbout } from '../answers.js'
import { EVENT, PATHS, REFUND_TRANSACTION_FIELD, SIGNATURE_HEADER } from './constants.js'
import { credentialsOf, CreemClient } from './http.js'
import { productResolver, type ProductStore } from './products.js'
import { verifyReturnSignature, verifyWebhook } from './sign.js'
import { creemStatements } from './statements.js'
import {
  checkAmount, checkoutRequest, idOf, objectOf, paymentFact, paymentState, productRequest, refundFact, refundState, refundStateFromTransaction,
  type Checkout, type Dispute, type Product, type Refund, type RefundAnswer, type Transaction, type WebhookEvent,
} from './wire.js'

export interface CreemProviderOptions {
  /** Where the product made for each currency is remembered (the provider_products table in Till). */
  products: ProductStore
  timeoutMs?: number
  dispatcher?: Dispatcher
  /** The clock a statement's day is judged by. */
  now?: () => Date
  /** Transactions per search page when reading a statement (Creem's largest, 100, unless a test wants several pages). */
  statementPageSize?: number
}

const checkoutIdOf = (ref: PaymentRef) =>
  typeof ref.data.checkoutId === 'string' ? ref.data.checkoutId : ref.providerRef?.startsWith('ch_') ? ref.providerRef : null

export function createCreemProvider(opts: CreemProviderOptions): PaymentProvider & { client: CreemClient } {
  const client = new CreemClient({ timeoutMs: opts.timeoutMs ?? 10_000, dispatcher: opts.dispatcher })
  const products = productResolver(opts.products, async (cfg, currency) => {
    const p = await client.call<Product>(cfg, 'POST', PATHS.products, productRequest(currency))
    if (!p.id) throw new ProviderError('unknown', 'malformed_response', 'Creem created a product without an id')
    return p.id
  })

  /** The checkout behind an attempt, or null when Creem never made one (or never heard of it). */
  async function checkoutOf(cfg: ProviderConfig, ref: PaymentRef): Promise<Checkout | null> {
    const id = checkoutIdOf(ref)
    if (!id) return null
    let c: Checkout
    try {
      c = await client.call<Checkout>(cfg, 'GET', `${PATHS.checkouts}?checkout_id=${encodeURIComponent(id)}`)
    } catch (e) {
      if (e instanceof ProviderError && e.code === 'not_found') return null
      throw e
    }
    // Another checkout's answer (replayed or misrouted) says nothing about this one.
    checkAbout('Creem', 'the checkout query', { id }, c)
    // A checkout made for another attempt must never settle this one.
    if (c.request_id && ref.attemptId && c.request_id !== ref.attemptId) {
      throw new ProviderError('unknown', 'request_id_mismatch', `checkout ${id} belongs to ${c.request_id}, not ${ref.attemptId}`)
    }
    return c
  }

  /** The transaction a refund names: kept from checkout.completed, or read from the checkout's order. */
  async function transactionOf(cfg: ProviderConfig, ref: PaymentRef): Promise<string> {
    if (typeof ref.data.transactionId === 'string') return ref.data.transactionId
    const c = await checkoutOf(cfg, ref)
    const id = idOf(objectOf(c?.order)?.transaction)
    if (!id) throw new ProviderError('rejected', 'no_transaction', `Creem shows no transaction for attempt ${ref.attemptId}`, false)
    return id
  }

  /**
   * A paid checkout's fact with the amount and currency of the order Creem's API shows for it. A
   * checkout Creem does not know (or made for another attempt) leaves them unknown, which the core
   * refuses to take as paid; Creem not answering throws, so the webhook is retried.
   */
  async function withAmountFromCreem(cfg: ProviderConfig, fact: PaymentFact): Promise<PaymentFact> {
    const checkoutId = typeof fact.data?.checkoutId === 'string' ? fact.data.checkoutId : null
    let shown: Checkout | null = null
    try {
      if (checkoutId) shown = await checkoutOf(cfg, { attemptId: fact.attemptId, providerRef: checkoutId, data: { checkoutId } })
    } catch (e) {
      if (!(e instanceof ProviderError && e.code === 'request_id_mismatch')) throw e
    }
    const order = shown ? paymentFact(shown) : null
    return { ...fact, amount: order?.amount, currency: order?.currency, paidAt: fact.paidAt ?? order?.paidAt, data: { ...fact.data, ...order?.data } }
  }

  return {
    id: 'creem',
    client,

    async createAttempt(cfg, a) {
      if (a.channel !== null && a.channel !== 'redirect') throw new ProviderError('rejected', 'unsupported_channel', `Creem has no channel ${a.channel}`, false)
      checkAmount(a.amount, a.currency)
      const place = async () => {
        const productId = await products.get(cfg, a.currency)
        return { productId, checkout: await client.call<Checkout>(cfg, 'POST', PATHS.checkouts, checkoutRequest(a, productId)) }
      }
      let placed: Awaited<ReturnType<typeof place>>
      try {
        placed = await place()
      } catch (e) {
        // The remembered product is gone at Creem (deleted, or the key now points at another account): make a new one, once.
        if (!(e instanceof ProviderError && e.code === 'not_found')) throw e
        const stale = await products.find(cfg, a.currency)
        if (!stale) throw e
        await products.forget(cfg, a.currency, stale)
        placed = await place()
      }
      const { checkout, productId } = placed
      if (!checkout.id || !isHttpUrl(checkout.checkout_url)) throw new ProviderError('unknown', 'malformed_response', 'Creem answered the checkout without its id or checkout_url')
      // Redirect to the URL Creem returned, never one we build (§2.2).
      return { providerRef: checkout.id, action: { kind: 'redirect', url: checkout.checkout_url }, data: { checkoutId: checkout.id, productId } }
    },

    /**
     * The signature over the raw bytes first (a missing secret refuses everything: fail closed), then
     * the event. A refusal is a 401 so Creem retries once the secret is fixed; everything verified is
     * acknowledged with 200, duplicates included (applyFacts makes them no-ops).
     */
    async parseNotification(cfg, raw) {
      const check = verifyWebhook(credentialsOf(cfg).webhookSecret, raw.body, raw.headers[SIGNATURE_HEADER])
      if (!check.ok) return refuse(401, `signature refused: ${check.reason}`)
      let event: WebhookEvent
      try {
        event = JSON.parse(raw.body.toString('utf8')) as WebhookEvent
      } catch {
        return refuse(400, 'body is not JSON')
      }
      if (!event || typeof event !== 'object' || !event.object || typeof event.object !== 'object') return refuse(400, 'event without an object')
      switch (event.eventType) {
        case EVENT.checkoutCompleted: {
          const fact = paymentFact(event.object as Checkout)
          if (!fact.attemptId) return ignore('checkout without a request_id (not made by Till)')
          if (fact.status !== 'succeeded') return ignore(`checkout ${idOf(event.object as Checkout)} not paid`)
          if (fact.amount !== undefined && fact.currency !== undefined) return accept([fact])
          // The order as a bare id (or without its amount): never skip the amount check, ask Creem.
          try {
            return accept([await withAmountFromCreem(cfg, fact)])
          } catch (e) {
            return refuse(503, `order amount not known yet: ${(e as Error).message}`)
          }
        }
        case EVENT.refundCreated: {
          const fact = refundFact(event.object as Refund)
          if (!fact.attemptId || !fact.providerRefundRef) return ignore(`refund ${fact.providerRefundRef ?? '?'} without a checkout request_id`)
          return accept([fact])
        }
        case EVENT.disputeCreated: {
          const d = event.object as Dispute
          return ignore(`dispute ${d.id ?? '?'} on transaction ${idOf(d.transaction) ?? '?'} (${d.amount ?? '?'} ${d.currency ?? ''}): answer it in the Creem dashboard`)
        }
        default:
          return ignore(`event ${event.eventType ?? '(none)'}`)
      }
    },

    async queryPayment(cfg, ref) {
      const c = await checkoutOf(cfg, ref)
      // Never made, or unknown to Creem: nothing can be paid there.
      if (!c) return { status: checkoutIdOf(ref) ? 'closed' : 'pending' }
      return paymentState(c)
    },

    /**
     * Creem has no way to close a checkout: it stays payable until Creem expires it. So "closing" is
     * a query: paid money comes back as alreadyPaid, anything else is closed on our side, and a
     * payment made afterwards still arrives as checkout.completed and is recorded.
     */
    async closePayment(cfg, ref) {
      const c = await checkoutOf(cfg, ref)
      if (c && paymentState(c).status === 'succeeded') return { alreadyPaid: { ...paymentFact(c), attemptId: ref.attemptId } }
      return { closed: true }
    },

    async refund(cfg, r) {
      if (r.amount > r.totalAmount) throw new ProviderError('rejected', 'amount_exceeds_payment', 'refund larger than the payment', false)
      const transactionId = await transactionOf(cfg, r.payment)
      // No id in the answer: refund.created brings it, and the core matches that to this refund.
      const res = await client.call<RefundAnswer>(cfg, 'POST', PATHS.refunds, { [REFUND_TRANSACTION_FIELD]: transactionId })
      return refundState(res.status)
    },

    /** Read from the transaction; never `not_found`, so a refund is never sent twice (see refundStateFromTransaction). */
    async queryRefund(cfg, ref) {
      const transactionId = await transactionOf(cfg, ref.payment)
      const t = await client.call<Transaction>(cfg, 'GET', `${PATHS.transactions}?transaction_id=${encodeURIComponent(transactionId)}`)
      checkAbout('Creem', 'the transaction query', { id: transactionId }, t, ['id'])
      return refundStateFromTransaction(t, ref.providerRefundRef)
    },

    verifyReturn(cfg, query) {
      const check = verifyReturnSignature(query, credentialsOf(cfg).apiKey)
      return check.ok ? { verified: true, attemptId: query.get('request_id') } : { verified: false, reason: check.reason }
    },

    statements: creemStatements(client, opts.products, opts.now ?? (() => new Date()), opts.statementPageSize),
  }
}
