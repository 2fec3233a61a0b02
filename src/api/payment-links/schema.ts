import { Type, type Static } from 'typebox'
import { PaymentLink, PaymentLinkBody, PaymentLinkPatch } from '../../domain/payment-link-resources.js'
import { IdParam, ListOf, PageQuery, answer, errors } from '../../domain/resources.js'

const tags = ['payment links']

export const PaymentLinkListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })
export type PaymentLinkListQueryT = Static<typeof PaymentLinkListQuery>

export const S = {
  create: {
    summary: 'Create a payment link: a page that makes a fresh session for each buyer',
    description: 'Give `amount`, or `minAmount` and `maxAmount` to let the buyer enter the amount on the page. '
      + 'Its sessions carry the link\'s description and metadata, and `paymentLinkId`, into their webhooks.',
    tags,
    body: PaymentLinkBody,
    response: { 201: answer('The payment link: share its url', PaymentLink), ...errors('provider_unavailable') },
  },
  get: { summary: 'Read a payment link', tags, params: IdParam, response: { 200: answer('The payment link', PaymentLink) } },
  list: {
    summary: 'List payment links, newest first',
    tags,
    querystring: PaymentLinkListQuery,
    response: { 200: answer('A page of payment links, newest first', ListOf(PaymentLink)) },
  },
  update: {
    summary: 'Change or deactivate a payment link',
    description: 'Fields not sent are left as they are; null clears an optional one. `active: false` deactivates the link: '
      + 'its page makes no more sessions, while sessions it already made can still be paid. The amounts, currency and provider hint do not change.',
    tags,
    params: IdParam,
    body: PaymentLinkPatch,
    response: { 200: answer('The payment link as changed', PaymentLink) },
  },
}
