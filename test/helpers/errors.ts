/**
 * The error body a message comes with: `error` as given, the `code` its kind has, and `param` for a
 * field error. Written from the messages' documented shapes, independently of src/domain/errors.ts,
 * so that a wrong code there fails the tests that use it.
 */
const BY_MESSAGE: [RegExp, string][] = [
  [/^Not found$/, 'not_found'],
  [/^invalid JSON body$/, 'invalid_json'],
  [/^amount exceeds refundable$/, 'amount_exceeds_refundable'],
  [/^session is /, 'session_terminal'],
  [/^refund is /, 'refund_not_pending'],
  [/^idempotency key reused with a different request$/, 'idempotency_mismatch'],
  [/^missing API key/, 'missing_api_key'],
  [/^invalid (API key|admin token|metrics token)$/, 'invalid_api_key'],
  [/^rate limit exceeded$/, 'rate_limited'],
  [/^request body too large$/, 'body_too_large'],
  [/^Content-Type must be application\/json$/, 'unsupported_media_type'],
  [/^(no provider available for |unknown provider in hints: |provider \S+ not available: )/, 'provider_unavailable'],
  [/ already exists$/, 'already_exists'],
  [/^email is already in use$/, 'email_in_use'],
  [/^at most \d+ webhook endpoints per mode$/, 'limit_reached'],
]

export function errorBody(error: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const unknown = /^unknown field: (.+)$/.exec(error)
  if (unknown) return { error, code: 'unknown_field', param: unknown[1], ...extra }
  const known = BY_MESSAGE.find(([re]) => re.test(error))
  if (known) return { error, code: known[1], ...extra }
  const field = /^([^\s:]+): /.exec(error)
  if (field) return { error, code: 'invalid_field', param: field[1], ...extra }
  throw new Error(`no code known for ${JSON.stringify(error)}`)
}
