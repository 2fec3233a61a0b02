import { Type, type Static } from 'typebox'
import { Amount, CreatedRange, IdParam, ListOf, PageQuery, RecordWithRefund, RefundObject, answer, errors } from '../../domain/resources.js'

const tags = ['refunds']

export const RefundBody = Type.Object({
  recordId: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Optional(Amount),
  reason: Type.Optional(Type.String({ maxLength: 80 })),
}, { additionalProperties: false })

export type RefundBodyT = Static<typeof RefundBody>

export const CreateRefund = {
  summary: 'Refund a payment record, fully or partially',
  tags,
  body: RefundBody,
  response: {
    200: answer('The record after the refund, with the refund made (succeeded, pending, or failed when the provider refused it)', RecordWithRefund),
    ...errors('not_found', 'amount_exceeds_refundable', 'already_refunded', 'partial_refund_unsupported'),
  },
}

export const RefundListQuery = Type.Object({
  ...PageQuery,
  record_id: Type.Optional(Type.String({ maxLength: 64, description: 'the refunds of this record' })),
  ...CreatedRange,
}, { additionalProperties: false })
export type RefundListQueryT = Static<typeof RefundListQuery>

export const GetRefund = {
  summary: 'Read a refund',
  tags,
  params: IdParam,
  response: { 200: answer('The refund', RefundObject) },
}

export const ListRefunds = {
  summary: 'List refunds, newest first',
  tags,
  querystring: RefundListQuery,
  response: { 200: answer('A page of refunds, newest first', ListOf(RefundObject)) },
}
