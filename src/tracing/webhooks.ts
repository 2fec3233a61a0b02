/**
 * A CLIENT span for each webhook delivery attempt, a child of the span that appended its event:
 * its W3C traceparent is stored with the event (store/repos/events.ts), so the delivery continues
 * that trace in whichever Till process sends it, and however many attempts later. The span's
 * attributes: the event's type and id, the endpoint's id, the answer's status (never the endpoint's
 * address, whose query may hold a merchant's token). The merchant receives this span's traceparent
 * (traceHeaders in the attempt).
 */
import { SpanStatusCode } from '@opentelemetry/api'
import { inSpan, SpanKind, storedContext, tracingOn } from './tracer.js'

export function traceDelivery<T extends { attempt: { statusCode: number | null }; status: string }>(
  c: { eventId: string; eventType: string; endpointId: string; traceparent: string | null },
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
  }, storedContext(c.traceparent))
}
