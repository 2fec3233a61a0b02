/**
 * The process's one logger. A person at a terminal reads lines (pino-pretty); anything else (a
 * file, a pipe, a log collector) gets one JSON object per line. LOG_FORMAT=json|pretty overrides.
 */
import pino, { type Logger as Pino } from 'pino'
import pretty from 'pino-pretty'
import { activeTraceId } from './tracing/tracer.js'

export type LogFormat = 'json' | 'pretty'

/** What the services and jobs log through: pino's logger, or a test's capture. */
export interface Logger {
  info(obj: unknown, msg?: string): void
  warn(obj: unknown, msg?: string): void
  error(obj: unknown, msg?: string): void
}

export function chooseLogFormat(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean | undefined): LogFormat {
  const asked = env.LOG_FORMAT?.trim().toLowerCase()
  if (asked === 'json' || asked === 'pretty') return asked
  if (asked) throw new Error(`LOG_FORMAT must be json or pretty, got ${env.LOG_FORMAT}`)
  return stdoutIsTTY ? 'pretty' : 'json'
}

/** Credentials never reach a log line, whatever its format. */
const REDACT = ['req.headers.authorization', '*.password', '*.credentials']

/** A one-time link's path ends in its secret (an invitation's, a password reset's): logged without it. */
const SECRET_PATH = /^(\/console\/(?:invitations|reset)\/)[^/?#]+/

/**
 * The request as a log line shows it: Fastify's own fields, the path without a link's secret (whoever
 * reads the logs could otherwise join the team or set a member's password with it).
 */
export const requestSerializer = (req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) =>
  ({ method: req.method, url: req.url.replace(SECRET_PATH, '$1…'), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort })

/** An error logged under `err`, by any caller: what loggableError keeps (a value made by it already, or not an error, as it is). */
const errorSerializer = (e: unknown) => (e instanceof Error ? loggableError(e) : e)

export function createLogger(level: string, format: LogFormat, destination: NodeJS.WritableStream = process.stdout): Pino {
  // With tracing on, a line written inside a traced request or delivery names its trace.
  const options = { level, redact: REDACT, serializers: { err: errorSerializer }, mixin: () => { const id = activeTraceId(); return id ? { trace_id: id } : {} } }
  if (format === 'json') return pino(options, destination)
  // Synchronous, so the lines written just before process.exit are not lost.
  return pino(options, pretty({ destination, sync: true, colorize: destination === process.stdout, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true }))
}

/**
 * What an unexpected error may print: its kind, codes and stack frames. A failed query's message,
 * parameters and PostgreSQL's detail carry the request's data (a merchant's metadata), never logged.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  const e = (err ?? {}) as { name?: string; message?: string; code?: unknown; stack?: string; cause?: unknown; routine?: unknown; constraint?: unknown }
  const frames = typeof e.stack === 'string' ? e.stack.split('\n').filter((l) => /^\s+at /.test(l)).join('\n') : undefined
  const out: Record<string, unknown> = { type: e.name ?? typeof err, code: e.code, routine: e.routine, constraint: e.constraint, stack: frames }
  // Drizzle's failed query quotes the SQL and its parameters; PostgreSQL's own message names the
  // problem, not the data ("unsupported Unicode escape sequence"), its detail and where are left out.
  if (!('params' in e) && !('query' in e)) out.message = e.message
  if (e.cause) out.cause = loggableError(e.cause)
  return out
}
