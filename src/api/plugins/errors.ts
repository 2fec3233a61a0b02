/** One error handler for the JSON scopes: TillError → {"error": …, "code": …}; anything else a 500 without a stack. */
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance } from 'fastify'
import { InvalidJson, MethodNotAllowed, NotFound, PayloadTooLarge, TillError, ServiceUnavailable } from '../../domain/errors.js'
import { loggableError } from '../../logging.js'

// Socket errors (EPIPE: a query written to a connection the server just dropped), PostgreSQL's
// shutdown, crash-recovery and connection-failure codes (class 08), a write reaching a server that is
// read-only (25006: a demoted primary HAProxy still routes to, during a failover), a statement ended
// by statement_timeout (57014: a server too slow or stuck) and no connection slot left (53300): the
// database is away, not the request wrong.
const PG_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT',
  '57P01', '57P02', '57P03', '25006', '57014', '53300'])

export function isDatabaseDown(err: unknown): boolean {
  const e = err as { code?: string; message?: string; cause?: unknown }
  if (typeof e?.code === 'string' && (PG_UNAVAILABLE.has(e.code) || e.code.startsWith('08'))) return true
  // pg's own words for a lost connection or one that timed out (store/db.ts bounds both); "not
  // queryable" is the ROLLBACK after one (Drizzle throws that instead).
  if (typeof e?.message === 'string' && /timeout exceeded when trying to connect|Connection terminated|is not queryable|Query read timeout/.test(e.message)) return true
  return e?.cause ? isDatabaseDown(e.cause) : false
}

export function toTillError(err: FastifyError | Error): TillError | null {
  if (err instanceof TillError) return err
  const code = (err as FastifyError).code
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError) return new InvalidJson()
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLarge()
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new TillError(415, 'Content-Type must be application/json')
  if (code === 'FST_ERR_NOT_FOUND') return new NotFound()
  const status = (err as FastifyError).statusCode
  if (status && status >= 400 && status < 500) return new TillError(status, err.message)
  if (isDatabaseDown(err)) return new ServiceUnavailable()
  return null
}

/**
 * Requests Node refuses before Fastify sees them (headers over 16 KiB, a malformed request line),
 * answered in the API's error shape instead of Fastify's default body.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, reason, body] = err.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', { error: 'request headers too large', code: 'headers_too_large' }]
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', { error: 'request timeout', code: 'invalid_request' }]
      : [400, 'Bad Request', { error: 'bad request', code: 'invalid_request' }]
  const text = JSON.stringify(body)
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${text}`)
  socket.destroy(err)
}

/** A Till error's body as the API sends it: `{error, code}` with its extra fields (`param`); Retry-After goes in a header. */
export function errorBody(e: TillError): Record<string, unknown> {
  const { retryAfter: _, ...extra } = e.extra as { retryAfter?: number }
  return { error: e.message, code: e.code, ...extra }
}

export function registerJsonErrors(app: FastifyInstance) {
  app.setErrorHandler((err, req, reply) => {
    const known = toTillError(err as Error)
    if (known) {
      // A failed query's error quotes its SQL and parameters: only its kind and codes are logged.
      if (known.status >= 500) req.log.warn({ err: loggableError(err) }, known.message)
      const { retryAfter } = known.extra as { retryAfter?: number }
      if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter))
      if (known instanceof MethodNotAllowed) reply.header('Allow', known.allow.join(', '))
      return reply.code(known.status).send(errorBody(known))
    }
    req.log.error({ err: loggableError(err) }, 'unhandled error')
    return reply.code(500).send({ error: 'internal error', code: 'internal_error', requestId: req.id })
  })
}
