/**
 * Public types, taken from the service's OpenAPI document (generated/openapi.ts) by path and
 * method, so a field exists here exactly when the service has it. Every amount is an integer in
 * the currency's minor unit: 9900 CNY is ¥99.00, 1500 JPY is ¥1,500 (never multiplied by 100).
 */
import type { components, paths } from './generated/openapi.js'

export type { paths }
export type Path = keyof paths
export type Verb = 'get' | 'post' | 'patch' | 'delete'
type Operation<P extends Path, M extends Verb> = M extends keyof paths[P] ? NonNullable<paths[P][M]> : never

/** The JSON request body of an operation (never when it takes none). */
export type BodyOf<P extends Path, M extends Verb> = JsonContent<Operation<P, M> extends { requestBody?: infer R } ? NonNullable<R> : never>
// openapi-typescript writes `requestBody?: never` for "no body"; never must stay never here, not unknown.
type JsonContent<R> = [R] extends [never] ? never : R extends { content: { 'application/json': infer B } } ? B : never
/** The query parameters of an operation (never when it takes none). */
export type QueryOf<P extends Path, M extends Verb> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? ([Q] extends [never | undefined] ? never : NonNullable<Q>) : never
/** The success (200, 201 or 202) JSON answer of an operation. */
export type ResultOf<P extends Path, M extends Verb> = Operation<P, M> extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer B } } } ? B
    : R extends { 201: { content: { 'application/json': infer B } } } ? B
      : R extends { 202: { content: { 'application/json': infer B } } } ? B
        : never
  : never

/** POST /api/v1/checkout body. `providerHints` is part of it; any other field is sent as given too. */
export type CheckoutParams = BodyOf<'/api/v1/checkout', 'post'>
/** The session as created: no chosenProvider, no record yet. */
export type CreatedSession = ResultOf<'/api/v1/checkout', 'post'>
type SessionAsServed = ResultOf<'/api/v1/sessions/{id}', 'get'>
export type SessionStatus = SessionAsServed['status']
export type RecordSummary = NonNullable<SessionAsServed['record']>
/** The statuses of a session that was paid: it then always carries its `record`. */
export type PaidSessionStatus = Extract<SessionStatus, 'paid' | 'refunded'>
/** A session that was paid (`paid`, or `refunded` since): `record` is always there. */
export type PaidSession = Omit<SessionAsServed, 'status' | 'record'> & { status: PaidSessionStatus; record: RecordSummary }
/** A session that was not paid: no `record`. */
export type UnpaidSession = Omit<SessionAsServed, 'status' | 'record'> & { status: Exclude<SessionStatus, PaidSessionStatus>; record?: undefined }
/** The session as read: chosenProvider, and `record` once paid; checking `status` narrows it. */
export type Session = PaidSession | UnpaidSession
export type Currency = CheckoutParams['currency']

/** POST /api/v1/refunds body: omit `amount` to refund everything still refundable. */
export type RefundParams = BodyOf<'/api/v1/refunds', 'post'>
/** The payment record with the refund this call created. */
export type RecordWithRefund = ResultOf<'/api/v1/refunds', 'post'>
export type PaymentRecord = Omit<RecordWithRefund, 'refund'>
export type Refund = RecordWithRefund['refund']
/** A record read back (GET /api/v1/records/{id}, lists): with every refund made on it, newest first. */
export type RecordWithRefunds = ResultOf<'/api/v1/records/{id}', 'get'>
/** A refund read on its own or in a list: it names its record. */
export type RefundObject = ResultOf<'/api/v1/refunds/{id}', 'get'>
export type SessionListParams = QueryOf<'/api/v1/sessions', 'get'>
export type RecordListParams = QueryOf<'/api/v1/records', 'get'>
export type RefundListParams = QueryOf<'/api/v1/refunds', 'get'>

export type PayParams = BodyOf<'/api/v1/test_helpers/sessions/{id}/pay', 'post'>
export type RefundBehavior = NonNullable<PayParams['refundBehavior']>

/**
 * Every error body: `error` in words, `code` to branch on, `param` for a field error, and extra
 * fields on some (`refundable` on amount_exceeds_refundable and already_refunded).
 */
export type ErrorBody = components['schemas']['Error']
/** Every error code the service has (docs/errors.md says what each means and what to do). */
export type ErrorCode = ErrorBody['code']

/** POST /api/v1/webhook_endpoints body: the URL, and optionally the event types it takes. */
export type WebhookEndpointParams = BodyOf<'/api/v1/webhook_endpoints', 'post'>
export type WebhookEndpointUpdate = BodyOf<'/api/v1/webhook_endpoints/{id}', 'patch'>
export type WebhookEndpoint = ResultOf<'/api/v1/webhook_endpoints/{id}', 'get'>
/** The endpoint with its signing secret (whsec_…): only the create and rotate answers carry it. */
export type WebhookEndpointWithSecret = ResultOf<'/api/v1/webhook_endpoints', 'post'>
export type EventListParams = QueryOf<'/api/v1/events', 'get'>
/** An event with its deliveries and every attempt, as GET /api/v1/events/{id} answers. */
export type EventWithDeliveries = ResultOf<'/api/v1/events/{id}', 'get'>
/** Exactly the body a webhook carries; `data` is untyped in the OpenAPI document (WebhookEvent types it). */
export type EventEnvelope = ResultOf<'/api/v1/events', 'get'>['data'][number]
export type WebhookEventType = EventEnvelope['type']

