import { Type, type Static } from 'typebox'
import { CreatedRange, IdParam, ListOf, PageQuery, PaymentRecord, RecordWithRefunds, errors } from '../../domain/resources.js'

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
    response: { 200: RecordWithRefunds, ...errors(401, 404, 429) },
  },
  list: {
    summary: 'List payment records, newest first',
    tags,
    querystring: RecordListQuery,
    response: { 200: ListOf(RecordWithRefunds), ...errors(400, 401, 429) },
  },
}
