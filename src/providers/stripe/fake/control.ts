/**
 * Test knobs under /__fake/stripe/… (docs/providers.md#testing-offline-till-fake-stripe), a prefix the
 * real Stripe never has, so adapter code cannot come to depend on them; the ones every fake has are
 * in fake-kit/knobs.ts. JSON in, JSON out. Where a knob needs an account and the fake has only one,
 * it may be left out.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { defaultNotifyKnob } from '../../fake-kit/delivery.js'
import { readForcedError } from '../../fake-kit/forced-errors.js'
import { bad, bodyOf as body, registerSharedKnobs, type Body } from '../../fake-kit/knobs.js'
import { closeDispute, expireSession, finishChallenge, openDispute, payCard, payLater } from './actions.js'
import type { Notifier } from './notify.js'
import { DEFAULT_REFUND_OUTCOME, stripeId, type FakeStore } from './store.js'
import { sessionView } from './views.js'

const ROUTES = ['createCheckoutSession', 'getCheckoutSession', 'expireCheckoutSession', 'createRefund', 'getRefund', 'listRefunds', 'listBalanceTransactions', 'createWebhookEndpoint', '*']
const OUTCOMES = ['succeeded', 'failed', 'canceled']

export interface AccountInput {
  secretKey?: string
}

export const newSecret = () => `whsec_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`

export function registerControl(app: FastifyInstance, store: FakeStore, notifier: Notifier, baseUrl: () => string, addAccount: (a: AccountInput) => unknown) {
  const P = '/__fake/stripe'
  registerSharedKnobs(app, P, store, notifier, { routes: ROUTES, read: (b) => readForcedError(b, 'An unknown error occurred') })
  const account = (b: Body) => (typeof b.secretKey === 'string' ? store.accounts.get(b.secretKey) : store.soleAccount())
  const sessionOf = (b: Body) => (typeof b.session_id === 'string' ? store.sessions.get(b.session_id) : undefined)
  const chargeOf = (b: Body) => {
    const pi = typeof b.payment_intent === 'string' ? store.intents.get(b.payment_intent) : undefined
    return pi?.chargeId ? store.charges.get(pi.chargeId) : undefined
  }

  app.post(`${P}/accounts`, async (req) => addAccount(body(req.body)))

  /** Developers → Webhooks → Add endpoint in the Dashboard; answers the endpoint's signing secret. */
  app.post(`${P}/webhooks`, async (req, reply) => {
    const b = body(req.body)
    const a = account(b)
    if (!a) return bad(reply, 404, 'no such account (give secretKey)')
    if (typeof b.url !== 'string' || !URL.canParse(b.url)) return bad(reply, 400, 'url must be an absolute URL')
    const endpoint = { id: stripeId('we'), url: b.url, secret: typeof b.secret === 'string' ? b.secret : newSecret(), events: Array.isArray(b.events) ? b.events : ['*'] }
    a.endpoints.push(endpoint)
    return { ok: true, id: endpoint.id, secret: endpoint.secret }
  })

  /** Roll an endpoint's secret: the new one answered, the old one still signing beside it (two v1). */
  app.post(`${P}/roll-secret`, async (req, reply) => {
    const b = body(req.body)
    const endpoint = [...store.accounts.values()].flatMap((a) => a.endpoints).find((e) => e.id === b.endpoint_id)
    if (!endpoint) return bad(reply, 404, 'no such endpoint')
    notifier.rolling.set(endpoint.id, endpoint.secret)
    endpoint.secret = newSecret()
    return { ok: true, secret: endpoint.secret, previous: notifier.rolling.get(endpoint.id) }
  })

  /** The buyer pays without a browser (the 3-D Secure card passes its challenge); answers where the browser would go. */
  app.post(`${P}/complete`, async (req, reply) => {
    const b = body(req.body)
    const s = sessionOf(b)
    if (!s) return bad(reply, 404, 'no such session')
    let r = await payCard(store, notifier, baseUrl(), s, b.card)
    if ('challenge' in r) r = await finishChallenge(store, notifier, baseUrl(), s, true)
    return 'ok' in r && r.ok ? { ok: true, redirect: r.redirect, session: sessionView(store, s, baseUrl(), true) } : bad(reply, 402, 'reason' in r ? r.reason : 'not paid')
  })

  /** The buyer pays by a delayed method: completed unpaid now, `outcome` after `delayMs` (a tick runs it). */
  app.post(`${P}/pay-later`, async (req, reply) => {
    const b = body(req.body)
    const s = sessionOf(b)
    if (!s) return bad(reply, 404, 'no such session')
    if (b.outcome !== 'succeeded' && b.outcome !== 'failed') return bad(reply, 400, 'outcome must be succeeded or failed')
    const r = await payLater(store, notifier, baseUrl(), s, b.outcome, Math.max(0, Number(b.delayMs ?? 0) || 0))
    return 'ok' in r && r.ok ? { ok: true, redirect: r.redirect, session: sessionView(store, s, baseUrl(), true) } : bad(reply, 409, 'reason' in r ? r.reason : 'not open')
  })

  app.post(`${P}/expire`, async (req, reply) => {
    const s = sessionOf(body(req.body))
    if (!s) return bad(reply, 404, 'no such session')
    return (await expireSession(store, notifier, baseUrl(), s)) ? { ok: true } : bad(reply, 409, `session is ${s.status}`)
  })

  app.post(`${P}/refund-outcome`, async (req, reply) => {
    const b = body(req.body)
    if (!OUTCOMES.includes(b.status)) return bad(reply, 400, `status must be one of ${OUTCOMES.join(', ')}`)
    store.knobs.refundOutcome = { status: b.status, delayMs: Number(b.delayMs ?? 0), persist: b.persist === true }
    return { ok: true, refundOutcome: store.knobs.refundOutcome }
  })

  app.post(`${P}/dispute`, async (req, reply) => {
    const c = chargeOf(body(req.body))
    if (!c) return bad(reply, 404, 'no such payment_intent with a charge')
    return { ok: true, dispute: await openDispute(store, notifier, c) }
  })

  app.post(`${P}/dispute-close`, async (req, reply) => {
    const b = body(req.body)
    const c = chargeOf(b)
    if (!c || typeof b.dispute !== 'string' || !['won', 'lost'].includes(b.status)) return bad(reply, 400, 'give payment_intent, dispute and status won|lost')
    if (!(await closeDispute(store, notifier, c, b.dispute, b.status))) return bad(reply, 409, `no open dispute ${b.dispute} on that charge`)
    return { ok: true }
  })

  app.post(`${P}/bad-signature`, async () => {
    store.knobs.badSignatureNext = true
    return { ok: true }
  })

  app.post(`${P}/resend`, async (req, reply) => ((await notifier.resend(String(body(req.body).event_id ?? ''))) ? { ok: true } : bad(reply, 404, 'no such event')))

  app.post(`${P}/settings`, async (req) => {
    const b = body(req.body)
    if (typeof b.webhookBeforeRedirect === 'boolean') store.knobs.webhookBeforeRedirect = b.webhookBeforeRedirect
    return { ok: true, webhookBeforeRedirect: store.knobs.webhookBeforeRedirect }
  })

  app.post(`${P}/reset-knobs`, async () => {
    Object.assign(store.knobs, { notify: defaultNotifyKnob(), badSignatureNext: false, refundOutcome: { ...DEFAULT_REFUND_OUTCOME }, errors: [], webhookBeforeRedirect: true })
    return { ok: true }
  })

  app.get(`${P}/events`, async () => ({ events: [...store.events.values()].map((e) => ({ id: e.id, type: e.type, created: e.created, body: JSON.parse(e.body) })) }))
  app.get<{ Params: { id: string } }>(`${P}/sessions/:id`, async (req, reply) => {
    const s = store.sessions.get(req.params.id)
    return s ? { ...sessionView(store, s, baseUrl(), true), declines: s.declines } : bad(reply, 404, 'no such session')
  })
}
