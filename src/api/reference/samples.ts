/**
 * Code samples for every operation of the reference, as OpenAPI `x-codeSamples` (which Redoc shows
 * in tabs): curl, Node, Python and Go, each a whole program against the Till that serves the
 * document, the secret key read from TILL_SECRET_KEY. test/docs/samples.test.ts runs every one of
 * them (the Go ones compiled) against a real Till, the example ids below replaced by real ones.
 */
import { CLIENT_NAMES } from './clients.js'

/** The ids the samples use; a test run puts real ones in their place. */
export const EXAMPLE_IDS = {
  sess: 'sess_3kTqW8zN1vRb5yLm2HxJ0aPd',
  rec: 'rec_7Gd2KpX9mQ4sVw1yZ3bN6cHf',
  ref: 'ref_5Hn8LqR2tW6xY0aC4eG7iK9m',
  we: 'we_9Bc4Fh7Jk2Mn5Pq8Rs1Tv6Wx',
  evt: 'evt_2Wd9Lm4Qx7Rt1Yb5Nc8Kv3Zp',
  plink: 'plink_4Rt8Yc2Wq6Np1Lm9Kb3Xv7Hd',
} as const
const { sess: SESS, rec: REC, ref: REF, we: WE, evt: EVT, plink: PLINK } = EXAMPLE_IDS

interface OpSample {
  /** curl's query parameters (GET) or JSON body; an object value is sent as `name[key]=value`. */
  data?: Record<string, unknown>
  /** Sent as Idempotency-Key by curl, as every POST may. */
  idempotencyKey?: string
  node: string
  python: string
  /** The body of main(), after `client` and `ctx`; it must print with fmt and stop on an error with log. */
  go: string
}

const fail = 'if err != nil {\n\tlog.Fatal(err)\n}'
const goGet = (call: string, print: string) => `${call}\n${fail}\n${print}`
const goEach = (call: string, print: string) => `it := ${call}\nfor it.Next() {\n\t${print}\n}\nif err := it.Err(); err != nil {\n\tlog.Fatal(err)\n}`

const helper = (what: 'sessions' | 'refunds', action: string, id: string, goType: string, print: [string, string, string]): OpSample => ({
  node: `const result = await till.testHelpers.${what}.${action}('${id}')\nconsole.log(${print[0]})`,
  python: `result = till.test_helpers.${what}.${action}("${id}")\nprint(${print[1]})`,
  go: goGet(`result, err := client.TestHelpers.${goType}.${action[0].toUpperCase()}${action.slice(1)}(ctx, "${id}", nil)`, `fmt.Println(${print[2]})`),
})
const sessionHelper = (action: string) => helper('sessions', action, SESS, 'Sessions', ['result.id, result.status', 'result.id, result.status', 'result.ID, result.Status'])
const refundHelper = (action: string) => helper('refunds', action, REF, 'Refunds', ['result.refund.id, result.refund.status', 'result.refund.id, result.refund.status', 'result.Refund.ID, result.Refund.Status'])

/** The merchant closes an open session; an Idempotency-Key of its own data makes a retry answer the same. */
const closeSample = (how: 'cancel' | 'expire', key: string): OpSample => ({
  idempotencyKey: key,
  node: `const session = await till.sessions.${how}('${SESS}', { idempotencyKey: '${key}' })
console.log(session.id, session.status)`,
  python: `session = till.sessions.${how}("${SESS}", idempotency_key="${key}")
print(session.id, session.status)`,
  go: goGet(`session, err := client.Sessions.${how[0].toUpperCase()}${how.slice(1)}(ctx, "${SESS}", &till.Params{IdempotencyKey: "${key}"})`, 'fmt.Println(session.ID, session.Status)'),
})

