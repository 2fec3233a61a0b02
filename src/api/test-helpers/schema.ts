import { Type, type Static } from 'typebox'
import { MOCK_DISPUTES, REFUND_BEHAVIORS } from '../../providers/mock/index.js'
import { IdParam, RecordWithRefund, Session, answer, errors } from '../../domain/resources.js'

export const PayBody = Type.Object({
  refundBehavior: Type.Optional(Type.Enum(REFUND_BEHAVIORS)),
  dispute: Type.Optional(Type.Enum(MOCK_DISPUTES, { description: 'after paying, the customer\'s bank disputes the payment: `open` sends payment.disputed; `won` or `lost` closes it too (payment.dispute_closed)' })),
}, { additionalProperties: false })
export type PayBodyT = Static<typeof PayBody>

const tags = ['test helpers']

export const PaySession = {
  summary: 'Test mode: pay a session through the mock provider',
  tags,
  params: IdParam,
  body: PayBody,
  response: { 200: answer('The session, paid', Session), ...errors('test_mode_only', 'session_terminal') },
}

export const SessionAction = (summary: string, outcome: string) => ({
  summary,
  tags,
  params: IdParam,
  response: { 200: answer(`The session, ${outcome}`, Session), ...errors('test_mode_only', 'session_terminal') },
})

export const RefundAction = (summary: string) => ({
  summary,
  tags,
  params: IdParam,
  response: { 200: answer('The record, with the refund settled', RecordWithRefund), ...errors('test_mode_only', 'refund_not_pending') },
})
