import { Type, type Static } from 'typebox'
import { SESSION_STATUSES } from '../../domain/session-machine.js'
import { CreatedRange, IdParam, ListOf, PageQuery, Session, answer } from '../../domain/resources.js'

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
