/**
 * The customer's return from Creem to the relay (/c/<id>/done): a valid signature for this
 * session's attempt makes Till ask Creem at once; only Creem's answer marks anything paid. An
 * invalid, absent or foreign signature changes nothing, and the relay waits as always. Each test
 * asserts why the relay's wait ended (its Server-Timing header), not how long it took; the relay
 * waits RELAY_WAIT_MS here instead of 5 s, so a wait that runs out does not cost 5 s.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test, type TestContext } from 'node:test'
import { reconcileAttempts } from '../../src/jobs/reconcile.js'
import { creemTill, type CreemTill } from '../helpers/creem-till.js'
import { relayWait } from '../helpers/pages.js'
import { until } from '../helpers/wait.js'

const SUCCESS_URL = 'https://shop.example/thanks?order=42'
/**
 * The relay's limit where it is meant to run out (5 s in production, which the test that expects a
 * confirmation keeps: a signal or an answer ends that wait early, so it costs nothing).
 */
const RELAY_WAIT_MS = 1000
const till = (t: TestContext) => creemTill(t, { relayWaitMs: RELAY_WAIT_MS })

async function relay(c: CreemTill, path: string) {
  const res = await fetch(c.ta.baseUrl + path, { redirect: 'manual' })
  return { status: res.status, location: res.headers.get('location') ?? '', wait: relayWait(res.headers) }
}

const relayPath = (redirect: string) => {
  const u = new URL(redirect)
  return u.pathname + u.search
}

const checkoutReads = async (c: CreemTill) => (await c.ctl.requests()).filter((r) => r.method === 'GET' && r.path.startsWith('/v1/checkouts')).length

test('webhook lost: the signed return makes Till ask Creem, and the customer reaches successUrl paid', async (t) => {
  const c = await creemTill(t)
  await c.ctl.notifications({ mode: 'drop' })
  const id = await c.session({ successUrl: SUCCESS_URL })
  const { attempt } = await c.start(id)
  const { redirect } = await c.ctl.complete(attempt.providerRef!)
  assert.ok(redirect!.startsWith(`${c.ta.baseUrl}/c/${id}/done?request_id=${attempt.id}&checkout_id=`))
  const r = await relay(c, relayPath(redirect!))
  assert.equal(r.wait, 'none', 'Creem\'s answer made it paid before the relay had to wait')
  const s = await c.read(id)
  assert.equal(s.status, 'paid')
  assert.deepEqual([r.status, r.location], [303, `https://shop.example/thanks?order=42&session_id=${id}&record_id=${s.record.id}&paid_confirmed=1`])
  assert.equal(await checkoutReads(c), 1)
  assert.deepEqual(await c.types('sessionId', id), ['payment.succeeded'])
})

test('a forged return (wrong signature) changes nothing: Creem is not asked and the relay says not confirmed', async (t) => {
  const c = await till(t)
  const id = await c.session({ successUrl: SUCCESS_URL })
  const { attempt } = await c.start(id)
  const forged = `/c/${id}/done?request_id=${attempt.id}&checkout_id=${attempt.providerRef}&order_id=ord_x&customer_id=cust_x&product_id=prod_x&signature=${'0'.repeat(64)}`
  const unsigned = `/c/${id}/done?request_id=${attempt.id}&checkout_id=${attempt.providerRef}`
  for (const path of [forged, unsigned]) {
    const r = await relay(c, path)
    assert.equal(r.wait, 'timeout', 'still in flight at the relay\'s limit')
    assert.deepEqual([r.status, r.location], [303, `https://shop.example/thanks?order=42&session_id=${id}&paid_confirmed=0`])
  }
  assert.equal((await c.read(id)).status, 'processing')
  assert.equal(await checkoutReads(c), 0)
})

test('a return signed with the right key is still only a hint: an unpaid checkout stays unpaid', async (t) => {
  const c = await till(t)
  const id = await c.session({ successUrl: SUCCESS_URL })
  const { attempt } = await c.start(id)
  // Whoever holds the API key could sign this; Creem's API still says the checkout is not paid.
  const params = `request_id=${attempt.id}&checkout_id=${attempt.providerRef}&product_id=${attempt.providerData.productId}`
  const canonical = `${params.replaceAll('&', '|')}|salt=${c.creds.apiKey}`
  const signature = createHash('sha256').update(canonical).digest('hex')
  const r = await relay(c, `/c/${id}/done?${params}&signature=${signature}`)
  assert.equal(r.wait, 'timeout')
  assert.equal(r.location, `https://shop.example/thanks?order=42&session_id=${id}&paid_confirmed=0`)
  await until('Creem is asked', 30_000, async () => (await checkoutReads(c)) > 0)
  assert.equal(await checkoutReads(c), 1, 'Creem was asked once')
  assert.equal((await c.read(id)).status, 'processing')
})

test('a genuine return for another session\'s attempt does not touch this session', async (t) => {
  const c = await till(t)
  await c.ctl.notifications({ mode: 'drop', persist: true })
  const mine = await c.session({ successUrl: SUCCESS_URL })
  await c.start(mine)
  const theirs = await c.session({ successUrl: SUCCESS_URL })
  const { attempt } = await c.start(theirs)
  const { redirect } = await c.ctl.complete(attempt.providerRef!)
  const query = new URL(redirect!).search
  const r = await relay(c, `/c/${mine}/done${query}`)
  assert.equal(r.wait, 'timeout')
  assert.equal(r.location, `https://shop.example/thanks?order=42&session_id=${mine}&paid_confirmed=0`)
  assert.deepEqual([(await c.read(mine)).status, (await c.read(theirs)).status], ['processing', 'processing'])
  assert.equal(await checkoutReads(c), 0)
})

test('Creem too slow to answer: the relay still answers at its limit, and reconciliation records the payment', async (t) => {
  const c = await till(t)
  await c.ctl.notifications({ mode: 'drop' })
  const id = await c.session({ successUrl: SUCCESS_URL })
  const { attempt } = await c.start(id)
  const { redirect } = await c.ctl.complete(attempt.providerRef!)
  // Creem answers only after the relay's limit: the relay does not wait for it.
  await c.ctl.error({ route: 'getCheckout', status: 503, hangMs: RELAY_WAIT_MS * 2 })
  const r = await relay(c, relayPath(redirect!))
  assert.equal(r.wait, 'timeout')
  assert.equal(r.location, `https://shop.example/thanks?order=42&session_id=${id}&paid_confirmed=0`)
  c.ta.clock.advance(60_000)
  assert.equal(await reconcileAttempts(c.ta.deps), 1)
  assert.equal((await c.read(id)).status, 'paid')
})
