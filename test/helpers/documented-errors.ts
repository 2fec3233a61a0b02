/**
 * Every test app holds its API to its document: an error answer whose code the operation's OpenAPI
 * entry does not list fails the test that provoked it. With test/api/operation-errors.test.ts, which
 * provokes every listed code on every operation, the lists cannot drift from what the routes answer.
 */
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { documentedCodes } from '../../src/api/openapi.js'

export function guardDocumentedErrors(t: TestContext, app: FastifyInstance) {
  const undocumented = new Set<string>()
  app.addHook('onSend', async (req, reply, payload) => {
    const url = req.routeOptions.url
    const schema = req.routeOptions.schema as Parameters<typeof documentedCodes>[0] & { hide?: boolean }
    if (!url?.startsWith('/api/v1/') || schema?.hide || reply.statusCode < 400 || typeof payload !== 'string') return payload
    let code: unknown
    try {
      code = JSON.parse(payload).code
    } catch {}
    const method = req.method === 'HEAD' ? 'GET' : req.method
    const listed = documentedCodes(schema, method).get(reply.statusCode) ?? []
    if (!listed.includes(code as never)) undocumented.add(`${method} ${url} answered ${reply.statusCode} ${String(code)}`)
    return payload
  })
  t.after(() => assert.deepEqual([...undocumented], [], 'every error code an operation answers is in its OpenAPI entry'))
}
