/**
 * Every error a client can see, with the spec's exact words in `error` and a stable `code` to branch
 * on (ERROR_CODES: the one table, listed in the OpenAPI document and docs/errors.md). Rendered once,
 * in api/plugins/errors.ts.
 */

/** Each code: its HTTP status, what it means, and what the caller should do. */
export const ERROR_CODES = {
  invalid_field: { status: 400, meaning: 'A field, query parameter or header is missing or invalid; `param` names it.', action: 'Fix the named field and send again.' },
  unknown_field: { status: 400, meaning: 'The body (or query) has a field this operation does not take; `param` names it.', action: 'Remove or correct the field (often a misspelling).' },
  invalid_json: { status: 400, meaning: 'The body is not well-formed JSON.', action: 'Send a JSON body with Content-Type: application/json.' },
  body_too_deep: { status: 400, meaning: 'The JSON body is nested more than 32 levels deep.', action: 'Send a flatter body (metadata is flat string pairs).' },
  amount_exceeds_refundable: { status: 400, meaning: 'The refund amount is more than what remains refundable; `refundable` says how much does.', action: 'Refund at most `refundable`, or omit `amount` to refund all of it.' },
  already_refunded: { status: 400, meaning: 'The record is refunded in full: nothing remains to refund (`refundable` is 0).', action: 'Nothing to do; read the record to see its refunds.' },
  partial_refund_unsupported: { status: 400, meaning: 'The record\'s provider refunds only the whole remaining amount.', action: 'Omit `amount` to refund everything that remains.' },
  session_terminal: { status: 400, meaning: 'The session is already paid, refunded, failed, canceled or expired: it cannot change this way.', action: 'Read the session; create a new one to collect again.' },
  refund_not_pending: { status: 400, meaning: 'The refund is already settled (test helpers settle only pending refunds).', action: 'Read the refund; only a pending one can be settled.' },
  provider_unavailable: { status: 400, meaning: 'No provider can take this session: an unknown provider or label in `providerHints`, a disabled configuration, an amount below its minimum, or none enabled for the currency in live mode.', action: 'Check `providerHints` and the provider configurations in the console.' },
  idempotency_mismatch: { status: 400, meaning: 'The Idempotency-Key was used before with a different request.', action: 'Use a new key for a new request; retry only with the same request.' },
  already_exists: { status: 400, meaning: 'Something with this name already exists (a provider label).', action: 'Choose another name, or change the existing one.' },
  limit_reached: { status: 400, meaning: 'A per-merchant limit is reached (webhook endpoints per mode, previous secrets signing beside an endpoint\'s current one).', action: 'Delete one you no longer need (expire the previous secrets).' },
  webhook_endpoint_unavailable: { status: 400, meaning: 'No enabled webhook endpoint can take this event (the one named is disabled, or none matches).', action: 'Enable or create an endpoint for the event type.' },
  invalid_request: { status: 400, meaning: 'The request cannot be served as sent.', action: 'Read `error` for the reason.' },
  missing_api_key: { status: 401, meaning: 'No `Authorization` header.', action: 'Send `Authorization: Bearer sk_…` (or HTTP Basic with the key as user name).' },
  invalid_api_key: { status: 401, meaning: 'The key is malformed, unknown or revoked (or the admin or metrics token is wrong).', action: 'Check the key; create a new one with `till keys create` or in the console.' },
  test_mode_only: { status: 404, meaning: 'Test helpers exist only for test keys; a live key was sent.', action: 'Call test helpers with an `sk_test_` key.' },
  not_found: { status: 404, meaning: 'No such object for this key (another merchant\'s, or the other mode\'s, is not found either), or no such path.', action: 'Check the id, and that the key is of the same merchant and mode.' },
  method_not_allowed: { status: 405, meaning: 'The path exists, but not with this method; `Allow` lists the methods it takes.', action: 'Use one of the methods in `Allow`.' },
  idempotency_in_flight: { status: 409, meaning: 'A request with this Idempotency-Key is still being processed.', action: 'Retry the same request a moment later: it then replays the first answer.' },
  email_in_use: { status: 409, meaning: 'The email is another merchant\'s console login (emails are compared ignoring case).', action: 'Use another email, or free it on the merchant that has it.' },
  conflict: { status: 409, meaning: 'The request conflicts with the object\'s current state.', action: 'Read the object and retry if it still applies.' },
  body_too_large: { status: 413, meaning: 'The body is over 64 KiB.', action: 'Send a smaller body.' },
  headers_too_large: { status: 431, meaning: 'The request line and headers together are over 16 KiB (typically a very long query string of metadata filters).', action: 'Send fewer or shorter filters.' },
  unsupported_media_type: { status: 415, meaning: 'The body is not sent as application/json.', action: 'Send Content-Type: application/json.' },
  rate_limited: { status: 429, meaning: 'Too many requests with this key.', action: 'Wait the seconds `Retry-After` gives, then retry.' },
  internal_error: { status: 500, meaning: 'Till failed; `requestId` identifies the request in its logs.', action: 'Retry with the same Idempotency-Key; report the requestId if it persists.' },
  service_unavailable: { status: 503, meaning: 'Till cannot reach its database.', action: 'Retry later, with the same Idempotency-Key.' },
} as const satisfies Record<string, { status: number; meaning: string; action: string }>

