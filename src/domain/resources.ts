/** Resource schemas shared by routes, response serialisation and OpenAPI (docs/integrate.md#read-sessions-records-and-refunds). */
import { Type, type Static } from 'typebox'
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { LOCALES } from './locales.js'
import { CURRENCY_CODES, MAX_AMOUNT, MIN_AMOUNT } from './money.js'
import { SESSION_STATUSES } from './session-machine.js'

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' })
export const Amount = Type.Integer({ minimum: MIN_AMOUNT, maximum: MAX_AMOUNT, description: 'minor units: 9900 CNY is 99.00 yuan; 1500 JPY is 1,500 yen (JPY has no minor unit)' })
export const CurrencyCode = Type.Enum(CURRENCY_CODES)
export const Mode = Type.Enum(['test', 'live'])
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

const ALL_CODES = Object.keys(ERROR_CODES) as ErrorCode[]
const codesOf = (status: number) => ALL_CODES.filter((c) => ERROR_CODES[c].status === status)
const codeList = (codes: ErrorCode[]) => codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].meaning}`).join('\n- ')

const errorShape = (codes: ErrorCode[], options: object = {}) => Type.Object({
  error: Type.String({ description: 'what went wrong, in words (the spec\'s own messages, unchanged)' }),
  code: Type.Enum(codes, { description: 'stable: branch on this, not on `error`' }),
  param: Type.Optional(Type.String({ description: 'for invalid_field and unknown_field: the field, query parameter or header, as a path (`metadata.order`)' })),
}, { additionalProperties: true, ...options })

/** Every error body: the full table of codes (docs/errors.md says what each means and what to do). */
export const ErrorBody = errorShape(ALL_CODES, { $id: 'Error', description: `An error. Codes:\n- ${codeList(ALL_CODES)}` })

/** What each error status is called where a response is named (the reference at /docs). */
const STATUS_NAMES: Record<number, string> = {
  400: 'Invalid request', 401: 'Not authenticated', 404: 'Not found', 405: 'Method not allowed', 409: 'Conflict',
  413: 'Body too large', 415: 'Not JSON', 429: 'Rate limited', 431: 'Headers too large', 500: 'Internal error', 503: 'Database unavailable',
}

/** An error response of one status carrying these codes (all of that status), named, with what each code means. */
export const errorFor = (status: number, codes: ErrorCode[] = codesOf(status), note?: string) =>
  errorShape(codes, { description: `${STATUS_NAMES[status] ?? 'Error'}${note ? `: ${note}` : ''}. Codes:\n- ${codeList(codes)}` })

/**
 * An operation's error responses, from the codes it can answer, grouped by their status. Routes
 * declare the codes of their own rules; api/openapi.ts adds those that follow from the route's shape
 * (authentication, a body, a query, an id, a POST's Idempotency-Key), and a test provokes every one
 * of them on every operation (test/api/operation-errors.test.ts).
 */
export function errors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const c of ALL_CODES.filter((c) => codes.includes(c))) byStatus.set(ERROR_CODES[c].status, [...(byStatus.get(ERROR_CODES[c].status) ?? []), c])
  return Object.fromEntries([...byStatus].map(([status, cs]) => [status, errorFor(status, cs)]))
}

/** A 2xx answer named for the reference (`The session`; @fastify/swagger's response description), otherwise the schema as it is. */
export function answer<T extends object>(name: string, schema: T): T {
  const named = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T
  return Object.assign(named, { 'x-response-description': name })
}

/** Additive and optional: present only when the provider charged the customer in another currency. */
export const Charged = Type.Object({
  amount: Type.Integer({ description: 'minor units of `currency` the customer paid (WeChat Pay Global: CNY fen)' }),
  currency: Type.String({ description: 'the currency the customer paid in, e.g. CNY' }),
  rate: Type.Optional(Type.String({ description: 'units of `currency` per major unit of the listed currency, as the provider reported it, e.g. "0.92"' })),
}, { description: 'what the customer was charged, beside the listed amount (which stays the amount of record)' })

export const RecordSummary = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  providerRef: Type.String(),
  amount: Type.Integer(),
  refundedAmount: Type.Integer({ description: 'cumulative succeeded refunds, minor units' }),
  status: Type.String(),
  paidAt: Timestamp,
  charged: Type.Optional(Charged),
})

export const SessionCreated = Type.Object({
  id: Type.String({ pattern: '^sess_' }),
  status: Type.Enum(SESSION_STATUSES),
  url: Type.String({ format: 'uri' }),
  amount: Type.Integer(),
  currency: CurrencyCode,
  expiresAt: Timestamp,
  createdAt: Timestamp,
  mode: Mode,
  description: Nullable(Type.String({ description: 'as given at creation' })),
  metadata: Type.Record(Type.String(), Type.String(), { description: 'as given at creation; {} when none was' }),
  locale: Nullable(Type.Enum(LOCALES, { description: 'the language of the hosted pages as given at creation; null: the customer\'s browser decides' })),
  customerEmail: Nullable(Type.String({ description: 'where the receipt goes, as given at creation; null: no email is sent' })),
})

export const Session = Type.Object({
  ...SessionCreated.properties,
  chosenProvider: Nullable(Type.String()),
  record: Type.Optional(RecordSummary),
  paymentLinkId: Type.Optional(Type.String({ pattern: '^plink_', description: 'present only for a session made by a payment link\'s page: that link' })),
})

export const Refund = Type.Object({
  id: Type.String({ pattern: '^ref_' }),
  amount: Type.Integer(),
  status: Type.Enum(['succeeded', 'pending', 'failed']),
  providerRef: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  createdAt: Timestamp,
})

export const PaymentRecord = Type.Object({
  id: Type.String({ pattern: '^rec_' }),
  sessionId: Type.String(),
  provider: Type.String(),
  providerRef: Type.String(),
  amount: Type.Integer(),
  refundedAmount: Type.Integer(),
  currency: CurrencyCode,
  status: Type.Enum(['paid', 'partially_refunded', 'refunded', 'refunding']),
  mode: Mode,
  paidAt: Timestamp,
  createdAt: Timestamp,
  charged: Type.Optional(Charged),
})

export const RecordWithRefund = Type.Object({ ...PaymentRecord.properties, refund: Refund })

/** A refund read on its own, in a list or in its record's `refunds`: it names its record. */
export const RefundObject = Type.Object({ ...Refund.properties, recordId: Type.String({ pattern: '^rec_' }) })

export const RecordWithRefunds = Type.Object({
  ...PaymentRecord.properties,
  refunds: Type.Array(RefundObject, { description: 'every refund of the record, newest first' }),
})

/** What a session event's `data` carries (payment.failed, session.canceled, session.expired; payment.succeeded adds the record). */
export const SessionEventData = Type.Object({
  sessionId: Type.String({ pattern: '^sess_' }),
  status: Type.Enum(SESSION_STATUSES, { description: 'the session\'s status when the event happened' }),
  amount: Type.Integer({ description: 'minor units' }),
  currency: CurrencyCode,
  metadata: Type.Object({}, { additionalProperties: Type.String(), description: 'as given at creation' }),
  paymentLinkId: Type.Optional(Type.String({ pattern: '^plink_', description: 'present only for a session made by a payment link\'s page: that link' })),
})

export const PaymentSucceededData = Type.Object({
  ...SessionEventData.properties,
  recordId: Type.String({ pattern: '^rec_' }),
  provider: Type.String(),
  providerRef: Type.String({ description: 'the provider\'s reference for the payment' }),
  paidAt: Timestamp,
})

/** What a refund event's `data` carries. */
export const RefundEventData = Type.Object({
  refundId: Type.String({ pattern: '^ref_' }),
  recordId: Type.String({ pattern: '^rec_' }),
  sessionId: Type.String({ pattern: '^sess_' }),
  amount: Type.Integer({ description: 'this refund, minor units' }),
  refundedAmount: Type.Integer({ description: 'the record\'s succeeded refunds so far, minor units' }),
  recordStatus: PaymentRecord.properties.status,
  currency: CurrencyCode,
  status: Refund.properties.status,
  reason: Nullable(Type.String()),
  metadata: Type.Object({}, { additionalProperties: Type.String(), description: 'the session\'s, as given at creation' }),
})

/** What a reconciliation event's `data` carries: a report, not a session (docs/reconciliation.md). */
export const ReconciliationEventData = Type.Object({
  reportId: Type.String(),
  provider: Type.String(),
  providerConfigId: Type.String(),
  date: Type.String({ description: 'the provider\'s day, YYYY-MM-DD in its time zone' }),
  counts: Type.Record(Type.String(), Type.Integer(), { description: 'items per category: matched, expected, missing_in_till, missing_at_provider, amount_differs, currency_differs, status_differs' }),
  openMismatches: Type.Integer({ description: 'mismatches not acknowledged yet' }),
  newMismatches: Type.Integer({ description: 'mismatches this run found that were not there (or were different) before' }),
  totalsDiffer: Type.Array(Type.String(), { description: 'currencies whose statement summary disagrees with the sum of its lines' }),
})

/** `limit` and `starting_after` of every list; pages are newest first. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 10' })),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'the id of the last object of the previous page' })),
}

/** `created_gte` and `created_lt`: a half-open range of creation times. */
export const CreatedRange = {
  created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'created at or after this time (ISO 8601 with a time zone)' })),
  created_lt: Type.Optional(Type.String({ format: 'date-time', description: 'created before this time (ISO 8601 with a time zone)' })),
}

/** A page of objects: `hasMore` says whether a request with `starting_after` set to the last id gives more. */
export const ListOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Object({ data: Type.Array(item), hasMore: Type.Boolean() })

export const IdParam = Type.Object({ id: Type.String({ maxLength: 64 }) })

export type SessionT = Static<typeof Session>

/** What payment.disputed and payment.dispute_closed carry: the dispute as the provider last showed it (docs/integrate.md#disputes). */
export const DisputeEventData = Type.Object({
  disputeId: Type.String({ pattern: '^dsp_', description: 'Till\'s id for the dispute, the same on both events' }),
  recordId: Type.String({ pattern: '^rec_' }),
  sessionId: Type.String({ pattern: '^sess_' }),
  provider: Type.String(),
  providerDisputeRef: Type.String({ description: 'the provider\'s id for the dispute (Stripe: `dp_…`): find it there to answer' }),
  amount: Type.Integer({ description: 'disputed, minor units (may be less than the payment)' }),
  currency: CurrencyCode,
  paymentAmount: Type.Integer({ description: 'the payment\'s amount, minor units' }),
  reason: Nullable(Type.String({ description: 'the provider\'s reason code (Stripe: fraudulent, product_not_received, duplicate, …)' })),
  status: Type.String({ description: 'the provider\'s status: needs_response, under_review, warning_needs_response, warning_under_review while open; won, lost, warning_closed, prevented once closed' }),
  outcome: Nullable(Type.Union([Type.Literal('won'), Type.Literal('lost'), Type.Literal('warning_closed'), Type.Literal('prevented')], { description: 'null while open' })),
  dueBy: Nullable(Type.String({ format: 'date-time', description: 'when the evidence is due at the provider' })),
  closedAt: Nullable(Type.String({ format: 'date-time' })),
  metadata: Type.Object({}, { additionalProperties: Type.String(), description: 'the session\'s, as given at creation' }),
})
