/** /api/v1/openapi.json: OpenAPI 3.1, generated from the same schemas that validate requests. */
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'

export async function registerOpenApi(app: FastifyInstance, baseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Till API',
        version: '1.0.0',
        description: 'Hosted-checkout payments. Every amount is an integer in the currency\'s minor unit. Authenticate with `Authorization: Bearer sk_test_…` or `sk_live_…`. Every POST accepts an `Idempotency-Key` header.',
      },
      servers: [{ url: baseUrl }],
      components: { securitySchemes: { secretKey: { type: 'http', scheme: 'bearer' } } },
      security: [{ secretKey: [] }],
    },
  })
}

export const openApiRoute = async (app: FastifyInstance) => {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
