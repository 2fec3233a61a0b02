/** /api/v1/openapi.json: OpenAPI 3.1, generated from the same schemas that validate requests. */
import swagger from '@fastify/swagger'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { Type } from 'typebox'
import { ErrorBody, errorFor } from '../domain/resources.js'

const error = (status: number, description: string, extra: object = {}) => ({ ...errorFor(status, description), ...extra })

/**
 * Answers any merchant API operation may give besides its own, so the document lists every status
 * a client can meet (the fuzzer in scripts/fuzz.sh holds the service to it). Applied to the
 * document only: the routes' own schemas keep validating and serialising as they are.
 */
const EVERY_OPERATION = {
  429: error(429, 'rate limit exceeded: wait the seconds Retry-After gives', {
    headers: { 'Retry-After': Type.Integer({ minimum: 1, description: 'seconds until the key may send again' }) },
  }),
  500: error(500, 'internal error: `{"error":"internal error","requestId"}`, never a stack'),
  503: error(503, 'service unavailable: the database cannot be reached; retry later'),
  431: error(431, 'request line and headers over 16 KiB (Node\'s limit): a very long query string'),
}
const WITH_BODY = {
  400: error(400, 'the request is invalid: `{"error":"<field>: <reason>"}`, `unknown field: <name>` or `invalid JSON body`'),
  413: error(413, 'request body over 64 KiB'),
  415: error(415, 'Content-Type is not application/json'),
}
const IDEMPOTENCY_KEY = Type.Object({
  'Idempotency-Key': Type.Optional(Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'kept 24 h: a retry with the same key and request replays the first answer (Idempotent-Replayed: true)',
  })),
})

type Schema = FastifySchema & { hide?: boolean; response?: Record<string, unknown> }

export function documentOperation(schema: Schema | undefined, url: string, method: string): Schema {
  // The hosted pages and other HTML routes are not part of the REST API.
  if (!url.startsWith('/api/v1/')) return { ...schema, hide: true }
  const s: Schema = { ...schema, response: { ...schema?.response, ...EVERY_OPERATION } }
  if (method === 'POST' || method === 'PATCH' || method === 'DELETE') {
    s.response = { ...WITH_BODY, ...s.response, 413: WITH_BODY[413], 415: WITH_BODY[415] }
  }
  if (method === 'POST' && !s.headers) s.headers = IDEMPOTENCY_KEY
  return s
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

export async function registerOpenApi(app: FastifyInstance, baseUrl: string) {
  // components.schemas.Error: every code in one enum, for clients to name the type.
  app.addSchema(ErrorBody)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Till API',
        version: '1.0.0',
        description: 'Hosted-checkout payments. Every amount is an integer in the currency\'s minor unit. Authenticate with `Authorization: Bearer sk_test_…` or `sk_live_…`, or with HTTP Basic, the key as user name (`curl -u sk_test_…:`). Every POST accepts an `Idempotency-Key` header.',
      },
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
    transformObject: (documentObject) => deepObjects((documentObject as { openapiObject: object }).openapiObject),
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? route.method[0] : route.method
      return { schema: documentOperation(schema as Schema, url, method) as never, url }
    },
  })
}

export const openApiRoute = async (app: FastifyInstance) => {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
