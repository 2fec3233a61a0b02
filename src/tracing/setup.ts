/**
 * Starts OpenTelemetry's Node SDK when the standard variables ask for traces: an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER other
 * than `none`; OTEL_SDK_DISABLED=true keeps it off. The SDK reads the rest itself (protocol,
 * headers, sampler, service name). No automatic instrumentation: Till makes its own spans (tracer.ts).
 */
import { readFileSync } from 'node:fs'
import { trace } from '@opentelemetry/api'
import { enableTracing } from './tracer.js'

export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false
  if (env.OTEL_TRACES_EXPORTER) return env.OTEL_TRACES_EXPORTER !== 'none'
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version

/** Started SDK's shutdown (flushes spans not sent yet), or null when tracing is off. */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<(() => Promise<void>) | null> {
  if (!tracingWanted(env)) return null
  const { NodeSDK, resources } = await import('@opentelemetry/sdk-node')
  const sdk = new NodeSDK({
    // Service attributes only (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES): no host or process details in every span.
    resourceDetectors: [resources.envDetector],
    resource: resources.resourceFromAttributes({ 'service.version': VERSION, ...(env.OTEL_SERVICE_NAME ? {} : { 'service.name': 'till' }) }),
    instrumentations: [],
  })
  sdk.start()
  enableTracing(trace.getTracer('till', VERSION))
  return async () => {
    enableTracing(null)
    await sdk.shutdown()
  }
}
