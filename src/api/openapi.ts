/** /api/v1/openapi.json: OpenAPI 3.1, generated from the same schemas that validate requests. */
import swagger from '@fastify/swagger'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { Type } from 'typebox'
import { ERROR_CODES, type ErrorCode } from '../domain/errors.js'
import { ErrorBody, errorFor } from '../domain/resources.js'
import { codeSamples } from './reference/samples.js'
import { webhookOperations } from './reference/webhooks.js'

const IDEMPOTENCY_KEY = Type.Object({
  'Idempotency-Key': Type.Optional(Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'kept 24 h: a retry with the same key and request replays the first answer (Idempotent-Replayed: true)',
  })),
})

type Schema = FastifySchema & { hide?: boolean; response?: Record<string, unknown> }
type ErrorResponse = { properties?: { code?: { enum?: ErrorCode[] } } }

/**
 * The codes an operation answers because of its shape, whatever it does: every one authenticates,
 * is rate limited and may meet a server fault or a database outage; an id in the path may name
 * nothing; a query and a body are validated; any body but a GET's is parsed as JSON; a POST takes
 * an Idempotency-Key.
 */
export function shapeCodes(schema: Schema | undefined, method: string): ErrorCode[] {
  const codes: ErrorCode[] = ['missing_api_key', 'invalid_api_key', 'rate_limited', 'headers_too_large', 'internal_error', 'service_unavailable']
  if (schema?.params) codes.push('not_found')
  if (schema?.querystring || schema?.body) codes.push('invalid_field', 'unknown_field')
  if (method !== 'GET') codes.push('invalid_json', 'body_too_deep', 'body_too_large', 'unsupported_media_type')
  if (method === 'POST') codes.push('invalid_field', 'idempotency_mismatch', 'idempotency_in_flight')
  return codes
}

/** Status → the codes an operation documents: its shape's and those its route declares (api/<resource>/schema.ts). */
export function documentedCodes(schema: Schema | undefined, method: string): Map<number, ErrorCode[]> {
  const declared = Object.entries(schema?.response ?? {})
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, r]) => (r as ErrorResponse).properties?.code?.enum ?? [])
  const all = new Set([...shapeCodes(schema, method), ...declared])
  const byStatus = new Map<number, ErrorCode[]>()
  // In the table's order (domain/errors.ts), so the document reads the same whatever the order of declaration.
  for (const code of (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => all.has(c))) {
    const status = ERROR_CODES[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return byStatus
}

const NOTES: Partial<Record<number, string>> = {
  429: 'wait the seconds Retry-After gives',
  431: 'the request line and headers are over 16 KiB (Node\'s limit), typically a very long query string',
  500: '`{"error":"internal error","requestId"}`, never a stack',
  503: 'the database cannot be reached; retry later',
}
const RETRY_AFTER = { headers: { 'Retry-After': Type.Integer({ minimum: 1, description: 'seconds until the key may send again' }) } }

/**
 * The operation as documented: only the REST API (the hosted pages and other HTML routes are not
 * part of it), each error status named and listing exactly the codes it can carry (the fuzzer in
 * scripts/fuzz.sh holds the service to it), and a POST's Idempotency-Key header. Applied to the
 * document only: the routes' own schemas keep validating and serialising as they are.
 */
export function documentOperation(schema: Schema | undefined, url: string, method: string, baseUrl: string): Schema {
  if (!url.startsWith('/api/v1/')) return { ...schema, hide: true }
  const success = Object.fromEntries(Object.entries(schema?.response ?? {}).filter(([status]) => Number(status) < 400))
  const failures = Object.fromEntries([...documentedCodes(schema, method)].map(([status, codes]) =>
    [status, { ...errorFor(status, codes, NOTES[status]), ...(status === 429 ? RETRY_AFTER : {}) }]))
  const s: Schema = { ...schema, response: { ...success, ...failures } }
  if (method === 'POST' && !s.headers) s.headers = IDEMPOTENCY_KEY
  // Copied into the operation as it is (an x- key): Redoc shows the samples in tabs.
  const samples = codeSamples(method, url.replace(/:(\w+)/g, '{$1}'), baseUrl)
  return samples ? { ...s, 'x-codeSamples': samples } as Schema : s
}

type Parameter = { in?: string; schema?: { type?: string }; style?: string; explode?: boolean }

/** An object in a query (`metadata[<key>]=<value>`) is written in OpenAPI's deepObject style. */
function deepObjects<T extends object>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, { parameters?: Parameter[] }>> }).paths ?? {}
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops)) {
      for (const p of op.parameters ?? []) {
        if (p.in === 'query' && p.schema?.type === 'object') Object.assign(p, { style: 'deepObject', explode: true })
      }
    }
  }
  return doc
}

