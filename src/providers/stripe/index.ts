/**
 * The Stripe adapter: plumbing only. Wire shapes and status maps are in wire.ts, signatures in
 * sign.ts, the HTTP client in http.ts, the day's balance in statements.ts. Our attempt id is the
 * Checkout Session's client_reference_id and sits in the metadata of the session, its
 * PaymentIntent and every refund Till makes, which is how every event finds its attempt. An event
 * is a signal only: the object it names is read back from Stripe before any money state changes.
 */
import type { Dispatcher } from 'undici'
import type { NotificationResult, PaymentProvider, PaymentRef, ProviderConfig, RefundRef } from '../types.js'
import { ProviderError } from '../types.js'
import { accept, ignore, isHttpUrl, refuse } from '../json-acks.js'
import { checkAbout } from '../answers.js'
import { InvalidField } from '../../domain/errors.js'
import { EVENT, META, PATHS, SIGNATURE_HEADER, WEBHOOK_EVENTS } from './constants.js'
import { credentialsOf, StripeClient } from './http.js'
import { secretsOf, verifyWebhook } from './sign.js'
import { disputeEvent } from './disputes.js'
import { stripeStatements } from './statements.js'
import {
  checkoutRequest, idOf, paymentFact, paymentState, refundFact, refundRequest, refundState,
  type CheckoutSession, type Dispute, type List, type Refund, type StripeEvent, type WebhookEndpoint,
} from './wire.js'

export interface StripeProviderOptions {
  timeoutMs?: number
  dispatcher?: Dispatcher
  /** Our clock: signature tolerance, expires_at and a statement's day are judged by it. */
  now?: () => Date
  /** Balance transactions per page when reading a statement (Stripe's largest, 100, unless a test wants several pages). */
  statementPageSize?: number
}

const checkoutIdOf = (ref: PaymentRef) =>
  typeof ref.data.checkoutSessionId === 'string' ? ref.data.checkoutSessionId : ref.providerRef?.startsWith('cs_') ? ref.providerRef : null
const enc = encodeURIComponent

