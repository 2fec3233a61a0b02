/**
 * The fake's /v1 API, what Till uses of Stripe's: Checkout Sessions (create, read, expire), refunds
 * (create, read, list by PaymentIntent), disputes (read), balance transactions by created range, webhook
 * endpoints (create, list, delete). Each request is scoped to the account its key names; a POST with an
 * Idempotency-Key answers the same again for the same parameters, and refuses other parameters under a
 * used key, as Stripe does, for 24 hours of the fake's clock (Stripe removes keys once 24 hours old).
 * Forced errors (the `errors` knob) answer before or after acting, or late.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { withForcedError } from '../../fake-kit/forced-errors.js'
import { PATHS } from '../constants.js'
import { createRefund, expireSession, refundable } from './actions.js'
import { authenticate, expands, invalid, missing, parseForm, readSession, StripeError } from './checks.js'
import type { Notifier } from './notify.js'
import { stripeId, type Account, type Endpoint, type FakeStore } from './store.js'
import { balanceView, disputeView, refundView, sessionView } from './views.js'

const IDEMPOTENCY_KEPT_MS = 24 * 3600_000

interface Ctx {
  account: Account
  req: FastifyRequest
  body: Record<string, any>
}

export function registerApi(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))

  const handle = (route: string, fn: (c: Ctx) => unknown | Promise<unknown>) => async (req: FastifyRequest, reply: FastifyReply) => {
    let status = 200
    let out: unknown
    const raw = typeof req.body === 'string' ? req.body : ''
    const key = req.headers['idempotency-key']
    const idemKey = typeof key === 'string' && req.method === 'POST' ? key : undefined
    const fingerprint = createHash('sha256').update(`${req.method} ${req.url}\n${raw}`).digest('hex')
    try {
      const account = authenticate(store, req.headers)
      const kept = idemKey ? store.idempotency.get(`${account.secretKey} ${idemKey}`) : undefined
      const remembered = kept && store.clock().getTime() - kept.atMs < IDEMPOTENCY_KEPT_MS ? kept : undefined
      if (remembered && remembered.fingerprint !== fingerprint) {
        throw new StripeError(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`)
      }
      if (remembered) {
        status = remembered.status
        out = remembered.body
        reply.header('idempotent-replayed', 'true')
      } else {
        // What was done is kept under the key even when the answer is then lost (a forced error after acting).
        const act = async () => {
          const done = await fn({ account, req, body: parseForm(raw) })
          if (idemKey) store.idempotency.set(`${account.secretKey} ${idemKey}`, { fingerprint, status: 200, body: done, atMs: store.clock().getTime() })
          return done
        }
        out = await withForcedError(store.knobs.errors, route, (e) => new StripeError(e.status, e.status >= 500 ? 'api_error' : 'invalid_request_error', e.message), act)
      }
    } catch (e) {
      if (!(e instanceof StripeError)) throw e
      // Nothing kept under the key: Stripe saves no result for a request refused before it ran (validation, a conflict).
      status = e.status
      out = e.body()
    }
    store.requests.push({ method: req.method, path: req.raw.url ?? req.url, request: raw ? parseForm(raw) : undefined, idempotencyKey: idemKey, status, body: out, atMs: store.clock().getTime() })
    return reply.code(status).type('application/json').send(JSON.stringify(out))
  }

  const sessionOf = (id: string, account: Account) => {
    const s = store.owned(store.sessions, id, account.secretKey)
    if (!s) throw missing('checkout.session', id)
    return s
  }

  app.post(PATHS.checkoutSessions, handle('createCheckoutSession', ({ account, body }) => {
    const input = readSession(body, store.nowSec())
    const s = { id: stripeId('cs_test', 58), secretKey: account.secretKey, status: 'open' as const, paymentStatus: 'unpaid' as const, ...input, paymentIntentId: null, challenge: false, declines: 0, created: store.nowSec() }
    store.sessions.set(s.id, s)
    return sessionView(store, s, baseUrl())
  }))

  app.get<{ Params: { id: string } }>(`${PATHS.checkoutSessions}/:id`, handle('getCheckoutSession', ({ account, req }) => {
    const s = sessionOf((req.params as { id: string }).id, account)
    return sessionView(store, s, baseUrl(), expands(req.query, 'payment_intent'))
  }))

  app.post<{ Params: { id: string } }>(`${PATHS.checkoutSessions}/:id/expire`, handle('expireCheckoutSession', async ({ account, req }) => {
    const s = sessionOf((req.params as { id: string }).id, account)
    if (s.status !== 'open') throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".`, undefined, 'checkout_session_unexpirable')
    await expireSession(store, notifier, baseUrl(), s)
    return sessionView(store, s, baseUrl())
  }))

  app.post(PATHS.refunds, handle('createRefund', async ({ account, body }) => {
    const pi = store.owned(store.intents, body.payment_intent, account.secretKey)
    if (!pi) throw missing('payment_intent', String(body.payment_intent ?? ''))
    const charge = store.charges.get(pi.chargeId ?? '')
    if (!charge) throw invalid('This PaymentIntent does not have a successful charge to refund.', 'payment_intent')
    if (charge.disputed) throw invalid(`Charge ${charge.id} has been charged back; cannot issue a refund.`, undefined, 'charge_disputed')
    const left = refundable(store, charge)
    const amount = body.amount === undefined ? left : Number(body.amount)
    if (!Number.isInteger(amount) || amount < 1) throw invalid('Invalid positive integer', 'amount')
    if (amount > left) throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, 'amount', 'amount_too_large')
    return refundView(store, await createRefund(store, notifier, charge, amount, body.metadata ?? {}))
  }))

  app.get<{ Params: { id: string } }>(`${PATHS.refunds}/:id`, handle('getRefund', ({ account, req }) => {
    const id = (req.params as { id: string }).id
    const r = store.owned(store.refunds, id, account.secretKey)
    if (!r) throw missing('refund', id)
    return refundView(store, r, expands(req.query, 'payment_intent'))
  }))

  app.get(PATHS.refunds, handle('listRefunds', ({ account, req }) => {
    const q = req.query as Record<string, string | undefined>
    const all = [...store.refunds.values()].filter((r) => r.secretKey === account.secretKey && (!q.payment_intent || r.paymentIntentId === q.payment_intent)).reverse()
    return page(all.map((r) => refundView(store, r)), q, PATHS.refunds)
  }))

  app.get<{ Params: { id: string } }>(`${PATHS.disputes}/:id`, handle('getDispute', ({ account, req }) => {
    const id = (req.params as { id: string }).id
    const d = store.owned(store.disputes, id, account.secretKey)
    if (!d) throw missing('dispute', id)
    return disputeView(store, d, expands(req.query, 'payment_intent'))
  }))

  app.get(PATHS.balanceTransactions, handle('listBalanceTransactions', ({ account, req }) => {
    const q = req.query as Record<string, string | undefined>
    const gte = q['created[gte]'] === undefined ? -Infinity : Number(q['created[gte]'])
    const lt = q['created[lt]'] === undefined ? Infinity : Number(q['created[lt]'])
    // Newest first, as Stripe lists.
    const all = store.balance.filter((b) => b.secretKey === account.secretKey && b.created >= gte && b.created < lt).reverse()
    return page(all.map((b) => balanceView(store, b, expands(req.query, 'data.source'))), q, PATHS.balanceTransactions)
  }))

  app.post(PATHS.webhookEndpoints, handle('createWebhookEndpoint', ({ account, body }) => {
    if (typeof body.url !== 'string' || !URL.canParse(body.url)) throw invalid('Invalid URL', 'url', 'url_invalid')
    const events = Array.isArray(body.enabled_events) ? body.enabled_events.map(String) : []
    if (events.length === 0) throw invalid('Missing required param: enabled_events.', 'enabled_events', 'parameter_missing')
    const endpoint = { id: stripeId('we'), url: body.url, secret: `whsec_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`, events, created: store.nowSec() }
    account.endpoints.push(endpoint)
    return { ...endpointView(endpoint), secret: endpoint.secret }
  }))

  // Listed without their secrets, newest first, as Stripe lists them.
  app.get(PATHS.webhookEndpoints, handle('listWebhookEndpoints', ({ account, req }) =>
    page(account.endpoints.map(endpointView).reverse(), req.query as Record<string, string | undefined>, PATHS.webhookEndpoints)))

  app.delete<{ Params: { id: string } }>(`${PATHS.webhookEndpoints}/:id`, handle('deleteWebhookEndpoint', ({ account, req }) => {
    const id = (req.params as { id: string }).id
    const at = account.endpoints.findIndex((e) => e.id === id)
    if (at < 0) throw missing('webhook_endpoint', id)
    account.endpoints.splice(at, 1)
    return { id, object: 'webhook_endpoint', deleted: true }
  }))

  function endpointView(e: Endpoint) {
    return { id: e.id, object: 'webhook_endpoint', url: e.url, enabled_events: e.events, status: 'enabled', livemode: false, created: e.created, metadata: {} }
  }
}

/** A list page: limit (1–100, default 10) and starting_after, as Stripe pages. */
function page<T extends { id: string }>(all: T[], q: Record<string, string | undefined>, url: string) {
  const limit = Math.min(100, Math.max(1, Number(q.limit ?? 10) || 10))
  const start = q.starting_after ? all.findIndex((x) => x.id === q.starting_after) + 1 : 0
  if (q.starting_after && start === 0) throw missing('object', q.starting_after)
  const data = all.slice(start, start + limit)
  return { object: 'list', data, has_more: start + limit < all.length, url }
}
