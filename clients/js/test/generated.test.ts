/**
 * The client's types are generated from the service's OpenAPI document. When an endpoint or schema
 * changes, this fails until `npm run clients:gen` has been run and its output committed.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { OPENAPI_JSON, OPENAPI_TS, generateClientFiles } from '../../../scripts/gen-client-types.js'

const STALE = 'is not what the service generates now: run `npm run clients:gen` and commit the result'

test('clients/openapi.json and the generated types match the service', async () => {
  const fresh = await generateClientFiles()
  assert.ok(fresh.ts.includes('"/api/v1/checkout"'), 'the generation itself works')
  assert.equal(readFileSync(OPENAPI_JSON, 'utf8'), fresh.json, `clients/openapi.json ${STALE}`)
  assert.equal(readFileSync(OPENAPI_TS, 'utf8'), fresh.ts, `clients/js/src/generated/openapi.ts ${STALE}`)
})
