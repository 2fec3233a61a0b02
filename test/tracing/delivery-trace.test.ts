/**
 * A webhook delivery continues the trace of the request whose event it carries even when another
 * Till process sends it, later: the request's traceparent is stored with the event (migration 0017),
 * not kept in the memory of the process that served it.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { freshDatabase } from '../helpers/db.js'
import { exportedSpans, OTLP_OK, type OtlpSpan } from '../helpers/otlp.js'
import { api, dataDir, demoKey, startTill, stopTill } from '../helpers/process.js'
import { startReceiver } from '../helpers/receiver.js'
import { until } from '../helpers/wait.js'

test('a delivery sent by a Till process started after the request, not the one that served it, continues the request\'s trace', async (t) => {
  const otlp = await startReceiver(t, () => OTLP_OK)
  const merchant = await startReceiver(t)
  const db = await freshDatabase()
  t.after(() => db.drop())
  const tracing = (service: string) => ({
    DATABASE_URL: db.url,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: service,
  })
  const env = tracing('till-api')
  // The process serving the requests runs no jobs, so it never sends the webhook itself.
  const front = await startTill(dataDir(t), { ...env, TILL_JOBS: '0' })
  t.after(() => stopTill(front))
  const key = await demoKey(front)
  assert.equal((await api(front, 'POST', '/api/v1/webhook_endpoints', key, { url: merchant.url, events: ['payment.succeeded'] })).status, 201)
  const created = await api(front, 'POST', '/api/v1/checkout', key, { amount: 9900, currency: 'CNY' })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  const paid = await api(front, 'POST', `/api/v1/test_helpers/sessions/${created.body.id}/pay`, key, {})
  assert.equal(paid.body.status, 'paid', JSON.stringify(paid.body))
  let pay: OtlpSpan | undefined
  await until('the pay request\'s span is exported', 20_000, () => {
    pay = exportedSpans(otlp.requests).find((s) => s.name === 'POST /api/v1/test_helpers/sessions/:id/pay')
    return pay !== undefined
  })
  assert.equal(merchant.requests.length, 0, 'nothing sent before the worker starts')

  // A later process, sharing only the database (and the secrets key that opens the endpoint's secret).
  const worker = await startTill(dataDir(t), { ...tracing('till-worker'), SECRETS_KEY: env.SECRETS_KEY })
  t.after(() => stopTill(worker))
  const [webhook] = await merchant.received(1)
  let delivery: OtlpSpan | undefined
  await until('the delivery span is exported', 20_000, () => {
    delivery = exportedSpans(otlp.requests).find((s) => s.name === 'webhook delivery')
    return delivery !== undefined
  })
  assert.equal(delivery!.service, 'till-worker')
  assert.equal(delivery!.traceId, pay!.traceId)
  assert.equal(delivery!.parentSpanId, pay!.spanId)
  assert.equal(webhook.headers.traceparent, `00-${pay!.traceId}-${delivery!.spanId}-01`)
})
