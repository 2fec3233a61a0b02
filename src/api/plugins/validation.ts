/**
 * Request validation with the spec's message shapes: `unknown field: <name>` and
 * `<field>: <reason>`, one message naming the first bad field. Bodies are never coerced
 * (a numeric string is not an amount); path and query parameters are.
 */
import Ajv, { type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { InvalidField, NotFound, UnknownField } from '../../domain/errors.js'

const strict = addFormats.default(new Ajv.default({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false, strict: false }))
const coercing = addFormats.default(new Ajv.default({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false }))

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  object: 'an object',
  boolean: 'a boolean',
  array: 'an array',
}

function fieldPath(instancePath: string, root: string): string {
  const p = instancePath.replace(/^\//, '').replace(/\//g, '.')
  return p || root
}

export function describe(err: ErrorObject, root: string): InvalidField | UnknownField {
  const field = fieldPath(err.instancePath, root)
  const p = err.params as Record<string, unknown>
  switch (err.keyword) {
    case 'additionalProperties':
      return new UnknownField(err.instancePath ? `${field}.${p.additionalProperty}` : String(p.additionalProperty))
    case 'required':
      return new InvalidField(err.instancePath ? `${field}.${p.missingProperty}` : String(p.missingProperty), 'is required')
    case 'type': {
      const types = String(p.type).split(',')
      return new InvalidField(field, `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`)
    }
    case 'minimum':
      return new InvalidField(field, `must be at least ${p.limit}`)
    case 'maximum':
      return new InvalidField(field, `must be at most ${p.limit}`)
    case 'minLength':
      return new InvalidField(field, p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`)
    case 'maxLength':
      return new InvalidField(field, `must be at most ${p.limit} characters`)
    case 'minItems':
      return new InvalidField(field, p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} items`)
    case 'uniqueItems':
      return new InvalidField(field, 'must not repeat an item')
    case 'maxProperties':
      return new InvalidField(field, `must have at most ${p.limit} keys`)
    case 'enum':
      return new InvalidField(field, `must be one of ${(p.allowedValues as unknown[]).join(', ')}`)
    case 'const':
      return new InvalidField(field, `must be ${p.allowedValue}`)
    case 'pattern':
      return new InvalidField(field, 'is malformed')
    case 'format':
      return new InvalidField(field, `must be a valid ${p.format}`)
    default:
      return new InvalidField(field, err.message ?? 'is invalid')
  }
}

type Schema = { properties?: Record<string, unknown>; additionalProperties?: unknown }

/** Unknown fields are named before anything else: a misspelt field explains the rest. */
function firstUnknown(schema: Schema, data: unknown): string | null {
  if (schema.additionalProperties !== false || !schema.properties) return null
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null
  return Object.keys(data).find((k) => !Object.hasOwn(schema.properties!, k)) ?? null
}

export const validatorCompiler: FastifySchemaCompiler<Schema> = ({ schema, httpPart }) => {
  const body = httpPart === 'body'
  const validate = (body ? strict : coercing).compile(schema)
  const root = body ? 'body' : httpPart === 'params' ? 'path' : httpPart ?? 'request'
  return (data: unknown) => {
    if (body) {
      const unknown = firstUnknown(schema, data)
      if (unknown) return { error: new UnknownField(unknown) }
    }
    // No body at all (Fastify passes null) reads as an empty object: optional-only bodies pass, required fields are named.
    const valid = validate(body && data == null ? {} : data)
    const bad = valid ? badString(data, '') : null
    // A path that fails its schema (too long, NUL) names no resource: 404, as an unknown id does.
    if (httpPart === 'params' && (!valid || bad !== null)) return { error: new NotFound() }
    if (bad !== null) return { error: new InvalidField(bad.path || root, bad.reason) }
    // The handler gets the empty object it was validated as, never null (PATCH with no body at all).
    if (valid) return { value: body && data == null ? {} : data }
    return { error: describe(validate.errors![0], root) }
  }
}

const NUL = 'must not contain NUL characters'
// With the u flag a well-formed pair is one code point: only an unpaired surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u
const ILL_FORMED = 'must be well-formed Unicode (no unpaired surrogates)'

function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return NUL
  if (LONE_SURROGATE.test(s)) return ILL_FORMED
  return null
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, jsonb refuses an unpaired surrogate and text stores
 * it as U+FFFD: the field holding one is named here, not a 500 (or a silent change) from the database.
 */
function badString(data: unknown, path: string): { path: string; reason: string } | null {
  if (typeof data === 'string') {
    const reason = stringProblem(data)
    return reason ? { path, reason } : null
  }
  if (data === null || typeof data !== 'object') return null
  for (const [k, v] of Object.entries(data)) {
    const reason = stringProblem(k)
    if (reason) return { path, reason }
    const found = badString(v, path ? `${path}.${k}` : k)
    if (found !== null) return found
  }
  return null
}
