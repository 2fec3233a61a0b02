/**
 * Which trace appended each event, so its webhook delivery continues that trace: kept in this
 * process's memory for the newest events only (a delivery made by another instance, or after a
 * restart, starts a trace of its own). Nothing is kept when tracing is off.
 */
import { context, SpanStatusCode, trace, type Context } from '@opentelemetry/api'
import { inSpan, SpanKind, tracingOn } from './tracer.js'

const MAX_KEPT = 10_000
const appendedIn = new Map<string, Context>()

/** Called when an event is appended (store/repos/events.ts). */
export function rememberEventTrace(eventId: string) {
  if (!tracingOn() || !trace.getSpan(context.active())) return
  appendedIn.set(eventId, context.active())
  if (appendedIn.size > MAX_KEPT) appendedIn.delete(appendedIn.keys().next().value!)
}

/** The context the event was appended in, when this process remembers it. */
export const eventTrace = (eventId: string): Context | undefined => appendedIn.get(eventId)

/**
 * A CLIENT span for one webhook delivery attempt, a child of the trace that appended its event
 * when this process remembers it: the event's type and id, the endpoint's id, the answer's status
 * (never the endpoint's address, whose query may hold a merchant's token). The merchant receives
 * this span's traceparent (traceHeaders in the attempt).
 */
export function traceDelivery<T extends { attempt: { statusCode: number | null }; status: string }>(
  c: { eventId: string; eventType: string; endpointId: string },
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return fn()
  const attributes = { 'till.event.id': c.eventId, 'till.event.type': c.eventType, 'till.webhook_endpoint.id': c.endpointId }
  return inSpan('webhook delivery', SpanKind.CLIENT, attributes, async (span) => {
    const r = await fn()
    if (r.attempt.statusCode !== null) span!.setAttribute('http.response.status_code', r.attempt.statusCode)
    span!.setAttribute('till.delivery.status', r.status)
    if (r.status !== 'delivered') span!.setStatus({ code: SpanStatusCode.ERROR, message: r.status })
    return r
  }, eventTrace(c.eventId))
}
