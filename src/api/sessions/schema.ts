import { Type, type Static } from 'typebox'
import { SESSION_STATUSES } from '../../domain/session-machine.js'
import { CreatedRange, IdParam, ListOf, PageQuery, Session, answer, errors } from '../../domain/resources.js'

const tags = ['sessions']

export const GetSession = {
  summary: 'Read a payment session',
  tags,
  params: IdParam,
  response: { 200: answer('The session, with its record once paid', Session) },
}

export const SessionListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Enum(SESSION_STATUSES, { description: 'as the session reads: an open session past expiresAt is expired' })),
  ...CreatedRange,
  metadata: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
    description: 'sent as `metadata[<key>]=<value>` (OpenAPI deepObject), repeatable: the sessions whose metadata holds every pair',
  })),
}, { additionalProperties: false })
export type SessionListQueryT = Static<typeof SessionListQuery>

export const ListSessions = {
  summary: 'List payment sessions, newest first',
  description: 'Filters combine. `metadata[<key>]=<value>` (repeatable) keeps the sessions whose metadata holds that pair, '
    + 'for example `metadata[order_id]=A-1042`.',
  tags,
  querystring: SessionListQuery,
  response: { 200: answer('A page of sessions, newest first', ListOf(Session)) },
}

const close = (verb: string, outcome: string, description: string) => ({
  summary: `${verb} an open payment session`,
  description: `${description} Only a \`pending\` or \`processing\` session: any other answers \`session_terminal\` (400), `
    + 'the same answer a second call without an Idempotency-Key gets. The customer\'s open order is closed at the provider first '
    + '(WeChat Pay and Alipay close it, Stripe expires its Checkout Session; Creem has no close, so a Creem checkout stays payable until Creem expires it). '
    + 'A close that finds the order already paid records the payment: the session is then `paid` and the answer is `session_terminal`. '
    + 'A payment that still lands afterwards is recorded as paid, with `payment.succeeded`: money received is never dropped.',
  tags,
  params: IdParam,
  response: { 200: answer(`The session, ${outcome}`, Session), ...errors('not_found', 'session_terminal') },
})

export const CancelSession = close('Cancel', 'canceled', 'The session becomes `canceled` and `session.canceled` is sent, once.')
export const ExpireSession = close('Expire', 'expired', 'The session becomes `expired` now (its `expiresAt` is now) and `session.expired` is sent, once.')
