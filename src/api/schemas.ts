/** Resource schemas shared by routes, response serialisation and OpenAPI (spec §2). */
import { Type, type Static } from 'typebox'
import { CURRENCY_CODES, MAX_AMOUNT, MIN_AMOUNT } from '../domain/money.js'
import { SESSION_STATUSES } from '../domain/session-machine.js'

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' })
export const Amount = Type.Integer({ minimum: MIN_AMOUNT, maximum: MAX_AMOUNT, description: 'minor units (spec 2.1): 9900 CNY is 99.00; 100 JPY is 100 yen' })
export const CurrencyCode = Type.Enum(CURRENCY_CODES)
export const Mode = Type.Enum(['test', 'live'])
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

export const ErrorBody = Type.Object({ error: Type.String() }, { additionalProperties: true, $id: 'Error' })

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
})

export const Session = Type.Object({
  ...SessionCreated.properties,
  chosenProvider: Nullable(Type.String()),
  record: Type.Optional(RecordSummary),
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

export const IdParam = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]))

export type SessionT = Static<typeof Session>
