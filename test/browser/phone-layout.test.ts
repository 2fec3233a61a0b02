/**
 * The pages on a 375 px phone, in Chinese and in English (issue #27 §8): labels such as 付款时间 stay
 * on one line, a time keeps its zone and an amount its code on the same line, only ids may break
 * between any two characters, and nothing scrolls sideways. The hosted pages (checkout, result,
 * receipt) and the console (payments, a payment, a refund's confirmation, keys, settings), each with
 * long descriptions, metadata and Chinese text that used to squeeze the labels.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { paidSession, startTestApp } from '../helpers/app.js'
import { launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
import { createSession } from '../helpers/store-queries.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const DESCRIPTION = '蓝色陶瓷马克杯，容量三百五十毫升，手工上釉，每一只的颜色都略有不同 · Hand-glazed blue ceramic mug, 350 ml, SKU-MUG-BLUE-350-GLAZED-2026'

/**
 * What a reader would see go wrong, as messages: empty when the page reads well. Plain script text
 * run in the page (tsx would wrap the named functions of an evaluated callback in a helper the page lacks).
 */
const LAYOUT_PROBLEMS = `(() => {
  const problems = []
  // The lines a stretch of text is laid out on (its boxes' distinct tops; a box may be taller than its text).
  const lines = (range) => new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size
  // Labels: one line each.
  for (const el of document.querySelectorAll('dt, .amount-label, .timer-label')) {
    const range = document.createRange()
    range.selectNodeContents(el)
    if (lines(range) > 1) problems.push('label "' + el.textContent + '" is on ' + lines(range) + ' lines')
  }
  // The label of a table cell stacked on a phone (td::before) does not wrap either.
  for (const td of document.querySelectorAll('td[data-label]')) {
    const before = getComputedStyle(td, '::before')
    if (before.content !== 'none' && before.whiteSpace !== 'nowrap') problems.push('the stacked label "' + td.getAttribute('data-label') + '" may wrap')
  }
  // Only ids break anywhere: an element that starts breaking words at any character is an id's.
  const breaksAnywhere = (el) => {
    const s = getComputedStyle(el)
    return s.overflowWrap === 'anywhere' || s.wordBreak === 'break-all'
  }
  for (const el of document.body.querySelectorAll('*')) {
    const parent = el.parentElement
    if (breaksAnywhere(el) && !(parent && breaksAnywhere(parent)) && !(el.tagName === 'CODE' || el.classList.contains('mono'))) {
      problems.push('<' + el.tagName.toLowerCase() + ' class="' + el.className + '"> breaks words anywhere: "' + (el.textContent || '').slice(0, 40) + '"')
    }
  }
  // A time with its zone, and an amount with its code, each on one line.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  const together = /\\d{1,2}:\\d\\d[\\s\\u00a0](?:UTC|GMT[+-]\\d+)|[¥$€]\\d[\\d,.]*\\u00a0[A-Z]{3}/g
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of (node.textContent || '').matchAll(together)) {
      const range = document.createRange()
      range.setStart(node, m.index)
      range.setEnd(node, m.index + m[0].length)
      if (lines(range) > 1) problems.push('"' + m[0] + '" is split over ' + lines(range) + ' lines')
    }
  }
  const { scrollWidth, clientWidth } = document.documentElement
  if (scrollWidth > clientWidth) problems.push('the page is ' + scrollWidth + 'px wide in ' + clientWidth + 'px')
  return problems
})()`

const layoutProblems = (page: Page): Promise<string[]> => page.evaluate(LAYOUT_PROBLEMS)

test('the hosted pages on a phone, in Chinese and English: labels on one line, times and amounts whole, only ids broken', async (t) => {
  const ta = await startTestApp(t)
  ta.clock.set(new Date('2026-11-21T09:30:00.000Z'))
  const open = await createSession(ta, { amount: 99999999, currency: 'HKD', description: DESCRIPTION })
  const failed = await createSession(ta, { amount: 9900, currency: 'CNY', description: DESCRIPTION, successUrl: 'http://localhost:3000/thanks' })
  await ta.request('POST', `/api/v1/test_helpers/sessions/${failed.id}/fail`, { key: ta.merchant.testKey })
  const paid = await paidSession(ta, { amount: 9999999, currency: 'USD', description: DESCRIPTION })
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: paid.record.id, amount: 1000 } })
  const found: string[] = []
  for (const locale of ['zh-CN', 'en']) {
    const { page, problems } = await openPage(t, browser, { ...PHONE, locale, timezoneId: 'Asia/Shanghai' })
    for (const [name, path] of [['checkout', `/c/${open.id}`], ['failed', `/c/${failed.id}`], ['receipt', `/r/${paid.record.id}`]]) {
      await page.goto(ta.baseUrl + path)
      await screenshot(page, `phone-layout-${name}-${locale}`)
      found.push(...(await layoutProblems(page)).map((p) => `${name} ${locale}: ${p}`))
    }
    assert.deepEqual(problems, [])
  }
  assert.deepEqual(found, [])
})

test('the console on a phone, in Chinese and English: labels on one line, times and amounts whole, only ids broken', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, '蓝色杯子陶瓷制品有限公司', 'cups@example.com')
  const paid = await paidSession({ ...ta, merchant: m }, { amount: 9900, currency: 'CNY', description: DESCRIPTION, metadata: { order: 'A-1042-BLUE-MUG-350-GLAZED', customer: '张三 · Zhang San' } })
  await ta.request('POST', '/api/v1/refunds', { key: m.testKey, body: { recordId: paid.record.id, amount: 1000, reason: '杯柄有裂纹 · cracked handle' } })
  const found: string[] = []
  for (const [locale, labels] of [['zh-CN', { email: '邮箱', password: '密码', submit: '登录', review: '核对退款', amount: '退款金额（CNY）' }], ['en', { email: 'Email', password: 'Password', submit: 'Sign in', review: 'Review refund', amount: 'Amount to refund (CNY)' }]] as const) {
    const { page, problems } = await openPage(t, browser, { ...PHONE, locale })
    await page.goto(`${ta.baseUrl}/console/login`)
    await page.getByLabel(labels.email).fill(m.email)
    await page.getByLabel(labels.password).fill(m.password)
    await Promise.all([page.waitForURL('**/console/test/payments'), page.getByRole('button', { name: labels.submit }).click()])
    const pages: [string, () => Promise<unknown>][] = [
      ['payments', () => page.goto(`${ta.baseUrl}/console/test/payments`)],
      ['payment', () => page.goto(`${ta.baseUrl}/console/test/payments/${paid.id}`)],
      ['refund-confirm', async () => {
        await page.getByLabel(labels.amount).fill('25.50')
        await Promise.all([page.waitForURL('**/refund'), page.getByRole('button', { name: labels.review }).click()])
      }],
      ['keys', () => page.goto(`${ta.baseUrl}/console/test/keys`)],
      ['settings', () => page.goto(`${ta.baseUrl}/console/test/settings`)],
    ]
    for (const [name, go] of pages) {
      await go()
      await screenshot(page, `phone-layout-console-${name}-${locale}`)
      found.push(...(await layoutProblems(page)).map((p) => `${name} ${locale}: ${p}`))
    }
    assert.deepEqual(problems, [])
  }
  assert.deepEqual(found, [])
})
