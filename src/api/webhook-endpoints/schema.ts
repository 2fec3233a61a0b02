import { Type, type Static } from 'typebox'
import { EVENT_TYPES } from '../../domain/events.js'
import { IdParam, Mode, Nullable, Timestamp, errors } from '../../domain/resources.js'

const tags = ['webhook endpoints']

export const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'absolute http(s) URL; https in live mode' })
export const EventFilter = Nullable(Type.Array(Type.Enum(EVENT_TYPES), {
  minItems: 1,
  uniqueItems: true,
  description: 'event types to send; null or absent: every type',
}))

export const EndpointBody = Type.Object({
  url: Url,
  events: Type.Optional(EventFilter),
  enabled: Type.Optional(Type.Boolean({ description: 'default true; a disabled endpoint receives nothing until enabled again' })),
}, { additionalProperties: false })

export const EndpointPatchBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(EventFilter),
  enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false })

export type EndpointBodyT = Static<typeof EndpointBody>
export type EndpointPatchT = Static<typeof EndpointPatchBody>

export const WebhookEndpoint = Type.Object({
  id: Type.String({ pattern: '^we_' }),
  url: Type.String(),
  mode: Mode,
  events: Nullable(Type.Array(Type.String())),
  enabled: Type.Boolean(),
  previousSecretExpiresAt: Nullable(Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds; until then deliveries also carry the signatures of secrets replaced by rotations, each for 24 h after its own rotation' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})

export const WebhookEndpointWithSecret = Type.Object({
  ...WebhookEndpoint.properties,
  secret: Type.String({ pattern: '^whsec_', description: 'shown only in this answer' }),
})

export const S = {
  create: {
    summary: 'Register a webhook endpoint; the answer carries its signing secret, shown only here',
    tags,
    body: EndpointBody,
    response: { 201: WebhookEndpointWithSecret, ...errors(400, 401, 409, 429) },
  },
  list: { summary: 'List the webhook endpoints of this mode', tags, response: { 200: Type.Object({ data: Type.Array(WebhookEndpoint) }), ...errors(401, 429) } },
  get: { summary: 'Read a webhook endpoint', tags, params: IdParam, response: { 200: WebhookEndpoint, ...errors(401, 404, 429) } },
  update: {
    summary: 'Change a webhook endpoint\'s URL or event filter, or enable or disable it',
    tags,
    params: IdParam,
    body: EndpointPatchBody,
    response: { 200: WebhookEndpoint, ...errors(400, 401, 404, 429) },
  },
  remove: {
    summary: 'Delete a webhook endpoint; its scheduled deliveries are canceled',
    tags,
    params: IdParam,
    response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }), ...errors(401, 404, 429) },
  },
  rotate: {
    summary: 'Rotate the signing secret: the old one keeps signing beside the new one for 24 h',
    description: 'Secrets replaced earlier and still inside their own 24 h keep signing too, up to 4 besides the current one; past that the rotation is refused (limit_reached) until they are expired.',
    tags,
    params: IdParam,
    response: { 200: WebhookEndpointWithSecret, ...errors(400, 401, 404, 409, 429) },
  },
  expirePrevious: {
    summary: 'Stop signing with the secrets replaced by rotations, now: only the current secret signs from the next delivery on',
    tags,
    params: IdParam,
    response: { 200: WebhookEndpoint, ...errors(401, 404, 409, 429) },
  },
}
