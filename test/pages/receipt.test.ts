/** /r/<record_id>, the receipt (issue #3 §4): every record state, amounts through the currency table, 404. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { refundRecord as refund } from '../helpers/merchant-api.js'
import { getPage } from '../helpers/pages.js'

/** The value shown beside a label in the receipt's list of facts. */
function fact(html: string, label: string): string | null {
  const m = new RegExp(`<dt>${label}</dt><dd>(.*?)</dd>`).exec(html)
  return m ? m[1] : null
}

test('a paid receipt shows merchant, amount, currency, status, time paid and the record id', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY', description: 'Blue mug' })
  const page = await getPage(ta, `/r/${paid.record.id}`)
  assert.equal(page.status, 200)
  assert.ok(page.html.includes('<title>[TEST MODE] Receipt from Acme</title>'))
  assert.ok(page.html.includes('<p class="amount-big">¥99.00\u00a0CNY</p>'))
  assert.equal(fact(page.html, 'Paid to'), 'Acme')
  assert.equal(fact(page.html, 'For'), 'Blue mug')
  assert.equal(fact(page.html, 'Amount'), '¥99.00\u00a0CNY')
  assert.equal(fact(page.html, 'Currency'), 'CNY')
  assert.equal(fact(page.html, 'Status'), '<span class="status status-paid">Paid</span>')
  assert.equal(fact(page.html, 'Paid at'), '<time datetime="2026-11-21T09:30:00.000Z">Nov 21, 2026, 09:30\u00a0UTC</time>')
  assert.equal(fact(page.html, 'Receipt number'), `<code>${paid.record.id}</code>`)
  assert.equal(fact(page.html, 'Refunded'), null)
  assert.ok(page.html.includes('<strong>TEST MODE</strong>'))
  // No buttons here, so the banner speaks of none.
  assert.ok(page.html.includes('<span>No real money moves.</span>'))
  assert.doesNotMatch(page.html, /button/i)
  assert.equal((page.html.match(/<form\b/g) ?? []).length, 0)
})

test('JPY on a receipt is whole yen', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta, { amount: 1500, currency: 'JPY' })
  const page = await getPage(ta, `/r/${paid.record.id}`)
  assert.equal(fact(page.html, 'Amount'), '¥1,500\u00a0JPY')
  assert.equal(fact(page.html, 'Currency'), 'JPY')
})

test('partially refunded, refunded and refunding records say so, with the refunded amount', async (t) => {
  const ta = await startTestApp(t)
  const partial = await paidSession(ta, { amount: 2500, currency: 'USD' })
  assert.equal((await refund(ta, partial.record.id, 1000)).status, 200)
  const full = await paidSession(ta, { amount: 2500, currency: 'USD' })
  assert.equal((await refund(ta, full.record.id)).status, 200)
  const slow = await paidSession(ta, { amount: 2500, currency: 'USD' }, 'pending')
  assert.equal((await refund(ta, slow.record.id, 500)).body.status, 'refunding')

  const cases: [string, string, string | null][] = [
    [partial.record.id, '<span class="status status-partially_refunded">Partially refunded</span>', '$10.00\u00a0USD'],
    [full.record.id, '<span class="status status-refunded">Refunded</span>', '$25.00\u00a0USD'],
    // A pending refund has not moved money yet: nothing shows as refunded.
    [slow.record.id, '<span class="status status-refunding">Refund in progress</span>', null],
  ]
  for (const [id, status, refunded] of cases) {
    const page = await getPage(ta, `/r/${id}`)
    assert.equal(page.status, 200)
    assert.equal(fact(page.html, 'Status'), status)
    assert.equal(fact(page.html, 'Refunded'), refunded)
    assert.equal(fact(page.html, 'Amount'), '$25.00\u00a0USD')
    // The headline: what was paid and, once money came back, what was refunded.
    const headline = refunded
      ? `<p class="amount-big"><span class="amount-paid">$25.00\u00a0USD paid</span><span class="amount-refunded">${refunded} refunded</span></p>`
      : '<p class="amount-big">$25.00\u00a0USD</p>'
    assert.ok(page.html.includes(headline), page.html)
  }
})

test('the receipt in Chinese', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const paid = await paidSession(ta, { amount: 9900, currency: 'CNY' })
  const page = await getPage(ta, `/r/${paid.record.id}`, { 'accept-language': 'zh-CN,zh;q=0.9' })
  assert.match(page.html, /<html lang="zh-CN">/)
  assert.equal(fact(page.html, '收款方'), 'Acme')
  assert.equal(fact(page.html, '金额'), '¥99.00\u00a0CNY')
  assert.equal(fact(page.html, '状态'), '<span class="status status-paid">已支付</span>')
  assert.equal(fact(page.html, '付款时间'), '<time datetime="2026-11-21T09:30:00.000Z">2026年11月21日 09:30\u00a0UTC</time>')
  assert.ok(page.html.includes('<strong>测试模式</strong>'))
})

test('unknown and malformed record ids get the 404 page', async (t) => {
  const ta = await startTestApp(t)
  const paid = await paidSession(ta)
  for (const path of ['/r/rec_AAAAAAAAAAAAAAAAAAAAAAAA', '/r/nope', `/r/${paid.id}`, '/r/', `/r/${paid.record.id}/x`]) {
    const page = await getPage(ta, path)
    assert.equal(page.status, 404, path)
    assert.ok(page.html.includes('<h1 id="message-title">Page not found</h1>'), path)
    assert.ok(!page.html.includes('Acme'), path)
  }
})
