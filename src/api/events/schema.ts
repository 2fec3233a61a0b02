import { Type, type Static } from 'typebox'
import { EVENT_TYPES } from '../../domain/events.js'
import { IdParam, ListOf, Mode, Nullable, PageQuery, Timestamp, answer, errors } from '../../domain/resources.js'

const tags = ['events']

/** Exactly the body a webhook carries. */
export const Event = Type.Object({
  id: Type.String({ pattern: '^evt_' }),
  type: Type.Enum(EVENT_TYPES),
  createdAt: Timestamp,
  mode: Mode,
  data: Type.Object({}, { additionalProperties: true, description: 'what happened, by event type; every amount in minor units; the session\'s metadata as given' }),
})

export const Attempt = Type.Object({
  attemptedAt: Timestamp,
  statusCode: Nullable(Type.Integer({ description: 'null when no answer came (refused, timed out, reset)' })),
  latencyMs: Type.Integer(),
  responseBody: Nullable(Type.String({ description: 'the first KiB of the answer' })),
  error: Nullable(Type.String()),
})

export const Delivery = Type.Object({
  endpointId: Type.String(),
  url: Type.String(),
  status: Type.Enum(['pending', 'delivered', 'failed', 'canceled']),
  nextAttemptAt: Nullable(Timestamp),
  deliveredAt: Nullable(Timestamp),
  attempts: Type.Array(Attempt),
})

export const ListQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(Type.Enum(EVENT_TYPES)),
}, { additionalProperties: false })

export const RedeliverBody = Type.Object({
  endpointId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'only this endpoint; default: every enabled endpoint that takes the event' })),
}, { additionalProperties: false })

export type ListQueryT = Static<typeof ListQuery>
export type RedeliverBodyT = Static<typeof RedeliverBody>

export const S = {
  list: {
    summary: 'List events, newest first',
    tags,
    querystring: ListQuery,
    response: { 200: answer('A page of events, newest first', ListOf(Event)) },
  },
  get: {
    summary: 'Read an event with its deliveries and every attempt',
    tags,
    params: IdParam,
    response: { 200: answer('The event, with its deliveries and every attempt', Type.Object({ ...Event.properties, deliveries: Type.Array(Delivery) })) },
  },
  redeliver: {
    summary: 'Send an event again now',
    tags,
    params: IdParam,
    body: RedeliverBody,
    response: {
      202: answer('The deliveries scheduled', Type.Object({
        id: Type.String(),
        scheduled: Type.Array(Type.Object({ endpointId: Type.String(), url: Type.String(), nextAttemptAt: Timestamp })),
      })),
      ...errors('webhook_endpoint_unavailable'),
    },
  },
}
