/** The payment link's resource schemas, shared by its routes, its presenter and OpenAPI (docs/integrate.md#payment-links). */
import { Type, type Static } from 'typebox'
import { Amount, CurrencyCode, Mode, Nullable, Timestamp } from './resources.js'

const Metadata = Type.Record(Type.String(), Type.String(), {
  maxProperties: 50,
  description: 'at most 50 keys; keys ≤ 40 characters, values ≤ 500; copied onto every session the link makes, and so into its webhooks',
})
const ProviderHints = Type.Record(Type.String(), Type.String(), {
  description: 'provider id → configuration label, as a session\'s providerHints: only the first is used; ignored in test mode',
})
const Description = Type.String({ maxLength: 200, description: 'shown on the link\'s page and on each session\'s checkout' })
const LinkExpiry = Type.String({ format: 'date-time', description: 'after this time the link\'s page says the link has expired (ISO 8601 with a time zone)' })
const MaxPayments = Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'paid sessions after which the link is used up' })

export const PaymentLinkBody = Type.Object({
  amount: Type.Optional({ ...Amount, description: 'a fixed amount in minor units; or give minAmount and maxAmount to let the buyer enter one' }),
  minAmount: Type.Optional({ ...Amount, description: 'the least a buyer may enter, minor units (with maxAmount, instead of amount)' }),
  maxAmount: Type.Optional({ ...Amount, description: 'the most a buyer may enter, minor units (with minAmount)' }),
  currency: CurrencyCode,
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  providerHints: Type.Optional(ProviderHints),
  expiresAt: Type.Optional(LinkExpiry),
  maxPayments: Type.Optional(MaxPayments),
  active: Type.Optional(Type.Boolean({ description: 'default true; an inactive link\'s page says the link is not active' })),
}, { additionalProperties: false })

export const PaymentLinkPatch = Type.Object({
  description: Type.Optional(Nullable(Description)),
  metadata: Type.Optional(Metadata),
  expiresAt: Type.Optional(Nullable(LinkExpiry)),
  maxPayments: Type.Optional(Nullable(MaxPayments)),
  active: Type.Optional(Type.Boolean({ description: 'false deactivates the link: its page makes no more sessions (sessions already made can still be paid); true activates it again' })),
}, { additionalProperties: false })

export type PaymentLinkBodyT = Static<typeof PaymentLinkBody>
export type PaymentLinkPatchT = Static<typeof PaymentLinkPatch>

export const PaymentLink = Type.Object({
  id: Type.String({ pattern: '^plink_' }),
  url: Type.String({ format: 'uri', description: 'the link\'s page: share it, or its QR code' }),
  active: Type.Boolean(),
  amount: Nullable(Type.Integer({ description: 'the fixed amount; null when the buyer enters one' })),
  minAmount: Nullable(Type.Integer()),
  maxAmount: Nullable(Type.Integer()),
  currency: CurrencyCode,
  description: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  providerHints: Nullable(Type.Record(Type.String(), Type.String())),
  expiresAt: Nullable(Timestamp),
  maxPayments: Nullable(Type.Integer()),
  paidCount: Type.Integer({ description: 'sessions made by the link and paid so far' }),
  mode: Mode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type PaymentLinkT = Static<typeof PaymentLink>
