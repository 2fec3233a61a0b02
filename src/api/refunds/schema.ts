import { Type, type Static } from 'typebox'
import { Amount, CreatedRange, IdParam, ListOf, PageQuery, RecordWithRefund, RefundObject, errors } from '../../domain/resources.js'

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
  response: { 200: RecordWithRefund, ...errors(400, 401, 404, 409, 429) },
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
  response: { 200: RefundObject, ...errors(401, 404, 429) },
}

export const ListRefunds = {
  summary: 'List refunds, newest first',
  tags,
  querystring: RefundListQuery,
  response: { 200: ListOf(RefundObject), ...errors(400, 401, 429) },
}
