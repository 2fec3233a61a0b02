/**
 * Every request Till's Stripe adapter makes, judged by Stripe's official mock server
 * (github.com/stripe/stripe-mock, built by scripts/stripe-mock.sh and cached outside the clone): it
 * validates each path, method and parameter against Stripe's OpenAPI document and refuses unknown
 * parameters. stripe-mock is stateless (its answers are fixtures), so what is judged here is the
 * request; the flows are the fake's (stripe.test.ts). Without a Go toolchain the file is skipped,
 * except in CI.
 */
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { signPayload } from '../../src/providers/stripe/sign.js'
import { createStripeProvider } from '../../src/providers/stripe/index.js'
import type { ProviderConfig } from '../../src/providers/types.js'
import { gathered } from '../../src/providers/statement-stream.js'
import { ROOT } from '../helpers/process.js'

function stripeMockBinary(): string | null {
  try {
    return execFileSync('bash', ['scripts/stripe-mock.sh'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
  } catch (e) {
    if (process.env.CI === 'true') throw e
    return null
  }
}

const binary = stripeMockBinary()

/**
 * stripe-mock on loopback only (its HTTPS listener too), and a recording proxy in front of it;
 * `patch` may change a valid answer where a fixture lacks what Stripe would hold (the request is still judged).
 */
type Patch = (method: string, path: string, answer: Record<string, any>) => void
async function startJudge(t: import('node:test').TestContext, patch?: Patch) {
  const child = spawn(binary!, ['-http-addr', '127.0.0.1:', '-https-addr', '127.0.0.1:'], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => child.kill())
  const upstream = await new Promise<string>((resolve, reject) => {
    let out = ''
    const onData = (b: Buffer) => {
      out += b.toString()
      const m = /Listening for HTTP at address: (127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve(`http://${m[1]}`)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`stripe-mock exited ${code}: ${out}`)))
  })
  const seen: Array<{ method: string; path: string; status: number; error?: string }> = []
  const proxy = createServer(async (req, res) => {
    const body = await gathered((async function* () { for await (const c of req) yield c as Buffer })())
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>
    const answer = await fetch(upstream + req.url, { method: req.method, headers, body: req.method === 'POST' ? body.toString('utf8') : undefined })
    let text = await answer.text()
    if (patch && answer.ok) {
      const json = JSON.parse(text)
      patch(req.method!, req.url!, json)
      text = JSON.stringify(json)
    }
    seen.push({ method: req.method!, path: req.url!, status: answer.status, ...(answer.ok ? {} : { error: text }) })
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => proxy.close(() => resolve())))
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, seen }
}

const NOTIFY_URL = 'https://till.example/hooks/stripe/pc_mock'

