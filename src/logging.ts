/**
 * The process's one logger. A person at a terminal reads lines (pino-pretty); anything else (a
 * file, a pipe, a log collector) gets one JSON object per line. LOG_FORMAT=json|pretty overrides.
 */
import pino, { type Logger } from 'pino'
import pretty from 'pino-pretty'
import { activeTraceId } from './tracing/tracer.js'

export type LogFormat = 'json' | 'pretty'

export function chooseLogFormat(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean | undefined): LogFormat {
  const asked = env.LOG_FORMAT?.trim().toLowerCase()
  if (asked === 'json' || asked === 'pretty') return asked
  if (asked) throw new Error(`LOG_FORMAT must be json or pretty, got ${env.LOG_FORMAT}`)
  return stdoutIsTTY ? 'pretty' : 'json'
}

/** Credentials never reach a log line, whatever its format. */
const REDACT = ['req.headers.authorization', '*.password', '*.credentials']

export function createLogger(level: string, format: LogFormat, destination: NodeJS.WritableStream = process.stdout): Logger {
  // With tracing on, a line written inside a traced request or delivery names its trace.
  const options = { level, redact: REDACT, mixin: () => { const id = activeTraceId(); return id ? { trace_id: id } : {} } }
  if (format === 'json') return pino(options, destination)
  // Synchronous, so the lines written just before process.exit are not lost.
  return pino(options, pretty({ destination, sync: true, colorize: destination === process.stdout, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true }))
}
