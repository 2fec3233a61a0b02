/**
 * A SERVER span for every request, continuing the trace of an incoming W3C `traceparent`; the rest
 * of the request (hooks, handler, the statements and provider calls it makes) runs inside it. Its
 * attributes: the method, the route's pattern (never the path's ids or the query) and the status.
 */
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { incomingContext, SpanKind, startSpan, tracingOn } from './tracer.js'

const spans = new WeakMap<FastifyRequest, Span>()

export function registerRequestTracing(app: FastifyInstance) {
  if (!tracingOn()) return
  app.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions?.url ?? 'unknown'
    const parent = incomingContext(req.headers)
    const span = startSpan(`${req.method} ${route}`, SpanKind.SERVER, { 'http.request.method': req.method, 'http.route': route }, parent)!
    spans.set(req, span)
    // What follows this hook is called from `done`, so it runs (and awaits) in the span's context.
    context.with(trace.setSpan(parent, span), done)
  })
  app.addHook('onResponse', async (req, reply) => {
    const span = spans.get(req)
    if (!span) return
    span.setAttribute('http.response.status_code', reply.statusCode)
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end()
  })
}
