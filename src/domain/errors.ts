/** Every error a client can see, with the spec's exact words. Rendered once, in api/plugins/errors.ts. */
export class TillError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = new.target.name
  }
}

export class InvalidField extends TillError {
  constructor(field: string, reason: string) {
    super(400, `${field}: ${reason}`)
  }
}
export class UnknownField extends TillError {
  constructor(name: string) {
    super(400, `unknown field: ${name}`)
  }
}
export class InvalidJson extends TillError {
  constructor() {
    super(400, 'invalid JSON body')
  }
}
export class BodyTooDeep extends TillError {
  constructor() {
    super(400, 'request body nested too deeply')
  }
}
export class BadRequest extends TillError {
  constructor(message: string) {
    super(400, message)
  }
}
export class Unauthorized extends TillError {
  constructor() {
    super(401, 'Unauthorized')
  }
}
export class NotFound extends TillError {
  constructor() {
    super(404, 'Not found')
  }
}
export class AmountExceedsRefundable extends TillError {
  constructor(refundable: number) {
    super(400, 'amount exceeds refundable', { refundable })
  }
}
export class SessionTerminal extends TillError {
  constructor(status: string) {
    super(400, `session is ${status}`)
  }
}
export class IdempotencyMismatch extends TillError {
  constructor() {
    super(400, 'idempotency key reused with a different request')
  }
}
export class IdempotencyInFlight extends TillError {
  constructor() {
    super(409, 'a request with this idempotency key is still in progress')
  }
}
export class RateLimited extends TillError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate limit exceeded', { retryAfter: retryAfterSeconds })
  }
}
export class PayloadTooLarge extends TillError {
  constructor() {
    super(413, 'request body too large')
  }
}
export class Conflict extends TillError {
  constructor(message: string) {
    super(409, message)
  }
}
export class ServiceUnavailable extends TillError {
  constructor() {
    super(503, 'service unavailable')
  }
}
