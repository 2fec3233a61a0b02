/**
 * Webhook verification against the shared vectors (testdata/webhook-signatures.json, also read by
 * the Python and Go clients): every vector, with the body as a string, a Buffer, a Uint8Array and
 * an ArrayBuffer. Plus the mistakes a merchant makes, what the errors then say, and the README's
 * raw-body recipes that can run here (Fastify, and Next.js's Request.text()).
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { Till, WebhookVerificationError, constructEvent, verifyWebhookSignature } from '../src/index.js'

interface Vector {
  name: string
  bodyBase64: string
  secret: string
  header: string
  toleranceSeconds?: number
  now?: number
  valid: boolean
  constructEvent: 'ok' | 'signature' | 'tolerance' | 'payload'
  eventId?: string
}
const file = JSON.parse(readFileSync(new URL('../../../testdata/webhook-signatures.json', import.meta.url), 'utf8')) as {
  defaultToleranceSeconds: number
  vectors: Vector[]
}

function inputsOf(bytes: Buffer) {
  const inputs: Array<[string, string | Buffer | Uint8Array | ArrayBuffer]> = [
    ['Buffer', bytes],
    ['Uint8Array', new Uint8Array(bytes)],
    ['ArrayBuffer', new Uint8Array(bytes).buffer],
  ]
  // A string carries the same bytes only when they are valid UTF-8.
  const text = bytes.toString('utf8')
  if (Buffer.from(text, 'utf8').equals(bytes)) inputs.push(['string', text])
  return inputs
}

test('the vectors file covers what the issue asks for', () => {
  assert.equal(file.defaultToleranceSeconds, 300)
  const names = file.vectors.map((v) => v.name).join('\n')
  for (const needle of ['non-ASCII', 'rotation', 'wrong secret', 'tampered', 'uppercase', 'empty header', 'expired', 'future', 'trailing newline']) {
    assert.match(names, new RegExp(needle), `a vector about ${needle}`)
  }
  assert.ok(file.vectors.some((v) => v.valid) && file.vectors.some((v) => !v.valid))
})

describe('shared vectors', () => {
  for (const v of file.vectors) {
    test(v.name, () => {
      const bytes = Buffer.from(v.bodyBase64, 'base64')
      const options = { now: v.now === undefined ? undefined : new Date(v.now * 1000), toleranceSeconds: v.toleranceSeconds }
      for (const [kind, body] of inputsOf(bytes)) {
        assert.equal(verifyWebhookSignature(body, v.header, v.secret), v.valid, `verifyWebhookSignature with a ${kind}`)
        assert.equal(Till.verifyWebhookSignature(body, v.header, v.secret), v.valid, `Till.verifyWebhookSignature with a ${kind}`)
        if (v.constructEvent === 'ok') {
          const event = Till.constructEvent(body, v.header, v.secret, options)
          assert.equal(event.id, v.eventId, `constructEvent with a ${kind}`)
        } else {
          assert.throws(() => constructEvent(body, v.header, v.secret, options),
            (e: unknown) => e instanceof WebhookVerificationError && e.reason === v.constructEvent, `constructEvent with a ${kind}`)
        }
      }
    })
  }
})

const secret = 'whsec_0123456789abcdefghijklmnopqrstuv'
const body = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', createdAt: new Date().toISOString(), mode: 'test', data: { amount: 9900, note: '谢谢' } })
const header = createHmac('sha256', secret).update(body).digest('hex')

test('a body parsed by a framework is refused with a message naming the mistake', () => {
  const parsed = JSON.parse(body)
  assert.throws(() => constructEvent(parsed, header, secret), (e: unknown) =>
    e instanceof TypeError && /parsed object/.test(e.message) && /express\.raw/.test(e.message))
  assert.throws(() => verifyWebhookSignature(parsed, header, secret), /parsed object/)
  assert.throws(() => constructEvent(null as unknown as string, header, secret), /given as null/)
})

test('a re-serialised body fails with a message naming the usual cause', () => {
  const reserialised = JSON.stringify(JSON.parse(body), null, 1)
  assert.throws(() => constructEvent(reserialised, header, secret), (e: unknown) => {
    assert.ok(e instanceof WebhookVerificationError)
    assert.equal(e.reason, 'signature')
    assert.match(e.message, /parsed the JSON body and it was serialised again/)
    assert.match(e.message, /raw request body/)
    return true
  })
})

test('a missing header says so, and Node\'s header arrays are accepted', () => {
  assert.throws(() => constructEvent(body, undefined, secret), /No signature found in the X-Service-Signature header/)
  assert.equal(verifyWebhookSignature(body, [header], secret), true)
  assert.equal(verifyWebhookSignature(body, ['0'.repeat(64), header], secret), true)
  assert.equal(verifyWebhookSignature(body, null, secret), false)
})

test('the default tolerance is 300 s either way; Infinity turns the check off', () => {
  const created = Date.parse(JSON.parse(body).createdAt)
  assert.equal(constructEvent(body, header, secret, { now: new Date(created + 300_000) }).id, 'evt_1')
  assert.throws(() => constructEvent(body, header, secret, { now: new Date(created + 300_001) }), /301 s ago, outside the tolerance of 300 s/)
  assert.throws(() => constructEvent(body, header, secret, { now: new Date(created - 300_001) }), /in the future/)
  assert.equal(constructEvent(body, header, secret, { now: new Date(created + 86_400_000), toleranceSeconds: Infinity }).id, 'evt_1')
  assert.throws(() => constructEvent(body, header, secret, { toleranceSeconds: -1 }), /toleranceSeconds/)
})

test('an empty secret is a programming error, not a failed verification', () => {
  assert.throws(() => verifyWebhookSignature(body, header, ''), /secret must be/)
})

test('the event comes back typed: data narrows on type', () => {
  const event = constructEvent(body, header, secret)
  if (event.type === 'payment.succeeded') assert.equal(event.data.amount, 9900)
  else assert.fail('type')
  assert.deepEqual((event.data as unknown as { note: string }).note, '谢谢')
})

test('the README\'s Next.js recipe: request.text() of a delivery verifies, non-ASCII included', async () => {
  for (const v of file.vectors.filter((x) => x.valid)) {
    const request = new Request('http://shop.example/till/webhooks', { method: 'POST', body: Buffer.from(v.bodyBase64, 'base64') })
    assert.equal(verifyWebhookSignature(await request.text(), v.header, v.secret), true, v.name)
  }
})

test('the README\'s Fastify recipe: raw bytes inside the plugin, parsed JSON everywhere else', async (t) => {
  const app = Fastify()
  t.after(() => app.close())
  app.post('/orders', async (req) => ({ parsed: typeof req.body }))
  const events: string[] = []
  app.register(async (webhooks) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, raw, done) => done(null, raw))
    webhooks.post('/till/webhooks', async (req, reply) => {
      try {
        events.push(constructEvent(req.body as Buffer, req.headers['x-service-signature'], secret).id)
      } catch (err) {
        return reply.code(400).send((err as Error).message)
      }
      return reply.code(200).send()
    })
  })
  const deliver = (signature: string) => app.inject({
    method: 'POST', url: '/till/webhooks', payload: body, headers: { 'content-type': 'application/json', 'x-service-signature': signature },
  })
  assert.equal((await deliver(header)).statusCode, 200)
  const bad = await deliver('0'.repeat(64))
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /usual cause/)
  assert.deepEqual(events, ['evt_1'])
  const other = await app.inject({ method: 'POST', url: '/orders', payload: { a: 1 } })
  assert.deepEqual(other.json(), { parsed: 'object' })
})
