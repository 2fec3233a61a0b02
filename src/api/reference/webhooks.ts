/**
 * The OpenAPI 3.1 `webhooks` of /api/v1/openapi.json: each event type Till POSTs to a merchant's
 * endpoints, with its body's schema, an example made by the very functions that build real events
 * (domain/events.ts), and the headers, the signature first (docs/integrate.md#webhooks).
 */
import { Type, type TSchema } from 'typebox'
import { PROVIDERS } from '../../providers/index.js'
import { disputeEventData, EVENT_TYPES, reconciliationEventData, refundEventData, sessionEventData, type EventType } from '../../domain/events.js'
import { DisputeEventData, Mode, PaymentSucceededData, ReconciliationEventData, RefundEventData, SessionEventData, Timestamp } from '../../domain/resources.js'
import { EXAMPLE_IDS } from './samples.js'
import {
  DELIVERY_TIMEOUT_MS, EVENT_ID_HEADER, EVENT_TYPE_HEADER, RETRY_DELAYS_MS, SIGNATURE_HEADER, USER_AGENT,
} from '../../domain/webhooks.js'

const WHAT: Record<EventType, { summary: string; description: string; data: TSchema }> = {
  'payment.succeeded': {
    summary: 'A session was paid',
    description: 'The provider confirmed the payment: the session is `paid` and its payment record exists (`recordId`). '
      + 'Also sent when the confirmation comes after the session expired, failed or was canceled: the money arrived all the same.',
    data: PaymentSucceededData,
  },
  'payment.failed': {
    summary: 'A session\'s payment failed',
    description: 'The provider reported a definitive failure: the session is `failed`. Create a new session to collect again.',
    data: SessionEventData,
  },
  'session.canceled': {
    summary: 'The customer canceled',
    description: 'The customer chose "Cancel and return" on the checkout page: the session is `canceled`.',
    data: SessionEventData,
  },
  'session.expired': {
    summary: 'A session expired unpaid',
    description: '`expiresAt` passed with no payment: the session is `expired`.',
    data: SessionEventData,
  },
  'refund.pending': {
    summary: 'A refund waits on the provider',
    description: 'The provider accepted the refund and settles it later, or its answer did not come (a timeout) and Till is finding out: a `refund.succeeded` or `refund.failed` follows. Sent once per refund. The record reads `refunding` meanwhile.',
    data: RefundEventData,
  },
  'refund.succeeded': {
    summary: 'A refund succeeded',
    description: 'The money went back: `refundedAmount` and `recordStatus` count this refund; on a full refund the session becomes `refunded`.',
    data: RefundEventData,
  },
  'refund.failed': {
    summary: 'A refund failed',
    description: 'The provider refused the refund: the record is as before it.',
    data: RefundEventData,
  },
  'reconciliation.mismatches_found': {
    summary: 'A day reconciled with mismatches',
    description: 'A provider configuration\'s day was matched against the provider\'s own statement and the run found mismatches that were not there (or were different) before. '
      + 'It names the report, not a session: see the reconciliation guide.',
    data: ReconciliationEventData,
  },
  'payment.disputed': {
    summary: 'A payment was disputed',
    description: 'The customer\'s bank disputed the payment (a chargeback) and the provider holds the disputed amount. Sent once per dispute. '
      + 'Till records it and never answers it: submit evidence before `dueBy` in the provider\'s dashboard (Stripe: Payments → Disputes), under `providerDisputeRef`. '
      + 'The record\'s status does not change; a disputed payment cannot be refunded at the provider.',
    data: DisputeEventData,
  },
  'payment.dispute_closed': {
    summary: 'A dispute was closed',
    description: 'The dispute has its outcome (`won`: the money comes back; `lost`: it stays with the customer; `warning_closed`, `prevented`: no chargeback). Sent once per dispute.',
    data: DisputeEventData,
  },
}

// Sample facts for the examples, passed through the functions real events are built with.
const SESSION = { id: EXAMPLE_IDS.sess, status: 'paid', amount: 9900, currency: 'CNY', metadata: { order_id: 'A-1042' } }
const RECORD = {
  id: EXAMPLE_IDS.rec, provider: PROVIDERS[0].id, providerRef: '4200001234202611260123456789',
  paidAt: new Date('2026-11-26T09:30:12.345Z'), amount: 9900, refundedAmount: 0, status: 'paid',
}
const DISPUTE = {
  id: 'dsp_3kL9mN2pQ5rS8tV1wX4yZ6aB', providerRef: 'dp_1QdZ8x2eZvKYlo2C0Xb5nT1a', amount: 9900, currency: 'CNY', reason: 'fraudulent',
  status: 'needs_response', dueBy: new Date('2026-12-06T23:59:59.000Z'), closedAt: null, outcome: null,
}
const REFUND = { id: EXAMPLE_IDS.ref, amount: 2500, status: 'succeeded', reason: 'damaged in transit' }

