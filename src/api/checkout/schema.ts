import { Type, type Static } from 'typebox'
import { LOCALES } from '../../domain/locales.js'
import { Amount, CurrencyCode, SessionCreated, answer, errors } from '../../domain/resources.js'

export const CheckoutBody = Type.Object({
  amount: Amount,
  currency: CurrencyCode,
  description: Type.Optional(Type.String({ maxLength: 200 })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: 50, description: 'at most 50 keys; keys ≤ 40 characters, values ≤ 500' })),
  successUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'absolute http(s) URL; https in live mode' })),
  cancelUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'where a customer who did not pay (canceled, failed, expired) goes back to, with session_id added; the same rules as successUrl' })),
  expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, description: 'default 3600' })),
  locale: Type.Optional(Type.Enum(LOCALES, { description: 'the language of the checkout, relay and receipt pages (en, zh-CN Simplified Chinese, zh-HK Traditional Chinese, ja Japanese); without it the customer\'s browser (Accept-Language) decides; the customer\'s own pick in the language switch still wins' })),
  customerEmail: Type.Optional(Type.String({ maxLength: 254, description: 'the buyer\'s email address: Till sends the receipt there when the session is paid, and a short notice when a refund succeeds (unless the merchant turned them off, or the instance has no SMTP_URL)' })),
  providerHints: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'provider id → configuration label; only the first is used; ignored in test mode' })),
}, { additionalProperties: false })

export type CheckoutBodyT = Static<typeof CheckoutBody>

export const CreateCheckout = {
  summary: 'Create a payment session',
  tags: ['sessions'],
  body: CheckoutBody,
  response: { 200: answer('The session: send the customer to its url', SessionCreated), ...errors('provider_unavailable') },
}
