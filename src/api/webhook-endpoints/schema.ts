import { Type, type Static } from 'typebox'
import { EVENT_TYPES } from '../../domain/events.js'
import { IdParam, Mode, Nullable, Timestamp, answer, errors } from '../../domain/resources.js'

const tags = ['webhook endpoints']

export const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'absolute http(s) URL; https in live mode' })
export const EventFilter = Nullable(Type.Array(Type.Enum(EVENT_TYPES), {
  minItems: 1,
  uniqueItems: true,
  description: 'event types to send; null or absent: every type',
}))

/** What enabling an endpoint again does to what failed meanwhile (docs/integrate.md#endpoint-health). */
const ENABLING = 'false pauses the endpoint: events meanwhile are not queued for it, deliveries already scheduled wait. '
  + 'true enables it again, also after Till disabled it for failing (its failing run then starts afresh): the deliveries still scheduled resume at once; '
  + 'deliveries that failed for good meanwhile, and events from while it was disabled, are not sent again by themselves: '
  + 'redeliver them with POST /api/v1/events/{id}/redeliver.'

export const EndpointBody = Type.Object({
  url: Url,
  events: Type.Optional(EventFilter),
  enabled: Type.Optional(Type.Boolean({ description: 'default true; a disabled endpoint receives nothing until enabled again' })),
}, { additionalProperties: false })

export const EndpointPatchBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(EventFilter),
  enabled: Type.Optional(Type.Boolean({ description: ENABLING })),
}, { additionalProperties: false })

export type EndpointBodyT = Static<typeof EndpointBody>
export type EndpointPatchT = Static<typeof EndpointPatchBody>

/** Kept by the delivery worker with every attempt (docs/integrate.md#endpoint-health). */
export const EndpointHealth = Type.Object({
  recentAttempts: Type.Integer({ description: 'attempts in the last 24 hours (the current hour and the 23 before it), delivered or not' }),
  recentSuccessRate: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'the share of those attempts answered 2xx in time, to 4 decimals; null without attempts' })),
  lastSuccessAt: Nullable(Timestamp),
  lastFailureAt: Nullable(Timestamp),
  lastFailureReason: Nullable(Type.String({ description: '`HTTP <status>` for an answer other than 2xx, else what went wrong (refused, timed out, TLS)' })),
  failingSince: Nullable(Type.String({ format: 'date-time', description: 'the first failed attempt after the last success; null while the last attempt succeeded' })),
  failuresSinceSuccess: Type.Integer({ description: 'failed attempts since the last success' }),
  disabledForFailingAt: Nullable(Type.String({ format: 'date-time', description: 'when Till disabled the endpoint because every attempt failed for 3 days and at least 10 attempts (the operator may change both); null once enabled again' })),
}, { description: 'how deliveries to this endpoint have gone' })

export const WebhookEndpoint = Type.Object({
  id: Type.String({ pattern: '^we_' }),
  url: Type.String(),
  mode: Mode,
  events: Nullable(Type.Array(Type.String())),
  enabled: Type.Boolean({ description: 'false when disabled through the API or the console, or by Till for failing (`health.disabledForFailingAt`)' }),
  previousSecretExpiresAt: Nullable(Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds; until then deliveries also carry the signatures of secrets replaced by rotations, each for 24 h after its own rotation' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  health: EndpointHealth,
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
    response: { 201: answer('The endpoint, with its signing secret (shown only here)', WebhookEndpointWithSecret), ...errors('limit_reached') },
  },
  list: { summary: 'List the webhook endpoints of this mode', tags, response: { 200: answer('Every endpoint of this mode, oldest first', Type.Object({ data: Type.Array(WebhookEndpoint) })) } },
  get: { summary: 'Read a webhook endpoint', tags, params: IdParam, response: { 200: answer('The endpoint', WebhookEndpoint) } },
  update: {
    summary: 'Change a webhook endpoint\'s URL or event filter, or enable or disable it',
    description: `Fields not sent are left as they are. \`enabled\`: ${ENABLING}`,
    tags,
    params: IdParam,
    body: EndpointPatchBody,
    response: { 200: answer('The endpoint as changed', WebhookEndpoint) },
  },
  remove: {
    summary: 'Delete a webhook endpoint; its scheduled deliveries are canceled',
    tags,
    params: IdParam,
    response: { 200: answer('The endpoint is deleted', Type.Object({ id: Type.String(), deleted: Type.Literal(true) })) },
  },
  rotate: {
    summary: 'Rotate the signing secret: the old one keeps signing beside the new one for 24 h',
    description: 'Secrets replaced earlier and still inside their own 24 h keep signing too, up to 4 besides the current one; past that the rotation is refused (limit_reached) until they are expired.',
    tags,
    params: IdParam,
    response: { 200: answer('The endpoint, with its new signing secret (shown only here)', WebhookEndpointWithSecret), ...errors('limit_reached') },
  },
  expirePrevious: {
    summary: 'Stop signing with the secrets replaced by rotations, now: only the current secret signs from the next delivery on',
    tags,
    params: IdParam,
    response: { 200: answer('The endpoint, signed by its current secret alone from now on', WebhookEndpoint) },
  },
}
