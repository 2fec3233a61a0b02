/**
 * Test knobs under /__fake/creem/… (docs/providers.md#testing-offline-till-fake-creem), a prefix the real Creem never has, so
 * adapter code cannot come to depend on them; the ones every fake has are in fake-kit/knobs.ts.
 * JSON in, JSON out. Where a knob needs an account and the fake has only one, it may be left out.
 */
import type { FastifyInstance } from 'fastify'
import { defaultNotifyKnob } from '../../fake-kit/delivery.js'
import { readForcedError } from '../../fake-kit/forced-errors.js'
import { bad, bodyOf as body, registerSharedKnobs, type Body } from '../../fake-kit/knobs.js'
import { registerStatementKnobs } from '../../fake-kit/statement-knobs.js'
import { dashboardRefund, expireCheckout, openDispute, payCheckout } from './actions.js'
import type { Notifier } from './notify.js'
import { creemId, DEFAULT_REFUND_OUTCOME, type FakeStore } from './store.js'
import { checkoutView, refundView, transactionView } from './views.js'

const ROUTES = ['createProduct', 'getProduct', 'createCheckout', 'getCheckout', 'getTransaction', 'searchTransactions', 'refund', '*']
const OUTCOMES = ['succeeded', 'failed', 'canceled']

export interface AccountInput {
  apiKey?: string
  webhookSecret?: string
  webhookUrl?: string
}

