import { Type, type Static } from 'typebox'
import { CreatedRange, IdParam, ListOf, PageQuery, PaymentRecord, RecordWithRefunds, answer } from '../../domain/resources.js'

const tags = ['records']

export const RecordListQuery = Type.Object({
  ...PageQuery,
  session_id: Type.Optional(Type.String({ maxLength: 64, description: 'the record of this session (at most one)' })),
  status: Type.Optional(PaymentRecord.properties.status),
  ...CreatedRange,
}, { additionalProperties: false })
export type RecordListQueryT = Static<typeof RecordListQuery>

export const S = {
  get: {
    summary: 'Read a payment record with its refunds',
    tags,
    params: IdParam,
    response: { 200: answer('The payment record, with its refunds', RecordWithRefunds) },
  },
  list: {
    summary: 'List payment records, newest first',
    tags,
    querystring: RecordListQuery,
    response: { 200: answer('A page of payment records, newest first', ListOf(RecordWithRefunds)) },
  },
}
