/**
 * Errors, after stripe-node's Error.ts: one TillError carrying what the service answered, thin
 * subclasses per status so callers can `instanceof`, and a connection error for "no answer at all".
 */
import type { ErrorBody, ErrorCode } from './types.js'

export interface TillErrorInit {
  status: number
  body: unknown
  headers?: Headers | null
  message?: string
  cause?: unknown
}

/** An answer from Till with a status of 400 or more (or, for TillConnectionError, no answer). */
export class TillError extends Error {
  /** The HTTP status; 0 when no answer arrived (TillConnectionError). */
  readonly status: number
  /**
   * The parsed JSON body, e.g. `{ error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 500 }`;
   * the text when not JSON (a proxy's page), null when no answer came.
   */
  readonly body: ErrorBody | string | null
  /** What to branch on (docs/errors.md lists every code); null when the answer carried none (not from Till). */
  readonly code: ErrorCode | null
  /** For invalid_field and unknown_field: the field, as a path (`metadata.order`). */
  readonly param: string | null
  /** For amount_exceeds_refundable and already_refunded: what is left to refund, in minor units. */
  readonly refundable: number | null
  /** The `Request-Id` header of the answer: quote it when asking for help. */
  readonly requestId: string | null
  readonly headers: Headers | null

  constructor(init: TillErrorInit) {
    super(init.message ?? messageOf(init.status, init.body), init.cause === undefined ? undefined : { cause: init.cause })
    this.name = new.target.name
    this.status = init.status
    this.body = (init.body ?? null) as ErrorBody | string | null
    const fields = typeof this.body === 'object' && this.body !== null ? (this.body as Partial<ErrorBody>) : {}
    this.code = typeof fields.code === 'string' ? fields.code : null
    this.param = typeof fields.param === 'string' ? fields.param : null
    const refundable = (fields as { refundable?: unknown }).refundable
    this.refundable = typeof refundable === 'number' ? refundable : null
    this.headers = init.headers ?? null
    this.requestId = this.headers?.get('request-id') ?? null
  }

  /** The class for a status: InvalidRequestError for 400, and so on; TillError for the rest (413, 5xx, …). */
  static fromResponse(status: number, body: unknown, headers: Headers): TillError {
    const Class = BY_STATUS[status] ?? TillError
    return new Class({ status, body, headers })
  }
}

/** 400: the request was refused as it stands (a field, `amount exceeds refundable`, a terminal session …). */
export class InvalidRequestError extends TillError {}
/** 401: the API key is missing, invalid or revoked. */
export class AuthenticationError extends TillError {}
/** 404: no such object for this key (another merchant's or the other mode's objects are 404 too). */
export class NotFoundError extends TillError {}
/** 409: a request with the same Idempotency-Key is still in progress (retried automatically). */
export class ConflictError extends TillError {}
/** 429: too many requests for this key (retried automatically, honouring Retry-After). */
export class RateLimitError extends TillError {
  /** Seconds the service asked to wait, from the Retry-After header. */
  get retryAfter(): number | null {
    const ms = parseRetryAfterMs(this.headers?.get('retry-after') ?? null, Date.now())
    return ms === null ? null : Math.ceil(ms / 1000)
  }
}
/** No answer: a network failure or a timeout, after the retries. The request may or may not have run. */
export class TillConnectionError extends TillError {
  readonly timedOut: boolean
  constructor(message: string, cause: unknown, timedOut: boolean) {
    super({ status: 0, body: null, message, cause })
    this.timedOut = timedOut
  }
}

const BY_STATUS: Record<number, typeof TillError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
}

function messageOf(status: number, body: unknown): string {
  const error = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined
  return typeof error === 'string' ? error : `HTTP ${status}`
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  // An HTTP date names a weekday and month; Date.parse alone would read "-5" as a year.
  const at = /[A-Za-z]{3}/.test(v) ? Date.parse(v) : NaN
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs)
}
