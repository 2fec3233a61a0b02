/** The merchant's refund limit (docs/console.md#the-refund-limit): support refunds up to it, anyone above it steps up. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { STEP_UP_MS } from '../../src/services/second-factor.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { csrfOf, signedIn, type ConsoleBrowser } from '../helpers/console.js'
import { memberWithRole } from '../helpers/members.js'
import { enrol } from '../helpers/second-factor.js'
import { totpAt } from '../helpers/totp.js'

/** The refund form posted with `amount` (major units), then its confirmation as the browser would post it. */
async function refund(b: ConsoleBrowser, sessionId: string, amount: string) {
  const page = await b.get(`/console/test/payments/${sessionId}`)
  const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.html)![1]
  const review = await b.post(`/console/test/payments/${sessionId}/refund`, { csrf: csrfOf(page.html), idempotencyKey: key, amount })
  if (review.status !== 200) return review
  const form = /<form method="post" action="[^"]+\/refund"[^>]*>([\s\S]*?)<\/form>/.exec(review.html)!
  const fields = Object.fromEntries([...form[1].matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]))
  return b.post(`/console/test/payments/${sessionId}/refund`, fields)
}

async function shop(ta: TestApp) {
  const { m, browser } = await signedIn(ta)
  const pay = (amount: number, currency: string) => paidSession({ ...ta, merchant: { id: m.id, testKey: m.testKey, liveKey: m.liveKey } }, { amount, currency })
  const refunded = async (id: string) => (await ta.request('GET', `/api/v1/sessions/${id}`, { key: m.testKey })).body.record.refundedAmount as number
  return { m, owner: browser, pay, refunded }
}

test('an owner sets the limits in Settings; a wrong map is refused with why and changes nothing', async (t) => {
  const ta = await startTestApp(t)
  const { owner } = await shop(ta)
  assert.equal((await owner.submit('/console/test/settings', '/console/test/settings/refund-limits', { refundLimits: '{"CNY": 5000, "JPY": 3000}' })).status, 303)
  const bad = await owner.submit('/console/test/settings', '/console/test/settings/refund-limits', { refundLimits: '{"CNY": 12.5}' })
  assert.equal(bad.status, 400)
  assert.match(bad.html, /whole number of minor units/)
  assert.match((await owner.get('/console/test/settings')).html, /\{&quot;CNY&quot;:5000,&quot;JPY&quot;:3000\}|\{"CNY":5000,"JPY":3000\}/)
  assert.match((await owner.get('/console/test/activity')).html, /data-action="refund_limits_changed"/)
})

test('support refunds up to the limit of the currency, nothing above it, and nothing in a currency without one', async (t) => {
  const ta = await startTestApp(t)
  const { owner, pay, refunded } = await shop(ta)
  await owner.submit('/console/test/settings', '/console/test/settings/refund-limits', { refundLimits: '{"CNY": 5000}' })
  const support = (await memberWithRole(ta, owner, 'support')).browser
  const cny = await pay(9000, 'CNY')
  const over = await refund(support, cny.id, '50.01')
  assert.equal(over.status, 403)
  assert.match(over.html, /above your refund limit \(¥50\.00/)
  assert.equal((await refund(support, cny.id, '50.00')).status, 303)
  assert.equal(await refunded(cny.id), 5000)
  const jpy = await pay(1000, 'JPY')
  const none = await refund(support, jpy.id, '1')
  assert.equal(none.status, 403)
  assert.match(none.html, /no refund limit in JPY/)
  assert.equal(await refunded(jpy.id), 0)
})

test('an owner\'s refund above the limit asks for the second factor when the last check is old, then the same confirmation goes through', async (t) => {
  const ta = await startTestApp(t)
  const { owner, pay, refunded } = await shop(ta)
  const { secret } = await enrol(ta, owner)
  await owner.submit('/console/test/settings', '/console/test/settings/refund-limits', { refundLimits: '{"CNY": 5000}' })
  const paid = await pay(9000, 'CNY')
  ta.clock.advance(STEP_UP_MS + 1000)
  assert.equal((await refund(owner, paid.id, '10.00')).status, 303, 'under the limit: no step-up')
  const asked = await refund(owner, paid.id, '60.00')
  assert.equal(asked.status, 200)
  assert.match(asked.html, /data-step-up/)
  assert.equal(await refunded(paid.id), 1000)
  const fields = Object.fromEntries([...asked.html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]))
  const done = await owner.post(`/console/test/payments/${paid.id}/refund`, { ...fields, second_factor_code: totpAt(secret, ta.clock()) })
  assert.equal(done.status, 303)
  assert.equal(await refunded(paid.id), 7000)
})