function exampleData(type: EventType) {
  switch (type) {
    case 'payment.succeeded': return sessionEventData(SESSION, RECORD)
    case 'payment.failed': return sessionEventData({ ...SESSION, status: 'failed' })
    case 'session.canceled': return sessionEventData({ ...SESSION, status: 'canceled' })
    case 'session.expired': return sessionEventData({ ...SESSION, status: 'expired' })
    case 'refund.pending': return refundEventData({ ...REFUND, status: 'pending' }, { ...RECORD, status: 'refunding' }, SESSION)
    case 'refund.succeeded': return refundEventData(REFUND, { ...RECORD, refundedAmount: 2500, status: 'partially_refunded' }, SESSION)
    case 'refund.failed': return refundEventData({ ...REFUND, status: 'failed' }, RECORD, SESSION)
    case 'reconciliation.mismatches_found': return reconciliationEventData({
      id: 'stm_2hQ8kT3vW9xYzA1bC4dE', provider: PROVIDERS[0].id, providerConfigId: 'pc_7fG2hJ5kL8mN1pQ4rS6t', day: '2026-11-25',
      counts: { matched: 41, missing_at_provider: 1, amount_differs: 1 }, openMismatches: 2, newMismatches: 2, totalsDiffer: [],
    })
    case 'payment.disputed': return disputeEventData(DISPUTE, RECORD, SESSION)
    case 'payment.dispute_closed': return disputeEventData({ ...DISPUTE, status: 'won', outcome: 'won', closedAt: new Date('2027-01-14T08:00:00.000Z') }, RECORD, SESSION)
  }
}

const minutes = (ms: number) => (ms < 3600_000 ? `${ms / 60_000} m` : `${ms / 3600_000} h`)
const RETRIES = RETRY_DELAYS_MS.map(minutes).join(', ')

const HEADERS = [
  {
    name: SIGNATURE_HEADER,
    required: true,
    description: 'Lowercase hex HMAC-SHA256 of the raw body bytes, keyed with the endpoint\'s whole `whsec_…` secret. '
      + 'Within 24 h of a rotation it carries several, comma-separated (the current secret\'s first): accept the body if any one matches. '
      + 'Verify the bytes as received, before parsing (the client libraries\' `constructEvent` does).',
    example: '5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  },
  { name: EVENT_ID_HEADER, required: true, description: 'the event\'s `id`: dedupe on it, delivery is at least once', example: EXAMPLE_IDS.evt },
  { name: EVENT_TYPE_HEADER, required: true, description: 'the event\'s `type`', example: 'payment.succeeded' },
  { name: 'User-Agent', required: true, description: 'always this value', example: USER_AGENT },
].map(({ name, required, description, example }) => ({ name, in: 'header', required, description, schema: { type: 'string' }, example }))

function operation(type: EventType) {
  const { summary, description, data } = WHAT[type]
  const body = Type.Object({
    id: Type.String({ pattern: '^evt_', description: 'the same on every attempt and redelivery' }),
    type: Type.Literal(type),
    createdAt: Type.String({ ...Timestamp, description: 'when this attempt was signed (fresh on each retry); the event\'s own time is in GET /api/v1/events/{id}' }),
    mode: Mode,
    data,
  })
  return {
    post: {
      operationId: `webhook.${type}`,
      summary,
      description: `${description}\n\nPOSTed as JSON to every enabled endpoint whose \`events\` take \`${type}\`, signed as the \`${SIGNATURE_HEADER}\` header says. `
        + 'See the integration guide\'s [Webhooks](/docs/guides/integrate#webhooks) for verifying, retries and redelivery.',
      tags: ['webhook events'],
      // Till calls the merchant: no API key is involved (the signature is the proof).
      security: [],
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: body, example: { id: EXAMPLE_IDS.evt, type, createdAt: '2026-11-26T09:30:13.001Z', mode: 'live', data: exampleData(type) } } },
      },
      responses: {
        '2XX': {
          description: `Received: answer 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s. Anything else (another status, a timeout, a refused connection, a redirect) `
            + `is retried after ${RETRIES}, each ±10 %; a Retry-After up to 24 h is honoured.`,
        },
      },
    },
  }
}

/** Every event type, in the order of domain/events.ts. */
export const webhookOperations = () => Object.fromEntries(EVENT_TYPES.map((type) => [type, operation(type)]))