// The shapes of `data` per event type (docs/integrate.md#webhooks). They are written here because the OpenAPI
// document describes `data` only as an object; once its schema types `data`, take them from there.
export type SessionEventType = Extract<WebhookEventType, `payment.${string}` | `session.${string}`>
export type RefundEventType = Extract<WebhookEventType, `refund.${string}`>
export type ReconciliationEventType = Extract<WebhookEventType, `reconciliation.${string}`>

interface SessionEventBase {
  sessionId: string
  amount: number
  currency: Currency
  /** The metadata given when the session was created. */
  metadata: Record<string, string>
}

/** payment.succeeded: the session is paid, and its record is named. */
export interface PaymentSucceededData extends SessionEventBase {
  status: 'paid'
  recordId: string
  provider: string
  providerRef: string
  paidAt: string
}
/** payment.failed, session.canceled, session.expired: nothing was paid, there is no record. */
export interface SessionEndedData<S extends SessionStatus> extends SessionEventBase {
  status: S
}

/** refund.pending, refund.succeeded, refund.failed: `status` is the refund's, as the type says. */
export interface RefundEventData<S extends Refund['status'] = Refund['status']> {
  refundId: string
  recordId: string
  sessionId: string
  /** This refund's amount. */
  amount: number
  /** The record's total of succeeded refunds. */
  refundedAmount: number
  recordStatus: PaymentRecord['status']
  currency: Currency
  status: S
  reason: string | null
  metadata: Record<string, string>
}

/**
 * reconciliation.mismatches_found: a provider's day (`date`, in the provider's zone) reconciled
 * against its statement with mismatches. It names a report, not a session.
 */
export interface ReconciliationEventData {
  reportId: string
  provider: string
  providerConfigId: string
  date: string
  /** Items per category: matched, expected, missing_in_till, missing_at_provider, amount_differs, currency_differs, status_differs. */
  counts: Record<string, number>
  /** Mismatches not acknowledged yet. */
  openMismatches: number
  /** Mismatches this run found that were not there (or were different) before. */
  newMismatches: number
  /** Currencies whose statement summary disagrees with the sum of its lines. */
  totalsDiffer: string[]
}

/** A dispute (chargeback) on a payment, as the provider last showed it; Till never answers it: do so at the provider before `dueBy`. */
export interface DisputeEventData {
  /** Till's id for the dispute (dsp_…), the same on both events. */
  disputeId: string
  recordId: string
  sessionId: string
  provider: string
  /** The provider's id for the dispute (Stripe: dp_…): find it there to answer. */
  providerDisputeRef: string
  /** Disputed, minor units (may be less than the payment). */
  amount: number
  currency: Currency
  /** The payment's amount, minor units. */
  paymentAmount: number
  /** The provider's reason code (Stripe: fraudulent, product_not_received, duplicate, …). */
  reason: string | null
  /** The provider's status: needs_response, under_review, … while open; won, lost, warning_closed, prevented once closed. */
  status: string
  /** Null while open. */
  outcome: 'won' | 'lost' | 'warning_closed' | 'prevented' | null
  /** When the evidence is due at the provider (ISO 8601). */
  dueBy: string | null
  closedAt: string | null
  metadata: Record<string, string>
}

/** The `data` of each event type. */
export interface EventDataByType {
  'payment.succeeded': PaymentSucceededData
  'payment.failed': SessionEndedData<'failed'>
  'session.canceled': SessionEndedData<'canceled'>
  'session.expired': SessionEndedData<'expired'>
  'refund.pending': RefundEventData<'pending'>
  'refund.succeeded': RefundEventData<'succeeded'>
  'refund.failed': RefundEventData<'failed'>
  'reconciliation.mismatches_found': ReconciliationEventData
  'payment.disputed': DisputeEventData
  'payment.dispute_closed': DisputeEventData
}

/** The data of any session or payment event (narrow on the event's `type` for the exact one). */
export type SessionEventData = EventDataByType[SessionEventType]

type Typed<T extends WebhookEventType> = Omit<EventEnvelope, 'type' | 'data'> & { type: T; data: EventDataByType[T] }

/** A verified webhook event (`id` evt_…: dedupe on it, delivery is at-least-once); `switch (event.type)` narrows `data`. */
export type WebhookEvent = { [T in WebhookEventType]: Typed<T> }[WebhookEventType]
/** The event of one type. */
export type WebhookEventOf<T extends WebhookEventType> = Typed<T>

export type PaymentLinkParams = BodyOf<'/api/v1/payment_links', 'post'>
export type PaymentLinkUpdateParams = BodyOf<'/api/v1/payment_links/{id}', 'post'>
export type PaymentLinkListParams = QueryOf<'/api/v1/payment_links', 'get'>
export type PaymentLink = ResultOf<'/api/v1/payment_links/{id}', 'get'>