export type ErrorCode = keyof typeof ERROR_CODES

/** The code an error without its own has: the most general one of its status. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401: return 'invalid_api_key'
    case 404: return 'not_found'
    case 405: return 'method_not_allowed'
    case 409: return 'conflict'
    case 413: return 'body_too_large'
    case 415: return 'unsupported_media_type'
    case 431: return 'headers_too_large'
    case 429: return 'rate_limited'
    case 503: return 'service_unavailable'
    default: return status >= 500 ? 'internal_error' : 'invalid_request'
  }
}

export class TillError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly code: ErrorCode = codeForStatus(status),
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** A field error: `param` is the path of the field (`metadata.order`), the same one `error` names. */
export class InvalidField extends TillError {
  constructor(field: string, reason: string) {
    super(400, `${field}: ${reason}`, { param: field }, 'invalid_field')
  }
}
export class UnknownField extends TillError {
  constructor(name: string) {
    super(400, `unknown field: ${name}`, { param: name }, 'unknown_field')
  }
}
export class InvalidJson extends TillError {
  constructor() {
    super(400, 'invalid JSON body', {}, 'invalid_json')
  }
}
export class BodyTooDeep extends TillError {
  constructor() {
    super(400, 'request body nested too deeply', {}, 'body_too_deep')
  }
}
export class BadRequest extends TillError {
  constructor(message: string, code: ErrorCode = 'invalid_request') {
    super(400, message, {}, code)
  }
}
export class Unauthorized extends TillError {
  constructor(message = 'Unauthorized', code: ErrorCode = 'invalid_api_key') {
    super(401, message, {}, code)
  }
}
export class NotFound extends TillError {
  constructor() {
    super(404, 'Not found', {}, 'not_found')
  }
}
export class TestModeOnly extends TillError {
  constructor() {
    super(404, 'test helpers need a test key (sk_test_…)', {}, 'test_mode_only')
  }
}
export class MethodNotAllowed extends TillError {
  constructor(readonly allow: string[]) {
    super(405, 'method not allowed', {}, 'method_not_allowed')
  }
}
export class AmountExceedsRefundable extends TillError {
  constructor(refundable: number) {
    super(400, 'amount exceeds refundable', { refundable }, 'amount_exceeds_refundable')
  }
}
/** The spec's words and `refundable: 0`, as for any amount over it, with a code and a detail that say why. */
export class AlreadyRefunded extends TillError {
  constructor() {
    super(400, 'amount exceeds refundable', { refundable: 0, detail: 'the record is already refunded in full' }, 'already_refunded')
  }
}
export class SessionTerminal extends TillError {
  constructor(status: string) {
    super(400, `session is ${status}`, {}, 'session_terminal')
  }
}
export class IdempotencyMismatch extends TillError {
  constructor() {
    super(400, 'idempotency key reused with a different request', {}, 'idempotency_mismatch')
  }
}
export class IdempotencyInFlight extends TillError {
  constructor() {
    super(409, 'a request with this idempotency key is still in progress', {}, 'idempotency_in_flight')
  }
}
export class RateLimited extends TillError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate limit exceeded', { retryAfter: retryAfterSeconds }, 'rate_limited')
  }
}
export class PayloadTooLarge extends TillError {
  constructor() {
    super(413, 'request body too large', {}, 'body_too_large')
  }
}
export class Conflict extends TillError {
  constructor(message: string) {
    super(409, message, {}, 'conflict')
  }
}
export class EmailInUse extends TillError {
  constructor() {
    super(409, 'email is already in use', {}, 'email_in_use')
  }
}
/** Seconds a client is told to wait (Retry-After) before retrying while the database is away. */
export const UNAVAILABLE_RETRY_AFTER_S = 2

export class ServiceUnavailable extends TillError {
  constructor() {
    super(503, 'service unavailable', { retryAfter: UNAVAILABLE_RETRY_AFTER_S }, 'service_unavailable')
  }
}