test('stripe-mock accepts every request of the Stripe adapter', { skip: binary ? false : 'no Go toolchain to build stripe-mock' }, async (t) => {
  // The endpoint's fixture has no secret (Stripe shows it on creation), and its list no earlier
  // endpoint of Till's: given both, over two pages, so that the clean-up's requests are judged too.
  const judge = await startJudge(t, (method, path, answer) => {
    if (method === 'POST' && path === '/v1/webhook_endpoints') answer.secret = 'whsec_mock'
    if (method === 'GET' && path.startsWith('/v1/webhook_endpoints?')) {
      const first = !path.includes('starting_after')
      answer.data = [{ ...answer.data[0], id: first ? 'we_old' : 'we_other', url: first ? NOTIFY_URL : 'https://elsewhere.example/hook' }]
      answer.has_more = first
    }
  })
  const now = () => new Date('2026-05-20T04:00:00Z')
  const provider = createStripeProvider({ now, timeoutMs: 10_000 })
  t.after(() => provider.client.close())
  const cfg: ProviderConfig = { id: 'pc_mock', label: 'mock', credentials: { secretKey: 'sk_test_123', webhookSecret: 'whsec_judge123' }, settings: { apiBase: judge.url } }
  /** The adapter's reading of a fixture may fail (it names no attempt of ours); the request is what is judged. */
  const tryIt = async (f: () => Promise<unknown>) => f().catch(() => undefined)

  await tryIt(() => provider.createAttempt(cfg, {
    attemptId: 'att_mock1', sessionId: 'sess_mock1', amount: 1500, currency: 'JPY', description: 'Blue mug', channel: null,
    notifyUrl: 'https://till.example/hooks/stripe/pc_mock', returnUrl: 'https://till.example/c/sess_mock1/done', checkoutUrl: 'https://till.example/c/sess_mock1',
    expiresAt: new Date(now().getTime() + 3600_000), options: {},
  }))
  const ref = { attemptId: 'att_mock1', providerRef: 'cs_test_mock', data: { checkoutSessionId: 'cs_test_mock', paymentIntentId: 'pi_mock' } }
  await tryIt(() => provider.queryPayment(cfg, ref))
  await tryIt(() => provider.closePayment(cfg, ref))
  await tryIt(() => provider.refund(cfg, { refundId: 'rf_mock', amount: 500, totalAmount: 1500, currency: 'JPY', reason: 'damaged in transit', payment: ref, notifyUrl: '' }))
  await tryIt(() => provider.queryRefund(cfg, { refundId: 'rf_mock', providerRefundRef: 're_mock', amount: 500, createdAt: now(), payment: ref }))
  await tryIt(() => provider.queryRefund(cfg, { refundId: 'rf_mock', providerRefundRef: null, amount: 500, createdAt: now(), payment: ref }))
  // Events make the adapter read their object back.
  const nowSec = now().getTime() / 1000
  for (const [type, object] of [['checkout.session.completed', { id: 'cs_test_mock', client_reference_id: 'att_mock1' }], ['refund.updated', { id: 're_mock' }], ['charge.dispute.created', { id: 'dp_mock' }]] as const) {
    const body = Buffer.from(JSON.stringify({ id: 'evt_mock', object: 'event', type, data: { object } }))
    await provider.parseNotification(cfg, { body, headers: { 'stripe-signature': `t=${nowSec},v1=${signPayload('whsec_judge123', nowSec, body)}` } })
  }
  const completed = await provider.completeCredentials!({ credentials: { secretKey: 'sk_test_123' }, settings: { apiBase: judge.url } }, NOTIFY_URL)
  assert.equal(completed.webhookSecret, 'whsec_mock')
  const day = await provider.statements!.fetch(cfg, '2026-05-18')
  assert.ok(day.ready)
  for await (const f of day.files) await gathered(f.body)

  assert.deepEqual(judge.seen.filter((r) => r.status !== 200), [], 'every request valid for stripe-mock')
  assert.deepEqual(judge.seen.map((r) => `${r.method} ${r.path.replace(/\?.*/, '')}`), [
    'POST /v1/checkout/sessions',
    'GET /v1/checkout/sessions/cs_test_mock',
    'POST /v1/checkout/sessions/cs_test_mock/expire',
    'GET /v1/checkout/sessions/cs_test_mock',
    'POST /v1/refunds',
    'GET /v1/refunds/re_mock',
    'GET /v1/refunds',
    'GET /v1/checkout/sessions/cs_test_mock',
    'GET /v1/refunds/re_mock',
    'GET /v1/disputes/dp_mock',
    'POST /v1/webhook_endpoints',
    'GET /v1/webhook_endpoints',
    'GET /v1/webhook_endpoints',
    'DELETE /v1/webhook_endpoints/we_old',
    'GET /v1/balance_transactions',
  ])
  assert.match(judge.seen.find((r) => r.path.includes('starting_after'))?.path ?? '', /^\/v1\/webhook_endpoints\?limit=100&starting_after=we_old$/)
})

test('stripe-mock refuses what Stripe would: the judge is not a rubber stamp', { skip: binary ? false : 'no Go toolchain to build stripe-mock' }, async (t) => {
  const judge = await startJudge(t)
  const provider = createStripeProvider({ timeoutMs: 10_000 })
  t.after(() => provider.client.close())
  await assert.rejects(provider.client.callWith(judge.url, 'sk_test_123', 'POST', '/v1/checkout/sessions', { body: { mode: 'payment', not_a_stripe_field: 1 } }), { outcome: 'rejected' })
  await assert.rejects(provider.client.callWith(judge.url, 'sk_test_123', 'POST', '/v1/refunds', { body: { payment_intent: 'pi_1', amount: 'ten' } }), { outcome: 'rejected' })
  assert.deepEqual(judge.seen.map((r) => r.status), [400, 400])
})
