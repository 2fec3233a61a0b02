/**
 * A CLIENT span for each call to a provider's API (providers/observed.ts): the provider, the
 * operation and its outcome, nothing of what was sent (credentials, amounts, the payer).
 */
import { SpanStatusCode } from '@opentelemetry/api'
import type { CallObserver } from '../providers/observed.js'
import { SpanKind, startSpan } from './tracer.js'

export const traceProviderCall: CallObserver = (provider, operation) => {
  const span = startSpan(`${provider} ${operation}`, SpanKind.CLIENT, { 'till.provider': provider, 'till.provider.operation': operation })
  return (outcome) => {
    if (!span) return
    span.setAttribute('till.provider.outcome', outcome)
    if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome })
    span.end()
  }
}
