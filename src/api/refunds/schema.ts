import { Type, type Static } from 'typebox'
import { Amount, RecordWithRefund, errors } from '../schemas.js'

export const RefundBody = Type.Object({
  recordId: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Optional(Amount),
  reason: Type.Optional(Type.String({ maxLength: 80 })),
}, { additionalProperties: false })

export type RefundBodyT = Static<typeof RefundBody>

export const CreateRefund = {
  summary: 'Refund a payment record, fully or partially',
  tags: ['refunds'],
  body: RefundBody,
  response: { 200: RecordWithRefund, ...errors(400, 401, 404, 409, 429) },
}