export function registerControl(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string, addAccount: (a: AccountInput) => unknown) {
  const P = '/__fake/creem'
  registerSharedKnobs(app, P, store, notifier, { routes: ROUTES, read: (b) => readForcedError(b, 'Internal server error') })
  // Creem sends no hash: `corrupt` makes a search page lose an item while its count stays.
  registerStatementKnobs(app, P, store.statementKnobs, { refundStatuses: ['paid', 'partialRefund', 'refunded'], newProviderRef: () => creemId('tran'), newRef: () => creemId('ord') })
  const checkoutOf = (b: Body) => (typeof b.checkout_id === 'string' ? store.checkouts.get(b.checkout_id) : undefined)
  const transactionOf = (b: Body) => (typeof b.transaction_id === 'string' ? store.transactions.get(b.transaction_id) : undefined)

  app.post(`${P}/accounts`, async (req) => addAccount(body(req.body)))

  /** Developers → Webhooks in the dashboard: where this account's events go. */
  app.post(`${P}/webhooks`, async (req, reply) => {
    const b = body(req.body)
    const account = typeof b.apiKey === 'string' ? store.account(b.apiKey) : store.soleAccount()
    if (!account) return bad(reply, 404, 'no such account (give apiKey)')
    if (typeof b.url !== 'string' || !URL.canParse(b.url)) return bad(reply, 400, 'url must be an absolute URL')
    if (b.replace === true) account.webhookUrls.length = 0
    if (!account.webhookUrls.includes(b.url)) account.webhookUrls.push(b.url)
    return { ok: true, webhookUrls: account.webhookUrls }
  })

  /** The customer pays without a browser; answers where the browser would have been sent. */
  app.post(`${P}/complete`, async (req, reply) => {
    const b = body(req.body)
    const c = checkoutOf(b)
    if (!c) return bad(reply, 404, 'no such checkout')
    const r = await payCheckout(store, notifier, baseUrl(), c, { card: b.card, email: b.email, name: b.name, taxRate: b.taxRate })
    return r.ok ? { ok: true, redirect: r.redirect, checkout: checkoutView(store, c, baseUrl()) } : bad(reply, 402, r.reason)
  })

  /** A declined card: the checkout stays payable and nothing is sent (no event exists for it). */
  app.post(`${P}/fail`, async (req, reply) => {
    const b = body(req.body)
    const c = checkoutOf(b)
    if (!c) return bad(reply, 404, 'no such checkout')
    const r = await payCheckout(store, notifier, baseUrl(), c, { card: b.card ?? '4000000000000002' })
    return r.ok ? bad(reply, 400, 'that card pays') : { ok: true, reason: r.reason, checkout: checkoutView(store, c, baseUrl()) }
  })

  app.post(`${P}/expire`, async (req, reply) => {
    const c = checkoutOf(body(req.body))
    if (!c) return bad(reply, 404, 'no such checkout')
    return expireCheckout(c) ? { ok: true, checkout: checkoutView(store, c, baseUrl()) } : bad(reply, 409, `checkout is ${c.status}`)
  })

  app.post(`${P}/refund-outcome`, async (req, reply) => {
    const b = body(req.body)
    if (!OUTCOMES.includes(b.status)) return bad(reply, 400, `status must be one of ${OUTCOMES.join(', ')}`)
    store.knobs.refundOutcome = { status: b.status, delayMs: Number(b.delayMs ?? 0), sync: b.sync === true, persist: b.persist === true }
    return { ok: true, refundOutcome: store.knobs.refundOutcome }
  })

  app.post(`${P}/dashboard-refund`, async (req, reply) => {
    const b = body(req.body)
    const t = transactionOf(b)
    if (!t) return bad(reply, 404, 'no such transaction')
    const r = await dashboardRefund(store, notifier, t, b.amount === undefined ? undefined : Number(b.amount), String(b.reason ?? 'requested_by_customer'))
    return typeof r === 'string' ? bad(reply, 400, r) : { ok: true, refund: refundView(store, r) }
  })

  app.post(`${P}/dispute`, async (req, reply) => {
    const t = transactionOf(body(req.body))
    if (!t) return bad(reply, 404, 'no such transaction')
    return { ok: true, dispute: await openDispute(store, notifier, t) }
  })

  /** The next delivery is signed with the wrong secret; its retries are signed properly. */
  app.post(`${P}/bad-signature`, async () => {
    store.knobs.badSignatureNext = true
    return { ok: true }
  })

  app.post(`${P}/resend`, async (req, reply) => {
    const b = body(req.body)
    const ok = await notifier.resend(String(b.event_id ?? ''), typeof b.url === 'string' ? b.url : undefined)
    return ok ? { ok: true } : bad(reply, 404, 'no such event')
  })

  app.post(`${P}/settings`, async (req, reply) => {
    const b = body(req.body)
    if (b.authFailureStatus !== undefined && b.authFailureStatus !== 401 && b.authFailureStatus !== 403) return bad(reply, 400, 'authFailureStatus must be 401 or 403')
    if (b.authFailureStatus !== undefined) store.knobs.authFailureStatus = b.authFailureStatus
    if (typeof b.rejectUnknownFields === 'boolean') store.knobs.rejectUnknownFields = b.rejectUnknownFields
    if (typeof b.webhookBeforeRedirect === 'boolean') store.knobs.webhookBeforeRedirect = b.webhookBeforeRedirect
    if (typeof b.taxRate === 'number' && b.taxRate >= 0 && b.taxRate < 1) store.knobs.taxRate = b.taxRate
    const { authFailureStatus, rejectUnknownFields, webhookBeforeRedirect, taxRate } = store.knobs
    return { ok: true, authFailureStatus, rejectUnknownFields, webhookBeforeRedirect, taxRate }
  })

  app.post(`${P}/reset-knobs`, async () => {
    Object.assign(store.knobs, { notify: defaultNotifyKnob(), badSignatureNext: false, refundOutcome: { ...DEFAULT_REFUND_OUTCOME }, errors: [] })
    return { ok: true }
  })

  app.get(`${P}/events`, async () => ({ events: [...store.events.values()].map((e) => ({ id: e.id, eventType: e.eventType, createdAtMs: e.createdAtMs, body: JSON.parse(e.body) })) }))
  app.get<{ Params: { id: string } }>(`${P}/checkouts/:id`, async (req, reply) => {
    const c = store.checkouts.get(req.params.id)
    return c ? { ...checkoutView(store, c, baseUrl(), true), failed_tries: c.failedTries } : bad(reply, 404, 'no such checkout')
  })
  app.get<{ Params: { id: string } }>(`${P}/transactions/:id`, async (req, reply) => {
    const t = store.transactions.get(req.params.id)
    return t ? { ...transactionView(t), refunds: store.refundsOf(t.id).map((r) => refundView(store, r)) } : bad(reply, 404, 'no such transaction')
  })
  app.get(`${P}/products`, async () => ({ products: [...store.products.values()].map((p) => ({ id: p.id, price: p.price, currency: p.currency, name: p.name, taxMode: p.taxMode })) }))
}
