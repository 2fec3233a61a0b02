/**
 * Till's spans (docs/operate.md#tracing). Tracing is off unless the standard OTEL_* variables turn
 * it on (setup.ts); off, every helper here is one check of a null and a direct call, and the
 * OpenTelemetry SDK is never loaded. Attributes name what was done (a route, a statement's text
 * without its values, a provider and operation, an event type), never a credential or a payer.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api'

let tracer: Tracer | null = null

/** Called once the SDK is started (setup.ts), or by a test with its own provider. */
export function enableTracing(t: Tracer | null) {
  tracer = t
}

export const tracingOn = () => tracer !== null

/** Runs `fn` in a span, a child of the active one (or of `parent`); ends it with fn's outcome. */
export async function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span | null) => Promise<T>, parent?: Context): Promise<T> {
  if (!tracer) return fn(null)
  return tracer.startActiveSpan(name, { kind, attributes }, parent ?? context.active(), async (span) => {
    try {
      return await fn(span)
    } catch (e) {
      // The error's class only: messages can carry what a provider or the database echoed back.
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.name ?? 'Error' })
      throw e
    } finally {
      span.end()
    }
  })
}

/** A span started now and ended by the caller (for work whose end is signalled, not awaited). */
export function startSpan(name: string, kind: SpanKind, attributes: Attributes, parent?: Context): Span | null {
  return tracer ? tracer.startSpan(name, { kind, attributes }, parent ?? context.active()) : null
}

/** The active trace's id, for log lines; undefined when tracing is off or nothing is traced. */
export function activeTraceId(): string | undefined {
  if (!tracer) return undefined
  const sc = trace.getSpanContext(context.active())
  return sc && trace.isSpanContextValid(sc) ? sc.traceId : undefined
}

/** W3C trace context headers (traceparent, tracestate) for the active span: {} when off. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {}
  if (tracer) propagation.inject(context.active(), headers)
  return headers
}

/** The context an incoming request's W3C traceparent names, to continue its trace. */
export const incomingContext = (headers: Record<string, string | string[] | undefined>) => propagation.extract(context.active(), headers)

/** The active span's W3C traceparent, to store with work another process may pick up; null when off or untraced. */
export function activeTraceparent(): string | null {
  if (!tracer || !trace.getSpan(context.active())) return null
  return traceHeaders().traceparent ?? null
}

/** The context a stored traceparent names (a new trace when there is none). */
export const storedContext = (traceparent: string | null) => (traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT)

export { SpanKind }