export function createStripeProvider(opts: StripeProviderOptions = {}): PaymentProvider & { client: StripeClient } {
  const client = new StripeClient({ timeoutMs: opts.timeoutMs ?? 10_000, dispatcher: opts.dispatcher })
  const now = opts.now ?? (() => new Date())

  /** The Checkout Session behind an attempt, with its PaymentIntent, read back from Stripe. */
  async function sessionOf(cfg: ProviderConfig, id: string, attemptId: string): Promise<CheckoutSession> {
    let s: CheckoutSession
    try {
      s = await client.call<CheckoutSession>(cfg, 'GET', `${PATHS.checkoutSessions}/${enc(id)}?expand[]=payment_intent`)
    } catch (e) {
      // Stripe made this session and keeps it: a key that cannot read it is another account's or mode's
      // (the key was changed). Unknown, never closed: a payment on it must be recorded once the key is right.
      if (e instanceof ProviderError && e.code === 'not_found') throw new ProviderError('unknown', 'not_found', `Checkout Session ${id} is unknown to this secret key: is it another account's or mode's?`)
      throw e
    }
    // A session made for another attempt must never settle this one.
    if (s.client_reference_id !== attemptId) throw new ProviderError('unknown', 'reference_mismatch', `Checkout Session ${id} belongs to ${s.client_reference_id ?? 'nobody'}, not ${attemptId}`)
    return s
  }

  /** Till's endpoints at `url` other than `keep`: every page listed first, then each deleted. */
  async function deleteOtherEndpoints(cfg: ProviderConfig, url: string, keep: string) {
    const others: string[] = []
    let after: string | undefined
    for (;;) {
      const page = await client.call<List<WebhookEndpoint>>(cfg, 'GET', `${PATHS.webhookEndpoints}?limit=100${after ? `&starting_after=${enc(after)}` : ''}`)
      for (const e of page.data ?? []) if (e.id && e.url === url && e.id !== keep) others.push(e.id)
      after = page.data?.at(-1)?.id
      if (!page.has_more || !after) break
    }
    for (const id of others) await client.call(cfg, 'DELETE', `${PATHS.webhookEndpoints}/${enc(id)}`)
  }

  /** The PaymentIntent a refund names: kept with the payment, or read from the Checkout Session. */
  async function paymentIntentOf(cfg: ProviderConfig, ref: PaymentRef): Promise<string> {
    if (typeof ref.data.paymentIntentId === 'string') return ref.data.paymentIntentId
    const id = checkoutIdOf(ref)
    const pi = id ? idOf((await sessionOf(cfg, id, ref.attemptId)).payment_intent) : undefined
    if (!pi) throw new ProviderError('rejected', 'no_payment_intent', `Stripe shows no payment for attempt ${ref.attemptId}`, false)
    return pi
  }

  /** A session event: the session read back from Stripe decides; made by someone else, it is ignored. */
  async function sessionEvent(cfg: ProviderConfig, type: string, obj: CheckoutSession): Promise<NotificationResult> {
    const attemptId = obj.client_reference_id
    if (!attemptId || !obj.id) return ignore(`${type} for a Checkout Session Till did not make`)
    let s: CheckoutSession
    try {
      s = await sessionOf(cfg, obj.id, attemptId)
    } catch (e) {
      // Stripe's own session names another attempt: the event's object is not to be believed, and asking again changes nothing.
      if (e instanceof ProviderError && e.code === 'reference_mismatch') return ignore(e.message)
      // Unreadable (Stripe down, or a key that cannot see it): Stripe sends the event again.
      return refuse(503, `Checkout Session ${obj.id} could not be read back: ${(e as Error).message}`)
    }
    const fact = paymentFact(s)
    if (fact.status === 'pending') return ignore(`${type}: Checkout Session ${s.id} is ${s.status}/${s.payment_status}`)
    return accept([fact])
  }

  async function refundEvent(cfg: ProviderConfig, type: string, obj: Refund): Promise<NotificationResult> {
    if (!obj.id) return refuse(400, `${type} without a refund id`)
    let r: Refund
    try {
      r = await client.call<Refund>(cfg, 'GET', `${PATHS.refunds}/${enc(obj.id)}?expand[]=payment_intent`)
    } catch (e) {
      return refuse(503, `refund ${obj.id} could not be read back: ${(e as Error).message}`)
    }
    const fact = refundFact(r)
    if (!fact.attemptId) return ignore(`refund ${r.id} of a payment Till did not take`)
    return accept([fact])
  }

  return {
    id: 'stripe',
    client,

    async createAttempt(cfg, a) {
      if (a.channel !== null && a.channel !== 'redirect') throw new ProviderError('rejected', 'unsupported_channel', `Stripe has no channel ${a.channel}`, false)
      // One Checkout Session per attempt, even when our request is repeated after a lost answer.
      const s = await client.call<CheckoutSession>(cfg, 'POST', PATHS.checkoutSessions, { body: checkoutRequest(a, now()), idempotencyKey: `till-checkout-${a.attemptId}` })
      if (!s.id || !isHttpUrl(s.url)) throw new ProviderError('unknown', 'malformed_response', 'Stripe answered the Checkout Session without its id or url')
      // Redirect to the URL Stripe returned, never one we build.
      return { providerRef: s.id, action: { kind: 'redirect', url: s.url }, data: { checkoutSessionId: s.id } }
    },

    /**
     * The signature over the raw bytes first (no secret refuses everything: fail closed), then the
     * event. A refusal is a 4xx/5xx so Stripe retries once fixed; everything verified and handled is
     * acknowledged with 200, duplicates included (applyFacts makes them no-ops).
     */
    async parseNotification(cfg, raw) {
      const check = verifyWebhook(secretsOf(credentialsOf(cfg).webhookSecret), raw.body, raw.headers[SIGNATURE_HEADER], Math.floor(now().getTime() / 1000))
      if (!check.ok) return refuse(400, `signature refused: ${check.reason}`)
      let event: StripeEvent
      try {
        event = JSON.parse(raw.body.toString('utf8')) as StripeEvent
      } catch {
        return refuse(400, 'body is not JSON')
      }
      const obj = event?.data?.object
      if (!obj || typeof obj !== 'object') return refuse(400, 'event without data.object')
      switch (event.type) {
        case EVENT.checkoutCompleted:
        case EVENT.asyncSucceeded:
        case EVENT.asyncFailed:
        case EVENT.checkoutExpired:
          return sessionEvent(cfg, event.type, obj as CheckoutSession)
        case EVENT.refundCreated:
        case EVENT.refundUpdated:
        case EVENT.refundFailed:
          return refundEvent(cfg, event.type, obj as Refund)
        case EVENT.chargeRefunded:
          return ignore('charge.refunded: each refund arrives as refund.created/updated')
        case EVENT.disputeCreated:
        case EVENT.disputeClosed:
          return disputeEvent(client, cfg, event.type, obj as Dispute)
        default:
          return ignore(`event ${event.type ?? '(none)'}`)
      }
    },

    async queryPayment(cfg, ref) {
      const id = checkoutIdOf(ref)
      // Never made: nothing can be paid there yet.
      if (!id) return { status: 'pending' }
      return paymentState(await sessionOf(cfg, id, ref.attemptId))
    },

    /**
     * Expires the Checkout Session (only an open one can be). Whatever Stripe answers, the session
     * read back decides: paid comes back as alreadyPaid, anything else is closed on our side, and a
     * payment that still lands (a delayed method) arrives as an event and is recorded.
     */
    async closePayment(cfg, ref) {
      const id = checkoutIdOf(ref)
      if (!id) return { closed: true }
      try {
        await client.call<CheckoutSession>(cfg, 'POST', `${PATHS.checkoutSessions}/${enc(id)}/expire`)
      } catch (e) {
        if (!(e instanceof ProviderError && e.outcome === 'rejected')) throw e
      }
      const s = await sessionOf(cfg, id, ref.attemptId)
      if (paymentState(s).status === 'succeeded') return { alreadyPaid: { ...paymentFact(s), attemptId: ref.attemptId } }
      return { closed: true }
    },

    async refund(cfg, r) {
      if (r.amount > r.totalAmount) throw new ProviderError('rejected', 'amount_exceeds_payment', 'refund larger than the payment', false)
      const pi = await paymentIntentOf(cfg, r.payment)
      // Keyed by Till's refund id: a resend after an unknown outcome is the same refund, never a second one.
      const res = await client.call<Refund>(cfg, 'POST', PATHS.refunds, { body: refundRequest(r, pi), idempotencyKey: `till-refund-${r.refundId}` })
      // The answer must be this refund (the metadata we sent), not another call's replayed.
      checkAbout('stripe', 'refund', { [META.refund]: r.refundId }, res.metadata, [META.refund])
      return refundState(res)
    },

    /**
     * By Stripe's id when our call's answer came back; otherwise among the PaymentIntent's refunds,
     * by the metadata we sent. Absent there, Stripe never took it: `not_found`, and the resend uses
     * the same Idempotency-Key.
     */
    async queryRefund(cfg, ref: RefundRef) {
      if (ref.providerRefundRef) {
        try {
          const answer = await client.call<Refund>(cfg, 'GET', `${PATHS.refunds}/${enc(ref.providerRefundRef)}`)
          checkAbout('stripe', 'refund query', { id: ref.providerRefundRef }, answer, ['id'])
          return refundState(answer)
        } catch (e) {
          // A refund Stripe named to us and now cannot find (a key of another account): never a reason to send it again.
          if (e instanceof ProviderError && e.code === 'not_found') throw new ProviderError('unknown', 'refund_unreadable', e.message)
          throw e
        }
      }
      const pi = await paymentIntentOf(cfg, ref.payment)
      let after: string | undefined
      for (;;) {
        const page = await client.call<List<Refund>>(cfg, 'GET', `${PATHS.refunds}?payment_intent=${enc(pi)}&limit=100${after ? `&starting_after=${enc(after)}` : ''}`)
        const mine = page.data?.find((x) => x.metadata?.[META.refund] === ref.refundId)
        if (mine) return refundState(mine)
        after = page.data?.at(-1)?.id
        if (!page.has_more || !after) break
      }
      throw new ProviderError('rejected', 'not_found', `Stripe has no refund ${ref.refundId} on ${pi}`, false)
    },

    /**
     * Without a signing secret, Till adds its own endpoint (`POST /v1/webhook_endpoints`, the events
     * it reads) and keeps the secret Stripe answers, which Stripe shows only then. The key must be
     * allowed to (Webhook Endpoints: Write); a refusal saves nothing and says to add it by hand.
     * Saved again within 24 hours, the same Idempotency-Key answers the same endpoint; later, Stripe
     * has forgotten the key and makes another, so Till's earlier endpoints at this URL (whose secrets
     * it no longer keeps: their deliveries would only be refused) are deleted.
     */
    async completeCredentials({ credentials, settings }, notifyUrl) {
      if (credentials.webhookSecret !== undefined) return credentials
      const cfg: ProviderConfig = { id: '', label: '', credentials, settings }
      let endpoint: WebhookEndpoint
      try {
        endpoint = await client.call<WebhookEndpoint>(cfg, 'POST', PATHS.webhookEndpoints, {
          body: { url: notifyUrl, enabled_events: WEBHOOK_EVENTS, description: 'Till' },
          idempotencyKey: `till-endpoint-${notifyUrl.slice(notifyUrl.lastIndexOf('/') + 1)}`,
        })
      } catch (e) {
        throw new InvalidField('credentials.webhookSecret', `Stripe did not add Till's webhook endpoint (${(e as Error).message}): add ${notifyUrl} in the Dashboard and give its signing secret`)
      }
      if (!endpoint.secret) throw new InvalidField('credentials.webhookSecret', "Stripe answered the webhook endpoint without its secret: give the endpoint's signing secret")
      // The new endpoint works without this: an earlier one left behind (Stripe refused to list or
      // delete) only has its deliveries refused, as before the save.
      if (endpoint.id) await deleteOtherEndpoints(cfg, notifyUrl, endpoint.id).catch(() => {})
      return { ...credentials, webhookSecret: endpoint.secret }
    },

    statements: stripeStatements(client, now, opts.statementPageSize),
  }
}
