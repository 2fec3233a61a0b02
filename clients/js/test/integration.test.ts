/**
 * The client against a real Till (test/helpers/app.ts: the real app on a fresh database, on a
 * loopback port), used as the README tells a merchant to use it. Needs TEST_DATABASE_URL (npm test
 * sets it up).
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { deliverDue } from '../../../src/jobs/outbox.js'
import { startTestApp } from '../../../test/helpers/app.js'
import { AuthenticationError, InvalidRequestError, NotFoundError, Till, TillError, WebhookVerificationError, type WebhookEvent } from '../src/index.js'

async function setup(t: TestContext) {
  const ta = await startTestApp(t)
  return { ta, till: new Till({ apiKey: ta.merchant.testKey, baseUrl: ta.baseUrl, retryBaseMs: 5 }) }
}

test('create, pay with the test helper, read with its record, refund partly then fully', async (t) => {
  const { ta, till } = await setup(t)
  const created = await till.createCheckout({
    amount: 9900, currency: 'CNY', description: 'Order A-1', metadata: { order: 'A-1' },
    // Sent in the body as the spec says; test mode ignores it and uses the mock provider.
    providerHints: { wechat: 'shop-2' },
  })
  assert.match(created.id, /^sess_[0-9A-Za-z]{24}$/)
  assert.equal(created.status, 'pending')
  assert.equal(created.url, `${ta.baseUrl}/c/${created.id}`)
  assert.equal(created.amount, 9900)
  assert.equal(created.mode, 'test')

  const pending = await till.getSession(created.id)
  assert.equal(pending.status, 'pending')
  assert.equal(pending.chosenProvider, 'mock')
  assert.equal(pending.record, undefined)

  const paid = await till.testHelpers.sessions.pay(created.id)
  assert.equal(paid.status, 'paid')
  const session = await till.getSession(created.id)
  assert.equal(session.status, 'paid')
  assert.ok(session.record)
  assert.match(session.record.id, /^rec_/)
  assert.equal(session.record.amount, 9900)
  assert.equal(session.record.provider, 'mock')

  const partial = await till.refund({ recordId: session.record.id, amount: 1000, reason: 'damaged' })
  assert.equal(partial.status, 'partially_refunded')
  assert.equal(partial.refundedAmount, 1000)
  assert.equal(partial.refund.amount, 1000)
  assert.equal(partial.refund.status, 'succeeded')
  assert.equal(partial.refund.reason, 'damaged')
  assert.match(partial.refund.id, /^ref_/)

  const rest = await till.refund({ recordId: session.record.id })
  assert.equal(rest.status, 'refunded')
  assert.equal(rest.refund.amount, 8900)
  assert.equal(rest.refundedAmount, 9900)
  assert.equal((await till.getSession(created.id)).status, 'refunded')
})

test('JPY amounts are whole yen, sent and returned unchanged', async (t) => {
  const { till } = await setup(t)
  const created = await till.createCheckout({ amount: 1500, currency: 'JPY' })
  const paid = await till.testHelpers.sessions.pay(created.id)
  assert.equal(paid.amount, 1500)
  assert.equal(paid.record?.amount, 1500)
})

test('a pending refund settles through the test helper', async (t) => {
  const { till } = await setup(t)
  const created = await till.createCheckout({ amount: 5000, currency: 'USD' })
  const paid = await till.testHelpers.sessions.pay(created.id, { refundBehavior: 'pending' })
  const refunding = await till.refund({ recordId: paid.record!.id })
  assert.equal(refunding.refund.status, 'pending')
  assert.equal(refunding.status, 'refunding')
  const settled = await till.testHelpers.refunds.succeed(refunding.refund.id)
  assert.equal(settled.status, 'refunded')
  assert.equal(settled.refundedAmount, 5000)
})

test('errors carry the status, the body and the Request-Id', async (t) => {
  const { ta, till } = await setup(t)
  const missing = await till.getSession('sess_doesnotexist000000000000').catch((e: unknown) => e)
  assert.ok(missing instanceof NotFoundError)
  assert.equal(missing.status, 404)
  assert.deepEqual(missing.body, { error: 'Not found', code: 'not_found' })
  assert.match(String(missing.requestId), /^req_/)

  const created = await till.createCheckout({ amount: 1000, currency: 'CNY' })
  const paid = await till.testHelpers.sessions.pay(created.id)
  await till.refund({ recordId: paid.record!.id, amount: 400 })
  const tooMuch = await till.refund({ recordId: paid.record!.id, amount: 601 }).catch((e: unknown) => e)
  assert.ok(tooMuch instanceof InvalidRequestError)
  assert.equal(tooMuch.status, 400)
  assert.deepEqual(tooMuch.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 600 })
  assert.equal(tooMuch.message, 'amount exceeds refundable')

  const invalid = await till.createCheckout({ amount: 0, currency: 'CNY' }).catch((e: unknown) => e)
  assert.ok(invalid instanceof InvalidRequestError)
  assert.match(invalid.message, /^amount: /)

  const terminal = await till.testHelpers.sessions.pay(created.id).catch((e: unknown) => e)
  assert.ok(terminal instanceof InvalidRequestError)
  assert.equal(terminal.message, 'session is paid')

  const badKey = new Till({ apiKey: 'sk_test_' + 'x'.repeat(32), baseUrl: ta.baseUrl })
  const unauth = await badKey.getSession(created.id).catch((e: unknown) => e)
  assert.ok(unauth instanceof AuthenticationError)
  assert.equal(unauth.status, 401)

  // Another mode's key sees nothing: test helpers do not exist for a live key.
  const live = new Till({ apiKey: ta.merchant.liveKey, baseUrl: ta.baseUrl })
  const hidden = await live.testHelpers.sessions.pay(created.id).catch((e: unknown) => e)
  assert.ok(hidden instanceof NotFoundError)
})

test('providerHints sent as the spec says reach Till: a live key without a configuration labelled shop-2 is refused, naming it', async (t) => {
  const { ta } = await setup(t)
  const live = new Till({ apiKey: ta.merchant.liveKey, baseUrl: ta.baseUrl })
  // The body is the params object: providerHints, the spec's extra field, is one of its properties.
  const refused = await live.createCheckout({ amount: 9900, currency: 'CNY', providerHints: { wechat: 'shop-2' } }).catch((e: unknown) => e)
  assert.ok(refused instanceof InvalidRequestError)
  assert.equal(refused.code, 'provider_unavailable')
  assert.equal(refused.message, 'provider wechat/shop-2 not available: invalid_label')
})

test('a session names the language of its pages with locale, read back; an unsupported one is refused, naming the field', async (t) => {
  const { till } = await setup(t)
  const created = await till.createCheckout({ amount: 1500, currency: 'JPY', locale: 'ja' })
  assert.equal(created.locale, 'ja')
  assert.equal((await till.getSession(created.id)).locale, 'ja')
  assert.equal((await till.createCheckout({ amount: 1500, currency: 'JPY' })).locale, null)
  const params = { amount: 1500, currency: 'JPY' as const, locale: 'fr' }
  const refused = await till.createCheckout(params as never).catch((e: unknown) => e)
  assert.ok(refused instanceof InvalidRequestError)
  assert.equal(refused.code, 'invalid_field')
  assert.equal(refused.message, 'locale: must be one of en, zh-CN, zh-HK, ja')
})

/** Forwards to Till; answers listed in `drop` are received from Till and then lost on the way back. */
async function lossyProxy(t: TestContext, upstream: string, drop: (n: number) => boolean) {
  const seen: Array<{ url: string; key: string | undefined; replayed: string | null; status: number }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>
      const body = chunks.length ? Buffer.concat(chunks) : undefined
      const answer = await fetch(upstream + req.url, { method: req.method, headers, body })
      const text = await answer.text()
      seen.push({ url: req.url!, key: req.headers['idempotency-key'] as string | undefined, replayed: answer.headers.get('idempotent-replayed'), status: answer.status })
      if (drop(seen.length)) return req.socket.destroy()
      res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': answer.headers.get('request-id') ?? '' })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

test('a refund whose answer is lost is retried with the same key and refunds once', async (t) => {
  const { ta, till } = await setup(t)
  const created = await till.createCheckout({ amount: 2000, currency: 'HKD' })
  const recordId = (await till.testHelpers.sessions.pay(created.id)).record!.id

  const proxy = await lossyProxy(t, ta.baseUrl, (n) => n === 1)
  const viaProxy = new Till({ apiKey: ta.merchant.testKey, baseUrl: proxy.baseUrl, retryBaseMs: 5 })
  const result = await viaProxy.refund({ recordId, amount: 700 })

  assert.equal(proxy.seen.length, 2)
  assert.equal(proxy.seen[0].key, proxy.seen[1].key)
  assert.equal(proxy.seen[0].replayed, null)
  assert.equal(proxy.seen[1].replayed, 'true', 'Till replayed the first answer')
  assert.equal(result.refundedAmount, 700)
  assert.equal(result.refund.amount, 700)
  // Refunded once: 1300 is still refundable, not 600.
  const more = await till.refund({ recordId, amount: 1301 }).catch((e: unknown) => e)
  assert.ok(more instanceof TillError)
  assert.deepEqual(more.body, { error: 'amount exceeds refundable', code: 'amount_exceeds_refundable', refundable: 1300 })
})

test('a checkout whose answer is lost twice still makes one session', async (t) => {
  const { ta } = await setup(t)
  const proxy = await lossyProxy(t, ta.baseUrl, (n) => n <= 2)
  const viaProxy = new Till({ apiKey: ta.merchant.testKey, baseUrl: proxy.baseUrl, retryBaseMs: 5 })
  const created = await viaProxy.createCheckout({ amount: 300, currency: 'EUR' }, { idempotencyKey: 'order-7-checkout' })
  assert.deepEqual(proxy.seen.map((s) => [s.key, s.replayed, s.status]), [
    ['order-7-checkout', null, 200],
    ['order-7-checkout', 'true', 200],
    ['order-7-checkout', 'true', 200],
  ])
  const again = await new Till({ apiKey: ta.merchant.testKey, baseUrl: ta.baseUrl }).createCheckout({ amount: 300, currency: 'EUR' }, { idempotencyKey: 'order-7-checkout' })
  assert.equal(again.id, created.id)
})

/** A merchant's receiver, written as the README's node:http recipe: raw bytes in, constructEvent, 2xx only when verified. */
async function merchantReceiver(t: TestContext, secrets: () => string[]) {
  const got: Array<{ event: WebhookEvent; body: Buffer; header: string }> = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const header = req.headers['x-service-signature']
      try {
        const event = Till.constructEvent(body, header, secrets()[0])
        got.push({ event, body, header: String(header) })
        res.writeHead(200).end()
      } catch (e) {
        res.writeHead(400).end((e as Error).message)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/till/webhooks`, got }
}

test('a webhook is received and verified with constructEvent, before and after a secret rotation', async (t) => {
  const { ta, till } = await setup(t)
  let secret = ''
  const rx = await merchantReceiver(t, () => [secret])
  const endpoint = await till.webhookEndpoints.create({ url: rx.url })
  secret = endpoint.secret
  assert.match(secret, /^whsec_[0-9A-Za-z]{32}$/)
  assert.deepEqual((await till.webhookEndpoints.list()).data.map((e) => e.id), [endpoint.id])

  const created = await till.createCheckout({ amount: 9900, currency: 'CNY', metadata: { order: 'A-1', note: '谢谢 🧾' } })
  const paid = await till.testHelpers.sessions.pay(created.id)
  const first = await deliverDue(ta.deps)
  assert.deepEqual(first.map((r) => [r.status, r.statusCode]), [['delivered', 200]], 'the receiver verified it (it answers 400 otherwise)')
  assert.equal(rx.got.length, 1)
  const { event } = rx.got[0]
  assert.equal(event.type, 'payment.succeeded')
  if (event.type !== 'payment.succeeded') return
  assert.equal(event.data.sessionId, created.id)
  assert.equal(event.data.recordId, paid.record!.id)
  assert.equal(event.data.amount, 9900)
  assert.deepEqual(event.data.metadata, { order: 'A-1', note: '谢谢 🧾' })

  const listed = await till.events.list({ type: 'payment.succeeded', limit: 5 })
  assert.deepEqual(listed.data.map((e) => e.id), [event.id])
  const detail = await till.events.retrieve(event.id)
  assert.deepEqual(detail.deliveries.map((d) => [d.endpointId, d.status]), [[endpoint.id, 'delivered']])

  // Rotation: both secrets sign for 24 h, so receivers still holding the old one keep working.
  const oldSecret = secret
  const rotated = await till.webhookEndpoints.rotateSecret(endpoint.id)
  assert.notEqual(rotated.secret, oldSecret)
  await till.refund({ recordId: paid.record!.id, amount: 1000, reason: '破损' })
  assert.deepEqual((await deliverDue(ta.deps)).map((r) => r.statusCode), [200])
  const second = rx.got[1]
  assert.equal(second.event.type, 'refund.succeeded')
  assert.equal(second.header.split(',').length, 2)
  assert.equal(Till.constructEvent(second.body, second.header, rotated.secret).id, second.event.id)
  assert.equal(Till.constructEvent(second.body, second.header, oldSecret).id, second.event.id)
  assert.throws(() => Till.constructEvent(second.body, second.header, 'whsec_' + 'x'.repeat(32)), WebhookVerificationError)
  // The classic mistake: the parsed and re-serialised body no longer verifies.
  assert.equal(Till.verifyWebhookSignature(JSON.stringify(JSON.parse(second.body.toString('utf8')), null, 2), second.header, rotated.secret), false)

  const redelivered = await till.events.redeliver(event.id)
  assert.deepEqual(redelivered.scheduled.map((s) => s.endpointId), [endpoint.id])
  const updated = await till.webhookEndpoints.update(endpoint.id, { events: ['refund.succeeded'] })
  assert.deepEqual(updated.events, ['refund.succeeded'])
  assert.deepEqual(await till.webhookEndpoints.delete(endpoint.id), { id: endpoint.id, deleted: true })
  await assert.rejects(till.webhookEndpoints.retrieve(endpoint.id), NotFoundError)
})

test('lists: a page when awaited, every item across pages with for await; records, refunds and error codes', async (t) => {
  const { ta, till } = await setup(t)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await till.createCheckout({ amount: 100 + i, currency: 'CNY', metadata: { order: `o-${i}`, shop: 'north' } })).id)
  // Several sessions in one millisecond, and pages of two: no gap, no repeat.
  const page = await till.sessions.list({ limit: 2 })
  assert.equal(page.data.length, 2)
  assert.equal(page.hasMore, true)
  const all: string[] = []
  for await (const s of till.sessions.list({ limit: 2 })) all.push(s.id)
  assert.deepEqual([...all].sort(), [...ids].sort())
  assert.equal(new Set(all).size, 5)
  // metadata is sent as metadata[key]=value.
  assert.deepEqual((await till.sessions.list({ metadata: { order: 'o-3' } })).data.map((s) => s.id), [ids[3]])
  assert.equal((await till.sessions.list({ metadata: { shop: 'north' }, limit: 100 })).data.length, 5)

  await till.testHelpers.sessions.pay(ids[1])
  const paid = await till.sessions.retrieve(ids[1])
  assert.ok(paid.status === 'paid')
  assert.equal(paid.record.refundedAmount, 0)
  const refunded = await till.refunds.create({ recordId: paid.record.id, amount: 40 })
  const record = await till.records.retrieve(paid.record.id)
  assert.equal(record.refundedAmount, 40)
  assert.deepEqual(record.refunds.map((f) => f.id), [refunded.refund.id])
  assert.deepEqual(await till.refunds.retrieve(refunded.refund.id), record.refunds[0])
  const records: string[] = []
  for await (const r of till.records.list({ session_id: ids[1] })) records.push(r.id)
  assert.deepEqual(records, [paid.record.id])
  const refunds: string[] = []
  for await (const f of till.refunds.list({ record_id: paid.record.id })) refunds.push(f.id)
  assert.deepEqual(refunds, [refunded.refund.id])
  assert.deepEqual((await till.sessions.list({ status: 'paid' })).data.map((s) => s.id), [ids[1]])

  // Errors carry their code (and param for a field).
  const bad = await till.sessions.list({ limit: 0 }).catch((e: unknown) => e)
  assert.ok(bad instanceof InvalidRequestError)
  assert.equal(bad.code, 'invalid_field')
  assert.equal(bad.param, 'limit')
  assert.equal(bad.refundable, null)
  // …and, when a refund asks too much, what is left to refund.
  const over = await till.refunds.create({ recordId: paid.record.id, amount: 99_999_999 }).catch((e: unknown) => e)
  assert.ok(over instanceof InvalidRequestError)
  assert.equal(over.code, 'amount_exceeds_refundable')
  assert.equal(over.refundable, record.amount - record.refundedAmount)
  await till.refunds.create({ recordId: paid.record.id })
  const again = await till.refunds.create({ recordId: paid.record.id }).catch((e: unknown) => e)
  assert.ok(again instanceof InvalidRequestError)
  assert.equal(again.code, 'already_refunded')
  assert.equal(again.refundable, 0)
  const missing = await till.records.retrieve('rec_nope').catch((e: unknown) => e)
  assert.ok(missing instanceof NotFoundError)
  assert.equal(missing.code, 'not_found')
  // An iteration that meets an error throws it.
  await assert.rejects(async () => {
    for await (const s of till.sessions.list({ starting_after: 'sess_nope' })) void s
  }, (e: unknown) => e instanceof TillError && e.code === 'invalid_field' && e.param === 'starting_after')
  void ta
})

test('sessions.cancel and sessions.expire close an open session; a closed one is session_terminal; a key answers the same again', async (t) => {
  const { till } = await setup(t)
  const created = await till.createCheckout({ amount: 1000, currency: 'CNY' })
  const canceled = await till.sessions.cancel(created.id)
  assert.equal(canceled.id, created.id)
  assert.equal(canceled.status, 'canceled')
  const closed = await till.sessions.expire(created.id).catch((e: unknown) => e)
  assert.ok(closed instanceof InvalidRequestError)
  assert.equal(closed.code, 'session_terminal')
  assert.equal(closed.message, 'session is canceled')

  const other = await till.createCheckout({ amount: 1000, currency: 'CNY' })
  const expired = await till.sessions.expire(other.id, { idempotencyKey: `expire-${other.id}` })
  assert.equal(expired.status, 'expired')
  assert.deepEqual(await till.sessions.expire(other.id, { idempotencyKey: `expire-${other.id}` }), expired)
  assert.ok((await till.sessions.expire(other.id).catch((e: unknown) => e)) instanceof InvalidRequestError)
})
