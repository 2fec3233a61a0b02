import { Type, type Static } from 'typebox'
import { REFUND_BEHAVIORS } from '../../providers/mock/index.js'
import { IdParam, RecordWithRefund, Session, errors } from '../../domain/resources.js'

export const PayBody = Type.Object({ refundBehavior: Type.Optional(Type.Enum(REFUND_BEHAVIORS)) }, { additionalProperties: false })
export type PayBodyT = Static<typeof PayBody>

const tags = ['test helpers']

export const PaySession = {
  summary: 'Test mode: pay a session through the mock provider',
  tags,
  params: IdParam,
  body: PayBody,
  response: { 200: Session, ...errors(400, 401, 404, 409, 429) },
}

export const SessionAction = (summary: string) => ({
  summary,
  tags,
  params: IdParam,
  response: { 200: Session, ...errors(400, 401, 404, 409, 429) },
})

export const RefundAction = (summary: string) => ({
  summary,
  tags,
  params: IdParam,
  response: { 200: RecordWithRefund, ...errors(400, 401, 404, 409, 429) },
})