const SAMPLES: Record<string, OpSample> = {
  'POST /api/v1/checkout': {
    data: { amount: 9900, currency: 'CNY', description: 'Order A-1042', metadata: { order_id: 'A-1042' }, successUrl: 'https://shop.example/orders/A-1042/done', customerEmail: 'buyer@example.com' },
    idempotencyKey: 'checkout-A-1042',
    node: `const session = await till.createCheckout({
  amount: 9900, // ¥99.00
  currency: 'CNY',
  description: 'Order A-1042',
  metadata: { order_id: 'A-1042' },
  successUrl: 'https://shop.example/orders/A-1042/done',
  customerEmail: 'buyer@example.com', // the receipt goes there once paid
})
console.log(session.id, session.url) // send the customer to session.url`,
    python: `session = till.create_checkout(
    amount=9900,  # ¥99.00
    currency="CNY",
    description="Order A-1042",
    metadata={"order_id": "A-1042"},
    success_url="https://shop.example/orders/A-1042/done",
    customer_email="buyer@example.com",  # the receipt goes there once paid
)
print(session.id, session.url)  # send the customer to session.url`,
    go: goGet(`session, err := client.CreateCheckout(ctx, &till.CheckoutParams{
	Amount:        9900, // ¥99.00
	Currency:      till.CNY,
	Description:   "Order A-1042",
	Metadata:      map[string]string{"order_id": "A-1042"},
	SuccessURL:    "https://shop.example/orders/A-1042/done",
	CustomerEmail: "buyer@example.com", // the receipt goes there once paid
})`, 'fmt.Println(session.ID, session.URL) // send the customer to session.URL'),
  },
  'GET /api/v1/sessions': {
    data: { limit: 3, status: 'paid', metadata: { order_id: 'A-1042' } },
    node: `const page = await till.sessions.list({ limit: 3, status: 'paid', metadata: { order_id: 'A-1042' } })
for (const session of page.data) console.log(session.id, session.amount, session.currency)
console.log('more:', page.hasMore)`,
    python: `page = till.sessions.list(limit=3, status="paid", metadata={"order_id": "A-1042"})
for session in page.data:
    print(session.id, session.amount, session.currency)
print("more:", page.has_more)`,
    go: goEach(`client.Sessions.List(ctx, &till.SessionListParams{
	ListParams: till.ListParams{Limit: 3},
	Status:     till.SessionPaid,
	Metadata:   map[string]string{"order_id": "A-1042"},
})`, 's := it.Current()\n\tfmt.Println(s.ID, s.Amount, s.Currency)'),
  },
  'GET /api/v1/sessions/{id}': {
    node: `const session = await till.getSession('${SESS}')
console.log(session.status, session.record?.id)`,
    python: `session = till.get_session("${SESS}")
print(session.status, session.record.id if session.record else None)`,
    go: goGet(`session, err := client.GetSession(ctx, "${SESS}")`, 'fmt.Println(session.Status, session.Record)'),
  },
  'POST /api/v1/sessions/{id}/cancel': closeSample('cancel', 'order-A-1042-canceled'),
  'POST /api/v1/sessions/{id}/expire': closeSample('expire', 'order-A-1042-expired'),
  'POST /api/v1/refunds': {
    data: { recordId: REC, amount: 2500, reason: 'damaged in transit' },
    idempotencyKey: 'refund-A-1042-1',
    node: `const record = await till.refund({ recordId: '${REC}', amount: 2500, reason: 'damaged in transit' })
console.log(record.refund.status, record.refundedAmount)`,
    python: `record = till.refund("${REC}", amount=2500, reason="damaged in transit")
print(record.refund.status, record.refunded_amount)`,
    go: goGet(`record, err := client.Refund(ctx, &till.RefundParams{RecordID: "${REC}", Amount: till.Int64(2500), Reason: "damaged in transit"})`,
      'fmt.Println(record.Refund.Status, record.RefundedAmount)'),
  },
  'GET /api/v1/refunds': {
    data: { record_id: REC, limit: 10 },
    node: `const page = await till.refunds.list({ record_id: '${REC}', limit: 10 })
for (const refund of page.data) console.log(refund.id, refund.amount, refund.status)`,
    python: `page = till.refunds.list(record_id="${REC}", limit=10)
for refund in page.data:
    print(refund.id, refund.amount, refund.status)`,
    go: goEach(`client.Refunds.List(ctx, &till.RefundListParams{RecordID: "${REC}", ListParams: till.ListParams{Limit: 10}})`,
      'r := it.Current()\n\tfmt.Println(r.ID, r.Amount, r.Status)'),
  },
  'GET /api/v1/refunds/{id}': {
    node: `const refund = await till.refunds.retrieve('${REF}')
console.log(refund.status, refund.amount)`,
    python: `refund = till.refunds.retrieve("${REF}")
print(refund.status, refund.amount)`,
    go: goGet(`refund, err := client.Refunds.Get(ctx, "${REF}")`, 'fmt.Println(refund.Status, refund.Amount)'),
  },
  'GET /api/v1/records': {
    data: { limit: 3, status: 'paid' },
    node: `const page = await till.records.list({ limit: 3, status: 'paid' })
for (const record of page.data) console.log(record.id, record.amount, record.refundedAmount)`,
    python: `page = till.records.list(limit=3, status="paid")
for record in page.data:
    print(record.id, record.amount, record.refunded_amount)`,
    go: goEach('client.Records.List(ctx, &till.RecordListParams{ListParams: till.ListParams{Limit: 3}, Status: till.RecordPaid})',
      'r := it.Current()\n\tfmt.Println(r.ID, r.Amount, r.RefundedAmount)'),
  },
  'GET /api/v1/records/{id}': {
    node: `const record = await till.records.retrieve('${REC}')
console.log(record.status, record.amount, record.refunds.length)`,
    python: `record = till.records.retrieve("${REC}")
print(record.status, record.amount, len(record.refunds))`,
    go: goGet(`record, err := client.Records.Get(ctx, "${REC}")`, 'fmt.Println(record.Status, record.Amount, len(record.Refunds))'),
  },
  'POST /api/v1/test_helpers/sessions/{id}/pay': sessionHelper('pay'),
  'POST /api/v1/test_helpers/sessions/{id}/fail': sessionHelper('fail'),
  'POST /api/v1/test_helpers/sessions/{id}/cancel': sessionHelper('cancel'),
  'POST /api/v1/test_helpers/sessions/{id}/expire': sessionHelper('expire'),
  'POST /api/v1/test_helpers/refunds/{id}/succeed': refundHelper('succeed'),
  'POST /api/v1/test_helpers/refunds/{id}/fail': refundHelper('fail'),
  'POST /api/v1/webhook_endpoints': {
    data: { url: 'https://shop.example/till/webhooks', events: ['payment.succeeded', 'refund.succeeded'] },
    node: `const endpoint = await till.webhookEndpoints.create({
  url: 'https://shop.example/till/webhooks',
  events: ['payment.succeeded', 'refund.succeeded'],
})
console.log(endpoint.id, endpoint.secret) // store the secret: it is shown only now`,
    python: `endpoint = till.webhook_endpoints.create(
    url="https://shop.example/till/webhooks",
    events=["payment.succeeded", "refund.succeeded"],
)
print(endpoint.id, endpoint.secret)  # store the secret: it is shown only now`,
    go: goGet(`endpoint, err := client.WebhookEndpoints.Create(ctx, &till.WebhookEndpointParams{
	URL:    "https://shop.example/till/webhooks",
	Events: []till.EventType{till.EventPaymentSucceeded, till.EventRefundSucceeded},
})`, 'fmt.Println(endpoint.ID, endpoint.Secret) // store the secret: it is shown only now'),
  },
  'GET /api/v1/webhook_endpoints': {
    node: `const { data } = await till.webhookEndpoints.list()
for (const e of data) console.log(e.id, e.url, e.enabled, e.health.recentSuccessRate)`,
    python: `for e in till.webhook_endpoints.list().data:
    print(e.id, e.url, e.enabled, e.health.recent_success_rate)`,
    go: goEach('client.WebhookEndpoints.List(ctx)', 'e := it.Current()\n\tfmt.Println(e.ID, e.URL, e.Enabled, e.Health.RecentSuccessRate)'),
  },
  'GET /api/v1/webhook_endpoints/{id}': {
    node: `const endpoint = await till.webhookEndpoints.retrieve('${WE}')
console.log(endpoint.enabled, endpoint.health.lastFailureReason)`,
    python: `endpoint = till.webhook_endpoints.retrieve("${WE}")
print(endpoint.enabled, endpoint.health.last_failure_reason)`,
    go: goGet(`endpoint, err := client.WebhookEndpoints.Get(ctx, "${WE}")`, 'fmt.Println(endpoint.Enabled, endpoint.Health.LastFailureReason)'),
  },
  'PATCH /api/v1/webhook_endpoints/{id}': {
    data: { enabled: true },
    node: `const endpoint = await till.webhookEndpoints.update('${WE}', { enabled: true })
console.log(endpoint.enabled)`,
    python: `endpoint = till.webhook_endpoints.update("${WE}", enabled=True)
print(endpoint.enabled)`,
    go: goGet(`endpoint, err := client.WebhookEndpoints.Update(ctx, "${WE}", &till.WebhookEndpointUpdateParams{Enabled: till.Bool(true)})`, 'fmt.Println(endpoint.Enabled)'),
  },
  'DELETE /api/v1/webhook_endpoints/{id}': {
    node: `const result = await till.webhookEndpoints.delete('${WE}')
console.log(result.deleted)`,
    python: `result = till.webhook_endpoints.delete("${WE}")
print(result.deleted)`,
    go: goGet(`result, err := client.WebhookEndpoints.Delete(ctx, "${WE}")`, 'fmt.Println(result.Deleted)'),
  },
  'POST /api/v1/webhook_endpoints/{id}/rotate_secret': {
    node: `const endpoint = await till.webhookEndpoints.rotateSecret('${WE}')
console.log(endpoint.secret, endpoint.previousSecretExpiresAt)`,
    python: `endpoint = till.webhook_endpoints.rotate_secret("${WE}")
print(endpoint.secret, endpoint.previous_secret_expires_at)`,
    go: goGet(`endpoint, err := client.WebhookEndpoints.RotateSecret(ctx, "${WE}", nil)`, 'fmt.Println(endpoint.Secret, endpoint.PreviousSecretExpiresAt)'),
  },
  'POST /api/v1/webhook_endpoints/{id}/expire_previous_secrets': {
    node: `const endpoint = await till.webhookEndpoints.expirePreviousSecrets('${WE}')
console.log(endpoint.previousSecretExpiresAt)`,
    python: `endpoint = till.webhook_endpoints.expire_previous_secrets("${WE}")
print(endpoint.previous_secret_expires_at)`,
    go: goGet(`endpoint, err := client.WebhookEndpoints.ExpirePreviousSecrets(ctx, "${WE}", nil)`, 'fmt.Println(endpoint.PreviousSecretExpiresAt)'),
  },
  'POST /api/v1/payment_links': {
    data: { amount: 9900, currency: 'CNY', description: 'Green tea, 250 g', metadata: { sku: 'T-1' }, maxPayments: 50 },
    node: `const link = await till.paymentLinks.create({
  amount: 9900, currency: 'CNY', description: 'Green tea, 250 g', metadata: { sku: 'T-1' }, maxPayments: 50,
})
console.log(link.url) // share it, or its QR code`,
    python: `link = till.payment_links.create(
    amount=9900, currency="CNY", description="Green tea, 250 g", metadata={"sku": "T-1"}, max_payments=50,
)
print(link.url)  # share it, or its QR code`,
    go: goGet(`link, err := client.PaymentLinks.Create(ctx, &till.PaymentLinkParams{
	Amount: till.Int64(9900), Currency: till.CNY, Description: "Green tea, 250 g",
	Metadata: map[string]string{"sku": "T-1"}, MaxPayments: till.Int64(50),
})`, 'fmt.Println(link.URL) // share it, or its QR code'),
  },
  'GET /api/v1/payment_links': {
    data: { limit: 5 },
    node: `const page = await till.paymentLinks.list({ limit: 5 })
for (const link of page.data) console.log(link.id, link.active, link.paidCount, link.url)`,
    python: `page = till.payment_links.list(limit=5)
for link in page.data:
    print(link.id, link.active, link.paid_count, link.url)`,
    go: goEach('client.PaymentLinks.List(ctx, &till.ListParams{Limit: 5})', 'l := it.Current()\n\tfmt.Println(l.ID, l.Active, l.PaidCount, l.URL)'),
  },
  'GET /api/v1/payment_links/{id}': {
    node: `const link = await till.paymentLinks.retrieve('${PLINK}')
console.log(link.active, link.paidCount, link.maxPayments)`,
    python: `link = till.payment_links.retrieve("${PLINK}")
print(link.active, link.paid_count, link.max_payments)`,
    go: goGet(`link, err := client.PaymentLinks.Get(ctx, "${PLINK}")`, 'fmt.Println(link.Active, link.PaidCount, link.MaxPayments)'),
  },
  'POST /api/v1/payment_links/{id}': {
    data: { active: false },
    node: `const link = await till.paymentLinks.update('${PLINK}', { active: false })
console.log(link.active) // false: its page makes no more sessions`,
    python: `link = till.payment_links.update("${PLINK}", active=False)
print(link.active)  # False: its page makes no more sessions`,
    go: goGet(`link, err := client.PaymentLinks.Update(ctx, "${PLINK}", &till.PaymentLinkUpdateParams{Active: till.Bool(false)})`,
      'fmt.Println(link.Active) // false: its page makes no more sessions'),
  },
  'GET /api/v1/events': {
    data: { limit: 5, type: 'payment.succeeded' },
    node: `const page = await till.events.list({ limit: 5, type: 'payment.succeeded' })
for (const event of page.data) console.log(event.id, event.type, event.data)`,
    python: `page = till.events.list(limit=5, type="payment.succeeded")
for event in page.data:
    print(event.id, event.type, event.data)`,
    go: goEach('client.Events.List(ctx, &till.EventListParams{ListParams: till.ListParams{Limit: 5}, Type: till.EventPaymentSucceeded})',
      'e := it.Current()\n\tfmt.Println(e.ID, e.Type, string(e.Data))'),
  },
  'GET /api/v1/events/{id}': {
    node: `const event = await till.events.retrieve('${EVT}')
for (const d of event.deliveries) console.log(d.url, d.status, d.attempts.length)`,
    python: `event = till.events.retrieve("${EVT}")
for d in event.deliveries:
    print(d.url, d.status, len(d.attempts))`,
    go: goGet(`event, err := client.Events.Get(ctx, "${EVT}")`, 'for _, d := range event.Deliveries {\n\tfmt.Println(d.URL, d.Status, len(d.Attempts))\n}'),
  },
  'POST /api/v1/events/{id}/redeliver': {
    node: `const redelivery = await till.events.redeliver('${EVT}')
for (const s of redelivery.scheduled) console.log(s.url, s.nextAttemptAt)`,
    python: `redelivery = till.events.redeliver("${EVT}")
for s in redelivery.scheduled:
    print(s.url, s.next_attempt_at)`,
    go: goGet(`redelivery, err := client.Events.Redeliver(ctx, "${EVT}", nil)`, 'for _, s := range redelivery.Scheduled {\n\tfmt.Println(s.URL, s.NextAttemptAt)\n}'),
  },
}

