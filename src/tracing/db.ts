/**
 * A CLIENT span for each database statement: its SQL text as sent (values travel apart as
 * parameters and are never recorded) and its outcome. Called by DbClient.query (store/db.ts).
 */
import { SpanStatusCode } from '@opentelemetry/api'
import { SpanKind, startSpan, tracingOn } from './tracer.js'

export { tracingOn }

/** The statement's first keyword, for the span's name (`SELECT`, `INSERT`, …). */
const verb = (text: string) => /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL'

/** Runs pg's query(...args) inside a span (the caller checks tracingOn() first); streams (Submittables) as they are. */
export function tracedQuery<T>(args: unknown[], run: (args: unknown[]) => T): T {
  const first = args[0] as string | { text?: string; submit?: unknown } | undefined
  const text = typeof first === 'string' ? first : first && typeof first.submit !== 'function' ? first.text : undefined
  const span = text === undefined ? null : startSpan(`db ${verb(text)}`, SpanKind.CLIENT, { 'db.system.name': 'postgresql', 'db.query.text': text })
  if (!span) return run(args)
  const end = (err: unknown) => {
    if (err) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code ?? 'error' })
    span.end()
  }
  const last = args.length - 1
  if (typeof args[last] === 'function') {
    const callback = args[last] as (err: unknown, ...rest: unknown[]) => void
    return run([...args.slice(0, last), (err: unknown, ...rest: unknown[]) => {
      end(err)
      callback(err, ...rest)
    }])
  }
  const result = run(args) as T & Promise<unknown>
  result.then(() => end(null), end)
  return result
}