/**
 * Enums say the type of their values (`"type": "string"`): without it a reader such as Redoc shows
 * the field's type as "any". Only in the document: validation keeps the schemas' own messages for a
 * wrong value.
 */
function typedEnums<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(typedEnums)
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>
    const kinds = Array.isArray(o.enum) ? new Set(o.enum.map((v) => typeof v)) : new Set()
    if (o.type === undefined && kinds.size === 1) {
      const [kind] = kinds
      if (kind === 'string' || kind === 'boolean' || kind === 'number') o.type = kind
    }
    Object.values(o).forEach(typedEnums)
  }
  return node
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string) {
  // components.schemas.Error: every code in one enum, for clients to name the type.
  app.addSchema(ErrorBody)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Till API',
        version: '1.0.0',
        description: 'Hosted-checkout payments. Every amount is an integer in the currency\'s minor unit. Authenticate with `Authorization: Bearer sk_test_…` or `sk_live_…`, or with HTTP Basic, the key as user name (`curl -u sk_test_…:`). Every POST accepts an `Idempotency-Key` header.\n\n'
          + 'Each operation lists the error codes it can answer ([what each means and what to do](/docs/guides/errors)) and has samples in curl, Node, Python and Go; '
          + 'the webhook events Till sends are described at the end. Guides: [Integrating with Till](/docs/guides/integrate) · [Errors](/docs/guides/errors) · '
          + '[The console](/docs/guides/console) · [Operating Till](/docs/guides/operate) · [all guides](/docs/guides).',
      },
      // Each group of operations links the guide's section about it.
      tags: [
        { name: 'sessions', description: 'A session is one payment to collect: create it, send the customer to its `url`, read the result. [Create a session](/docs/guides/integrate#create-a-session) · [Coming back](/docs/guides/integrate#coming-back-successurl-the-relay-and-paid_confirmed) · [States](/docs/guides/integrate#session-and-record-states)' },
        { name: 'refunds', description: 'Refund a payment record, fully or partly. [Refunds](/docs/guides/integrate#refunds)' },
        { name: 'records', description: 'One payment record per paid session, with its refunds. [Read sessions, records and refunds](/docs/guides/integrate#read-sessions-records-and-refunds)' },
        { name: 'webhook endpoints', description: 'Where Till POSTs signed events, and how deliveries to each have gone. [Webhooks](/docs/guides/integrate#webhooks) · [Endpoint health](/docs/guides/integrate#endpoint-health)' },
        { name: 'events', description: 'What happened, with every delivery attempt; send one again. [History and redelivery](/docs/guides/integrate#history-and-redelivery)' },
        { name: 'test helpers', description: 'Test keys only: act as the customer and the provider. [Test mode](/docs/guides/integrate#test-mode)' },
        { name: 'webhook events', description: 'The events Till POSTs to your endpoints. [Verifying a delivery](/docs/guides/integrate#verifying-a-delivery) · [Delivery, retries and order](/docs/guides/integrate#delivery-retries-and-order)' },
      ],
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          secretKey: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer sk_test_…` (test mode) or `sk_live_…` (live mode)' },
          secretKeyBasic: { type: 'http', scheme: 'basic', description: 'HTTP Basic with the secret key as user name and an empty password: `curl -u sk_test_…:`' },
        },
      },
      // Either scheme authenticates (two entries: one or the other, not both).
      security: [{ secretKey: [] }, { secretKeyBasic: [] }],
    },
    // Shared schemas are named by their $id (components.schemas.Error), not def-<n>.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // OpenAPI 3.1's top-level webhooks: the events Till POSTs to merchants (api/reference/webhooks.ts).
    transformObject: (documentObject) => typedEnums({ ...deepObjects((documentObject as { openapiObject: object }).openapiObject), webhooks: webhookOperations() }) as never,
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? route.method[0] : route.method
      return { schema: documentOperation(schema as Schema, url, method, baseUrl) as never, url }
    },
  })
}

export const openApiRoute = async (app: FastifyInstance) => {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
