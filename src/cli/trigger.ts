/**
 * `till trigger <event-type>`, like the Stripe CLI's `trigger`: a test-mode session goes through the states that
 * emit that event, through the public API and its test helpers, so a merchant's webhook handler
 * gets a real event without anyone clicking through a checkout.
 */
import type { RefundBehavior, Till } from '@till-payments/node'
import { SESSION_EVENT_TYPES, type SessionEventType } from '../domain/events.js'
import { CURRENCY_CODES } from '../domain/money.js'
import { connectionHelp, API_OPTIONS, JSON_OPTION, integer, oneOf, usageError, type Command, type Group } from './args.js'
import { merchantApi } from './http.js'
import { print, printJson } from './output.js'

/** What each event takes: the session's end, or a payment (with the mock's refund behaviour) and a refund, or its dispute. */
const STEPS: Record<SessionEventType, { end: 'pay' | 'fail' | 'cancel' | 'expire'; refund?: RefundBehavior; dispute?: 'open' | 'won'; says: string }> = {
  'payment.succeeded': { end: 'pay', says: 'creates a session and pays it' },
  'payment.failed': { end: 'fail', says: 'creates a session and fails its payment' },
  'session.canceled': { end: 'cancel', says: 'creates a session and cancels it as the customer would' },
  'session.expired': { end: 'expire', says: 'creates a session and expires it' },
  'refund.succeeded': { end: 'pay', refund: 'succeed', says: 'pays a session, then refunds it in full' },
  'refund.pending': { end: 'pay', refund: 'pending', says: 'pays a session whose refunds stay pending, then refunds it' },
  'refund.failed': { end: 'pay', refund: 'fail', says: 'pays a session whose refunds fail, then refunds it' },
  'payment.disputed': { end: 'pay', dispute: 'open', says: 'pays a session, then its customer disputes the payment' },
  'payment.dispute_closed': { end: 'pay', dispute: 'won', says: 'pays a session, then a dispute of it opens and is won' },
}

type SessionInput = Parameters<Till['createCheckout']>[0] & { metadata: Record<string, string> }

/**
 * The session a trigger makes, changed as `stripe trigger` takes it: `--override amount=2500`
 * (amount, currency, description, metadata.KEY) and `--add metadata.KEY=VALUE`.
 */
export function triggerSession(type: string, overrides: readonly string[] = [], adds: readonly string[] = []): SessionInput {
  const input: SessionInput = { amount: 1000, currency: 'CNY', description: `till trigger ${type}`, metadata: { till_trigger: type } }
  const pairs = (given: readonly string[], flag: string) => given.map((pair) => {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw usageError(`${flag} takes KEY=VALUE, not ${JSON.stringify(pair)}`)
    return [pair.slice(0, eq), pair.slice(eq + 1)] as const
  })
  for (const [key, value] of pairs(overrides, '--override')) {
    if (key === 'amount') input.amount = integer(value, '--override amount', 1, 99_999_999)
    else if (key === 'currency') input.currency = oneOf(value, '--override currency', CURRENCY_CODES)
    else if (key === 'description') input.description = value
    else if (key.startsWith('metadata.') && key.length > 9) input.metadata[key.slice(9)] = value
    else throw usageError(`--override takes amount, currency, description or metadata.KEY, not ${JSON.stringify(key)}`)
  }
  for (const [key, value] of pairs(adds, '--add')) {
    if (!key.startsWith('metadata.') || key.length <= 9) throw usageError(`--add takes metadata.KEY=VALUE, not ${JSON.stringify(key)}`)
    input.metadata[key.slice(9)] = value
  }
  return input
}

async function trigger(till: Till, type: SessionEventType, input: SessionInput) {
  const step = STEPS[type]
  const created = await till.createCheckout(input)
  const h = till.testHelpers.sessions
  const session = step.end === 'pay'
    ? await h.pay(created.id, { ...(step.refund ? { refundBehavior: step.refund } : {}), ...(step.dispute ? { dispute: step.dispute } : {}) })
    : await h[step.end](created.id)
  const recordId = (session as { record?: { id: string } }).record?.id
  const refund = step.refund && recordId ? await till.refund({ recordId, reason: `till trigger ${type}` }) : null
  // The events the steps emitted: those about this session, among the ones made since it was.
  const events: { id: string; type: string }[] = []
  for await (const e of till.events.list({ limit: 100 })) {
    if (e.createdAt < created.createdAt) break
    if ((e.data as { sessionId?: string }).sessionId === created.id) events.unshift(e)
  }
  return { session: await till.getSession(created.id), refund: refund?.refund ?? null, events: events.map((e) => ({ id: e.id, type: e.type })) }
}

const command = (type: SessionEventType): Command => ({
  summary: STEPS[type].says,
  help: `usage: till trigger ${type} [--override KEY=VALUE]… [--add metadata.KEY=VALUE]… [--json]

${STEPS[type].says[0].toUpperCase()}${STEPS[type].says.slice(1)} (¥10.00 CNY, test mode), through the API
and its test helpers, so that Till emits ${type} to your webhook endpoints (or to
\`till webhooks listen\`). Needs a test key.

  --override KEY=VALUE the session's amount (minor units), currency, description or metadata.KEY
  --add metadata.KEY=VALUE  a metadata entry beside till_trigger (an order id your handler looks up)
  --json               print {"session","refund","events"} as JSON
${connectionHelp('api')}

examples:
  TILL_API_KEY=sk_test_… till trigger ${type}
  TILL_API_KEY=sk_test_… till trigger ${type} --override amount=2500 --override currency=USD --add metadata.order_id=42`,
  options: { ...API_OPTIONS, ...JSON_OPTION, override: { type: 'string', multiple: true }, add: { type: 'string', multiple: true } },
  async run({ values }) {
    const input = triggerSession(type, values.override as unknown as string[] | undefined, values.add as unknown as string[] | undefined)
    const api = merchantApi(values)
    // Nothing is made in live mode: the test helpers would refuse, after a live session was created.
    if (api.mode !== 'test') throw usageError('till trigger needs a test key (sk_test_…): it drives a test-mode session through test helpers')
    const r = await api.call((till) => trigger(till, type, input))
    if (values.json) return printJson(r)
    print(`Triggered ${type}: session ${r.session.id} is ${r.session.status}${r.refund ? `, refund ${r.refund.id} is ${r.refund.status}` : ''}.`)
    for (const e of r.events) print(`  ${e.id}  ${e.type}`)
  },
})

export const triggers: Group = {
  name: 'trigger',
  summary: 'make a test-mode session emit an event type, for your webhook handler',
  // reconciliation.mismatches_found comes from a live day's reconciliation: there is nothing to drive in test mode.
  commands: Object.fromEntries(SESSION_EVENT_TYPES.map((t) => [t, command(t)])),
}
