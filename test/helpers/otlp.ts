/**
 * OTLP/HTTP trace exports decoded with OpenTelemetry's own protobuf definitions (test/fixtures/otlp,
 * opentelemetry-proto v1.11.0) by protobufjs: what a collector would read, not what the SDK's
 * encoder believes it wrote. Ids come out as lowercase hex, attribute values as strings.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import type { Received } from './receiver.js'

const PROTOS = fileURLToPath(new URL('../fixtures/otlp', import.meta.url))

const root = new protobuf.Root()
// The definitions import each other by their path from the repository's root.
root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTOS, target))
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto')
const ExportTraceServiceRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest')

export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attrs: Record<string, string>
  service: string
}

interface KeyValue { key: string; value?: Record<string, unknown> }
const hex = (b: Uint8Array | undefined) => (b && b.length ? Buffer.from(b).toString('hex') : undefined)
const flatten = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((a) => [a.key, String(Object.values(a.value ?? {})[0])]))

/** Every span of one `application/x-protobuf` export body; throws on anything the definitions reject. */
export function decodeTraceExport(body: Buffer): OtlpSpan[] {
  const msg = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, enums: Number, defaults: false }) as {
    resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: (Omit<OtlpSpan, 'traceId' | 'spanId' | 'parentSpanId' | 'attrs' | 'service'> & { traceId: Uint8Array; spanId: Uint8Array; parentSpanId?: Uint8Array; attributes?: KeyValue[] })[] }[] }[]
  }
  return (msg.resourceSpans ?? []).flatMap((rs) => {
    const service = flatten(rs.resource?.attributes)['service.name']
    return (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []).map((s) => ({
      traceId: hex(s.traceId)!,
      spanId: hex(s.spanId)!,
      parentSpanId: hex(s.parentSpanId),
      name: s.name,
      kind: s.kind,
      attrs: flatten(s.attributes),
      service,
    }))
  })
}

/** Every span of every export a test's receiver got. */
export const exportedSpans = (exports: Received[]) => exports.flatMap((r) => decodeTraceExport(r.body))

/** An OTLP/HTTP receiver's answer: an empty ExportTraceServiceResponse is zero bytes. */
export const OTLP_OK = { status: 200, body: Buffer.alloc(0), headers: { 'content-type': 'application/x-protobuf' } }
