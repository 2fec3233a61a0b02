/**
 * `till fake creem` and Till's Creem adapter against code nobody here wrote: Creem's official
 * TypeScript SDK (`creem` on npm, pinned in package.json). The SDK's client calls the fake and
 * parses every answer with its own schemas; its webhook verifier checks the fake's signatures; and
 * every body the fake answered and every request Till's adapter sent is decoded with the SDK's
 * schemas in strict mode (a field the SDK does not declare is refused, at any depth).
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { Creem } from 'creem'
import * as C from 'creem/models/components'
import { verifyWebhookSignature } from 'creem/webhooks.js'
import { strictProblems, type ZodLike } from '../helpers/zod-strict.js'
import { setup, startCreem } from '../helpers/creem.js'

const SDK_VERSION = '1.13.0'

/** The SDK's schema for each fake answer, by method and path without its query. */
function answerSchema(method: string, path: string): ZodLike | null {
  const route = `${method} ${path.split('?')[0].replace(/\/(prod|ch|tran)_[0-9A-Za-z]+$/, '/{id}')}`
  const schemas: Record<string, unknown> = {
    'POST /v1/products': C.ProductEntity$inboundSchema,
    'GET /v1/products/{id}': C.ProductEntity$inboundSchema,
    'POST /v1/checkouts': C.CheckoutEntity$inboundSchema,
    'GET /v1/checkouts': C.CheckoutEntity$inboundSchema,
    'GET /v1/transactions': C.TransactionEntity$inboundSchema,
    'GET /v1/transactions/search': C.TransactionListEntity$inboundSchema,
    'POST /v1/refunds': C.RefundResponseEntity$inboundSchema,
  }
  return (schemas[route] as ZodLike | undefined) ?? null
}

/** The SDK's request schema for each body a caller sends. */
const REQUEST_SCHEMAS: Record<string, unknown> = {
  'POST /v1/products': C.CreateProductRequestEntity$inboundSchema,
  'POST /v1/checkouts': C.CreateCheckoutRequest$inboundSchema,
  'POST /v1/refunds': C.CreateRefundRequestEntity$inboundSchema,
}

const WEBHOOK_SCHEMAS: Record<string, unknown> = {
  'checkout.completed': C.WebhookCheckoutCompletedEventEntity$inboundSchema,
  'refund.created': C.WebhookRefundCreatedEventEntity$inboundSchema,
  'dispute.created': C.WebhookDisputeCreatedEventEntity$inboundSchema,
}

/** A webhook endpoint that verifies with the SDK's verifier and decodes each event strictly with its schema. */
async function sdkReceiver(t: TestContext, secret: () => string) {
  const got: Array<{ eventType: string; verified: boolean; problems: string[] }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      let verified = true
      try {
        await verifyWebhookSignature(body, req.headers as Record<string, string>, secret())
      } catch {
        verified = false
      }
      const event = JSON.parse(body.toString('utf8'))
      const schema = WEBHOOK_SCHEMAS[event.eventType] as ZodLike | undefined
      got.push({ eventType: event.eventType, verified, problems: schema ? strictProblems(schema, event) : ['no SDK schema for this event'] })
      res.writeHead(verified ? 200 : 401).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got }
}

