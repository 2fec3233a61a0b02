/**
 * Tracing end to end: a real Till process with the standard OTEL_* variables pointing at an
 * OTLP/HTTP receiver in this test, its protobuf exports decoded with OpenTelemetry's published
 * definitions (helpers/otlp.ts). One checkout-to-webhook trace, continued from the caller's W3C
 * traceparent: the requests, their database statements, the provider call and the webhook
 * delivery, each parented as it ran; the merchant's webhook carries the delivery's traceparent;
 * log lines carry the trace id; no attribute holds a secret. Without the variables, nothing is sent.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { SecretBox } from '../../src/security/secret-box.js'
import { freshDatabase } from '../helpers/db.js'
import { exportedSpans as spansOf, OTLP_OK, type OtlpSpan } from '../helpers/otlp.js'
import { api, dataDir, demoKey, startTill, stopTill } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'
import { until } from '../helpers/wait.js'

const hex = (n: number) => randomBytes(n).toString('hex')

test('one checkout-to-webhook trace: request, statements, provider call and delivery spans, parented, no secret in them', async (t) => {
  const otlp = await startReceiver(t, () => OTLP_OK)
  const merchant = await startReceiver(t)
  const db = await freshDatabase()
  t.after(() => db.drop())
  const secretsKey = hex(32)
  const till = await startTill(dataDir(t), {
    DATABASE_URL: db.url,
    SECRETS_KEY: secretsKey,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'till-under-test',
  })
  t.after(() => stopTill(till))
  const key = await demoKey(till)
  const endpoint = await api(till, 'POST', '/api/v1/webhook_endpoints', key, { url: merchant.url, events: ['payment.succeeded'] })
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body))

  // The caller's trace: both requests carry its traceparent, each from a span of its own.
  const traceId = hex(16)
  const callerSpans = [hex(8), hex(8)]
  const traced = async (n: number, method: string, path: string, body: unknown) => {
    const res = await fetch(till.base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpans[n]}-01` },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() }
  }
  const buyer = { email: 'payer@example.com', openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' }
  const created = await traced(0, 'POST', '/api/v1/checkout', { amount: 9900, currency: 'CNY', metadata: buyer })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const paid = await traced(1, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, {})
  assert.equal(paid.body.status, 'paid', JSON.stringify(paid.body))

  const [webhook] = await merchant.received(1)
  let spans: OtlpSpan[] = []
  await until('the delivery span is exported', 20_000, () => {
    spans = spansOf(otlp.requests).filter((s) => s.traceId === traceId)
    return spans.some((s) => s.name === 'webhook delivery')
  })
  assert.ok(otlp.requests.every((r) => r.url.endsWith('/v1/traces') && r.headers['content-type'] === 'application/x-protobuf'), 'OTLP/HTTP protobuf traces only')
  assert.ok(spans.every((s) => s.service === 'till-under-test'), 'the service named by OTEL_SERVICE_NAME')
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  const one = (name: string) => {
    const found = spans.filter((s) => s.name === name)
    assert.equal(found.length, 1, `${name}: ${spans.map((s) => s.name).join(', ')}`)
    return found[0]
  }

  // The requests continue the caller's spans.
  const checkout = one('POST /api/v1/checkout')
  const pay = one('POST /api/v1/test_helpers/sessions/:id/pay')
  assert.equal(checkout.parentSpanId, callerSpans[0])
  assert.equal(pay.parentSpanId, callerSpans[1])
  assert.deepEqual([checkout.attrs['http.route'], checkout.attrs['http.request.method'], checkout.attrs['http.response.status_code']], ['/api/v1/checkout', 'POST', '200'])

  // Statements under each request, with their text and no values.
  const statementsUnder = (parent: OtlpSpan) => spans.filter((s) => s.name.startsWith('db ') && s.parentSpanId === parent.spanId)
  for (const request of [checkout, pay]) assert.ok(statementsUnder(request).length >= 1, `statements under ${request.name}`)
  assert.ok(statementsUnder(checkout).some((s) => /^insert into "?sessions"?/i.test(s.attrs['db.query.text'])), 'the session insert')
  for (const s of spans.filter((s) => s.name.startsWith('db '))) assert.equal(s.attrs['db.system.name'], 'postgresql')

  // The provider call, under the request that made it.
  const call = one('mock createAttempt')
  assert.equal(call.parentSpanId, pay.spanId)
  assert.deepEqual([call.attrs['till.provider'], call.attrs['till.provider.operation'], call.attrs['till.provider.outcome']], ['mock', 'createAttempt', 'ok'])

  // The delivery continues the request that appended its event; the merchant gets its traceparent.
  const delivery = one('webhook delivery')
  assert.equal(delivery.parentSpanId, pay.spanId)
  assert.deepEqual([delivery.attrs['till.event.type'], delivery.attrs['http.response.status_code'], delivery.attrs['till.delivery.status']], ['payment.succeeded', '200', 'delivered'])
  assert.equal(webhook.headers.traceparent, `00-${traceId}-${delivery.spanId}-01`)
  for (const s of spans) assert.ok(!s.parentSpanId || byId.has(s.parentSpanId) || callerSpans.includes(s.parentSpanId), `${s.name}'s parent is in the trace`)

  // Log lines written inside the traced requests name the trace.
  const logged = till.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { trace_id?: string })
  assert.ok(logged.some((l) => l.trace_id === traceId), 'a log line with the trace id')

  // No secret, credential or payer's detail anywhere in what was exported, whatever its trace: the
  // raw protobuf bytes hold every string as UTF-8, so a search of them misses no attribute.
  const exported = Buffer.concat(otlp.requests.map((r) => r.body))
  const providerKey = new SecretBox(Buffer.from(secretsKey, 'hex')).derive('mock-provider-signing')
  const secrets = [key, key.slice(8), secretsKey, endpoint.body.secret, providerKey.toString('hex'), providerKey.toString('base64'), buyer.email, buyer.openid, db.url, 'Bearer']
  for (const secret of secrets) {
    assert.ok(secret && !exported.includes(secret), `an export holds ${String(secret).slice(0, 12)}…`)
  }
})

test('without the OTEL_* variables nothing is traced: no traceparent on webhooks, no trace_id in logs', async (t) => {
  const merchant = await startReceiver(t)
  const db = await freshDatabase()
  t.after(() => db.drop())
  const till = await startTill(dataDir(t), { DATABASE_URL: db.url, LOG_LEVEL: 'info', LOG_FORMAT: 'json' })
  t.after(() => stopTill(till))
  const key = await demoKey(till)
  assert.equal((await api(till, 'POST', '/api/v1/webhook_endpoints', key, { url: merchant.url, events: ['payment.succeeded'] })).status, 201)
  const created = await api(till, 'POST', '/api/v1/checkout', key, { amount: 9900, currency: 'CNY' })
  await api(till, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, key, {})
  const [webhook] = await merchant.received(1)
  assert.equal(webhook.headers.traceparent, undefined)
  assert.ok(!till.stdout().includes('trace_id'))
})