/** `{id}` of a path as the example id of what it names. */
const ID_OF: Record<string, string> = { sessions: SESS, records: REC, refunds: REF, webhook_endpoints: WE, events: EVT, payment_links: PLINK }
function withExampleId(path: string): string {
  const kind = /\/([a-z_]+)\/\{id\}/.exec(path)?.[1]
  return kind ? path.replace('{id}', ID_OF[kind]) : path
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

function curl(method: string, url: string, s: OpSample): string {
  const lines = [`-u "$TILL_SECRET_KEY:"`]
  // -s: no progress meter over the JSON answer.
  let first = `curl -s ${url}`
  if (method === 'GET' && s.data) {
    first = `curl -s -G ${url}`
    for (const [name, value] of Object.entries(s.data)) {
      const pairs = value && typeof value === 'object' ? Object.entries(value).map(([k, v]) => [`${name}[${k}]`, v]) : [[name, value]]
      for (const [n, v] of pairs) lines.push(`--data-urlencode ${shellQuote(`${n}=${String(v)}`)}`)
    }
  } else if (s.data) {
    if (method !== 'POST') first = `curl -s -X ${method} ${url}`
    if (s.idempotencyKey) lines.push(`-H ${shellQuote(`Idempotency-Key: ${s.idempotencyKey}`)}`)
    lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(s.data))}`)
  } else if (method !== 'GET') {
    first = `curl -s -X ${method} ${url}`
    if (s.idempotencyKey) lines.push(`-H ${shellQuote(`Idempotency-Key: ${s.idempotencyKey}`)}`)
  }
  return [first, ...lines].join(' \\\n  ')
}

const node = (base: string, body: string) => `import { Till } from '${CLIENT_NAMES.node}'

const till = new Till({ apiKey: process.env.TILL_SECRET_KEY, baseUrl: '${base}' })

${body}
`

const python = (base: string, body: string) => `import os

from ${CLIENT_NAMES.python} import Till

till = Till(os.environ["TILL_SECRET_KEY"], base_url="${base}")

${body}
`

const go = (base: string, body: string) => `package main

import (
\t"context"
\t"fmt"
\t"log"
\t"os"

\ttill "${CLIENT_NAMES.go}"
)

func main() {
\tclient := till.NewClient(os.Getenv("TILL_SECRET_KEY"), till.WithBaseURL("${base}"))
\tctx := context.Background()

${body.split('\n').map((l) => `\t${l}`).join('\n')}
}
`

/** The samples of an operation (`/api/v1/sessions/{id}` style path), or none for one without. */
export function codeSamples(method: string, path: string, baseUrl: string) {
  const s = SAMPLES[`${method} ${path}`]
  if (!s) return undefined
  const url = baseUrl + withExampleId(path)
  return [
    { lang: 'Shell', label: 'curl', source: curl(method, url, s) },
    { lang: 'JavaScript', label: 'Node', source: node(baseUrl, s.node) },
    { lang: 'Python', label: 'Python', source: python(baseUrl, s.python) },
    { lang: 'Go', label: 'Go', source: go(baseUrl, s.go) },
  ]
}