test(`the SDK (creem ${SDK_VERSION}) against the fake: every call parses, every answer and webhook fits its schema strictly`, async (t) => {
  const { fake, ctl } = await startCreem(t)
  const creds = fake.addAccount()
  const rx = await sdkReceiver(t, () => creds.webhookSecret)
  await ctl.registerWebhook(rx.url, creds.apiKey)
  const sdk = new Creem({ apiKey: creds.apiKey, serverURL: fake.url })

  const product = await sdk.products.create({ name: 'Mug', description: 'Blue', price: 1500, currency: 'EUR', billingType: 'onetime', taxMode: 'inclusive' })
  assert.equal((await sdk.products.get(product.id)).price, 1500)
  const checkout = await sdk.checkouts.create({ productId: product.id, requestId: 'order-1', customPrice: 2500, successUrl: 'https://shop.example/ok', metadata: { cart: '7' } })
  assert.deepEqual([checkout.status, checkout.customPrice, checkout.requestId], ['pending', 2500, 'order-1'])
  await ctl.complete(checkout.id)
  const paid = await sdk.checkouts.retrieve(checkout.id)
  assert.deepEqual([paid.status, paid.order?.amount, paid.order?.currency], ['completed', 2500, 'EUR'])
  const transactionId = paid.order!.transaction!
  assert.equal((await sdk.transactions.getById(transactionId)).status, 'paid')
  const found = await sdk.transactions.search(undefined, paid.order!.id)
  assert.deepEqual(found.result.items.map((i) => i.id), [transactionId])
  assert.deepEqual(await sdk.transactions.refund({ transactionId }), { status: 'pending' })
  await ctl.tick()

  // Another payment, disputed.
  const other = await sdk.checkouts.create({ productId: product.id })
  await ctl.complete(other.id)
  await ctl.dispute((await sdk.checkouts.retrieve(other.id)).order!.transaction!)

  assert.deepEqual(rx.got.map((g) => [g.eventType, g.verified, g.problems]), [
    ['checkout.completed', true, []], ['refund.created', true, []], ['checkout.completed', true, []], ['dispute.created', true, []],
  ])
  const requests = await ctl.requests()
  assert.equal(requests.length, 9)
  for (const r of requests) {
    const schema = answerSchema(r.method, r.path)
    assert.ok(schema, `${r.method} ${r.path} has an SDK schema`)
    assert.deepEqual([r.status, strictProblems(schema, r.body)], [200, []], `${r.method} ${r.path}`)
    const requestSchema = REQUEST_SCHEMAS[`${r.method} ${r.path}`] as ZodLike | undefined
    if (requestSchema) assert.deepEqual(strictProblems(requestSchema, r.request), [], `the SDK's own ${r.method} ${r.path}`)
  }

  // The checks bite: a signature over other bytes, and a field the SDK does not declare.
  await ctl.badSignature()
  await ctl.complete((await sdk.checkouts.create({ productId: product.id })).id)
  assert.deepEqual(rx.got.at(-1)!.verified, false)
  assert.deepEqual(strictProblems(C.ProductEntity$inboundSchema, { ...requests[0].body, image_url: null }), ['image_url: Expected string, received null'])
  assert.deepEqual(strictProblems(C.CreateRefundRequestEntity$inboundSchema, { transaction_id: 'tran_1', amount: 5 }), ["(root): Unrecognized key(s) in object: 'amount'"])
})

test(`Till's adapter sends only what the SDK (creem ${SDK_VERSION}) declares, to the paths the SDK uses`, async (t) => {
  const s = await setup(t)
  const { ref } = await s.paid()
  await s.provider.queryPayment(s.cfg, ref)
  await s.provider.refund(s.cfg, { refundId: 'ref_ours', amount: 1234, totalAmount: 1234, currency: 'EUR', reason: null, payment: ref, notifyUrl: 'https://till.example/hooks/creem/pc_test' })
  await s.provider.queryRefund(s.cfg, { refundId: 'ref_ours', providerRefundRef: null, amount: 1234, createdAt: s.clock(), payment: ref })
  const till = await s.ctl.requests()
  assert.deepEqual(till.map((r) => `${r.method} ${r.path.split('?')[0]}`), ['POST /v1/products', 'POST /v1/checkouts', 'GET /v1/checkouts', 'POST /v1/refunds', 'GET /v1/transactions'])
  for (const r of till) {
    const schema = REQUEST_SCHEMAS[`${r.method} ${r.path}`] as ZodLike | undefined
    if (schema) assert.deepEqual(strictProblems(schema, r.request), [], `Till's ${r.method} ${r.path}`)
    else assert.equal(r.request, undefined, `Till's ${r.method} ${r.path} has no body`)
    assert.deepEqual([r.status, strictProblems(answerSchema(r.method, r.path)!, r.body)], [200, []], `the answer to ${r.method} ${r.path}`)
  }

  // The SDK asks for the same resources the same way: the query Till builds is the SDK's.
  const before = till.length
  const sdk = new Creem({ apiKey: s.creds.apiKey, serverURL: s.fake.url })
  await sdk.checkouts.retrieve(String(ref.data.checkoutId))
  await sdk.transactions.getById(String(ref.data.transactionId))
  const theirs = (await s.ctl.requests()).slice(before).map((r) => `${r.method} ${r.path}`)
  assert.deepEqual(theirs, [till[2], till[4]].map((r) => `${r.method} ${r.path}`))
})
