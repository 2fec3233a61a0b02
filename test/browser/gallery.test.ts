/**
 * Every page state, at phone and desktop widths, in both languages: each one renders in Chromium
 * with its own heading and words, no CSP violation or script error, nothing overflows sideways,
 * no serious WCAG A/AA finding of axe-core, text colours at AA contrast (docs/architecture.md), and a screenshot
 * is saved to test-artifacts/ (`gallery-<state>-<width>-<lang>.png`) for people to look at.
 */
import assert from 'node:assert/strict'
import axe from 'axe-core'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { createMockProvider } from '../../src/providers/mock/index.js'
import { createRegistry } from '../../src/providers/registry.js'
import type { PaymentProvider } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/attempts.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'
import { pressButton } from '../helpers/pages.js'
import { createSession } from '../helpers/store-queries.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const DESCRIPTION = 'Blue ceramic mug, 350 ml'

/** Makes one session or record in each state; returns the path that shows it. */
async function states(ta: TestApp): Promise<[string, string][]> {
  const helper = (id: string, action: string) => ta.request('POST', `/api/v1/test_helpers/sessions/${id}/${action}`, { key: ta.merchant.testKey })
  const body = { amount: 9900, currency: 'CNY', description: DESCRIPTION, successUrl: 'http://localhost:3000/thanks' }

  const pending = await createSession(ta, body)
  const processing = await createSession(ta, body)
  await startAttempt(ta.deps, processing.id, { provider: 'mock', providerConfigId: null, channel: 'mock' })
  const paid = await paidSession(ta, { ...body, amount: 1500, currency: 'JPY' })
  const refunded = await paidSession(ta, body)
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: refunded.record.id } })
  const partial = await paidSession(ta, { amount: 2500, currency: 'USD', description: DESCRIPTION })
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: partial.record.id, amount: 1000 } })
  const refunding = await paidSession(ta, { amount: 2500, currency: 'EUR' }, 'pending')
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: refunding.record.id } })
  const failed = await createSession(ta, body)
  await helper(failed.id, 'fail')
  const canceled = await createSession(ta, { amount: 9900, currency: 'CNY' })
  await helper(canceled.id, 'cancel')
  const expired = await createSession(ta, body)
  await helper(expired.id, 'expire')

  // Live: WeChat Pay with no adapter (not available yet), and Creem through a stand-in adapter showing a QR code.
  await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'main', credentials: creemCredentials() })
  const live = (b: Record<string, unknown>) => ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: b }).then((r) => r.body)
  const liveCny = await live({ amount: 9900, currency: 'CNY', description: DESCRIPTION })
  const liveUsd = await live({ amount: 2500, currency: 'USD' })
  const mock = createMockProvider(() => new Date())
  const qr: PaymentProvider = { ...mock, id: 'creem', createAttempt: async () => ({ action: { kind: 'qr', content: 'https://pay.example/qr/123456' } }) }
  ta.deps.providers = createRegistry([mock, qr])

  return [
    ['test-pending', `/c/${pending.id}`],
    ['test-processing', `/c/${processing.id}`],
    ['paid', `/c/${paid.id}`],
    ['refunded', `/c/${refunded.id}`],
    ['failed', `/c/${failed.id}`],
    ['canceled', `/c/${canceled.id}`],
    ['expired', `/c/${expired.id}`],
    ['receipt-paid', `/r/${paid.record.id}`],
    ['receipt-partially-refunded', `/r/${partial.record.id}`],
    ['receipt-refunded', `/r/${refunded.record.id}`],
    ['receipt-refunding', `/r/${refunding.record.id}`],
    ['not-found', '/r/rec_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['live-choose', `/c/${liveCny.id}`],
    ['live-unavailable', `/c/${liveCny.id}?unavailable=wechat`],
    ['live-failed', `/c/${liveUsd.id}?failed=creem`],
    ['live-qr', `qr:${liveUsd.id}`],
  ]
}

type Lang = 'en' | 'zh-CN'

/** Each state's heading and words of its own (which no other state shows), and words it must not show. */
const OWN: Record<string, Record<Lang, { h1: string; says: string[]; not?: string[] }>> = {
  'test-pending': {
    en: { h1: 'Pay Acme', says: ['Amount due\n¥99.00 CNY', 'Pay ¥99.00 CNY', 'Simulate a failed payment'], not: ['A payment has been started'] },
    'zh-CN': { h1: '向 Acme 付款', says: ['应付金额\n¥99.00 CNY', '支付 ¥99.00 CNY', '模拟付款失败'], not: ['已开始一笔付款'] },
  },
  'test-processing': {
    en: { h1: 'Pay Acme', says: ['A payment has been started. If you did not finish it, you can pay again below.', 'Pay ¥99.00 CNY'] },
    'zh-CN': { h1: '向 Acme 付款', says: ['已开始一笔付款。如果您没有完成，可以在下方重新付款。', '支付 ¥99.00 CNY'] },
  },
  paid: {
    en: { h1: 'Payment received', says: ['Thank you. Acme has received your payment.', '¥1,500 JPY', 'View receipt'] },
    'zh-CN': { h1: '付款成功', says: ['谢谢，Acme已收到您的付款。', '¥1,500 JPY', '查看收据'] },
  },
  refunded: {
    en: { h1: 'Payment refunded', says: ['This payment to Acme was refunded in full.', '¥99.00 CNY'] },
    'zh-CN': { h1: '已退款', says: ['您向Acme的这笔付款已全额退款。', '¥99.00 CNY'] },
  },
  failed: {
    en: { h1: 'Payment failed', says: ['The payment did not go through and no money was taken.'], not: ['View receipt'] },
    'zh-CN': { h1: '付款失败', says: ['付款未成功，未扣款。'], not: ['查看收据'] },
  },
  canceled: {
    en: { h1: 'Payment canceled', says: ['You canceled this payment and no money was taken.'] },
    'zh-CN': { h1: '付款已取消', says: ['您已取消这笔付款，未扣款。'] },
  },
  expired: {
    en: { h1: 'This checkout has expired', says: ['It was not paid in time and no money was taken.'] },
    'zh-CN': { h1: '此付款页面已过期', says: ['未在有效期内付款，未扣款。'] },
  },
  'receipt-paid': {
    en: { h1: 'Receipt', says: ['Status\nPaid\n', 'Amount\n¥1,500 JPY'], not: ['Refunded'] },
    'zh-CN': { h1: '收据', says: ['状态\n已支付\n', '金额\n¥1,500 JPY'], not: ['已退款'] },
  },
  'receipt-partially-refunded': {
    en: { h1: 'Receipt', says: ['$25.00 USD paid\n$10.00 USD refunded', 'Status\nPartially refunded'] },
    'zh-CN': { h1: '收据', says: ['已付 $25.00 USD\n已退 $10.00 USD', '状态\n部分退款'] },
  },
  'receipt-refunded': {
    en: { h1: 'Receipt', says: ['¥99.00 CNY paid\n¥99.00 CNY refunded', 'Status\nRefunded'] },
    'zh-CN': { h1: '收据', says: ['已付 ¥99.00 CNY\n已退 ¥99.00 CNY', '状态\n已退款'] },
  },
  'receipt-refunding': {
    en: { h1: 'Receipt', says: ['Status\nRefund in progress', '€25.00 EUR'] },
    'zh-CN': { h1: '收据', says: ['状态\n退款处理中', '€25.00 EUR'] },
  },
  'not-found': {
    en: { h1: 'Page not found', says: ['This link is not valid. Check it, or ask whoever sent it for a new one.'] },
    'zh-CN': { h1: '页面不存在', says: ['此链接无效。请检查链接，或向发送者索取新的链接。'] },
  },
  'live-choose': {
    en: { h1: 'Pay Acme', says: ['Choose how to pay', 'Pay with WeChat Pay'], not: ['TEST MODE', 'not available'] },
    'zh-CN': { h1: '向 Acme 付款', says: ['选择支付方式', '微信支付'], not: ['测试模式', '暂不可用'] },
  },
  'live-unavailable': {
    en: { h1: 'Pay Acme', says: ['WeChat Pay is not available yet. Please choose another way to pay, or try again later.'] },
    'zh-CN': { h1: '向 Acme 付款', says: ['微信支付暂不可用。请选择其他支付方式，或稍后再试。'] },
  },
  'live-failed': {
    en: { h1: 'Pay Acme', says: ['Creem could not start the payment just now. Please try again, or choose another way to pay.', '$25.00 USD'] },
    'zh-CN': { h1: '向 Acme 付款', says: ['Creem暂时无法发起付款。请重试，或选择其他支付方式。', '$25.00 USD'] },
  },
  'live-qr': {
    en: { h1: 'Scan this code with Creem to pay', says: ['This page moves on by itself as soon as your payment is confirmed.', 'I have paid'] },
    'zh-CN': { h1: '请用Creem扫描二维码付款', says: ['付款确认后，此页面会自动跳转。', '我已付款'] },
  },
}

/**
 * axe-core's findings on the page as it stands: colour contrast (WCAG AA) always; with `all`, every
 * WCAG A/AA rule, keeping the serious and critical findings. Injected through the DevTools protocol,
 * which the page's CSP does not govern, so the page's own policy stays as strict as served.
 */
async function axeFindings(page: Page, all: boolean): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source)
  const only = all ? { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } : { type: 'rule', values: ['color-contrast'] }
  const violations = await page.evaluate((runOnly) => (window as any).axe.run(document, { runOnly, resultTypes: ['violations'] }).then((r: any) =>
    r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => `${n.target.join(' ')}: ${n.any[0]?.message ?? n.failureSummary}`) }))), only)
  return violations
    .filter((v: { id: string; impact: string }) => v.id === 'color-contrast' || v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v: { id: string; nodes: string[] }) => v.nodes.map((n) => `${v.id} ${n}`))
}

const VARIANTS: [string, BrowserContextOptions, Lang][] = [
  ['phone', PHONE, 'en'],
  ['phone', PHONE, 'zh-CN'],
  ['desktop', DESKTOP, 'en'],
  ['desktop', DESKTOP, 'zh-CN'],
]

test('every page state renders cleanly at both widths in both languages', { concurrency: VARIANTS.length }, async (t) => {
  // One app and one set of states for every variant, the variants side by side: most of their time is waiting on each other's round trips.
  const ta = await startTestApp(t)
  const paths = await states(ta)
  await Promise.all(VARIANTS.map(([width, viewport, lang]) => t.test(`${width}, ${lang}`, async (t) => {
    const { page, problems } = await openPage(t, browser, { ...viewport, locale: lang })
    for (const [state, path] of paths) {
      if (path.startsWith('qr:')) {
        // The QR page answers the live pick's form post: press the button in the browser.
        const id = path.slice(3)
        await page.goto(`${ta.baseUrl}/c/${id}`)
        await Promise.all([page.waitForURL(`**/c/${id}/choose`), page.locator('button[name="provider"]').click()])
      } else {
        await page.goto(ta.baseUrl + path)
      }
      assert.equal(await page.locator('html').getAttribute('lang'), lang, state)
      assert.equal(await page.locator('h1').count(), 1, `${state}: one heading`)
      const own = OWN[state][lang]
      assert.equal((await page.locator('h1').textContent())?.trim(), own.h1, state)
      // Amounts keep their currency code on the line with a no-break space; compared as a plain one.
      const text = (await page.locator('body').innerText()).replace(/\u00a0/g, ' ')
      for (const words of own.says) assert.ok(text.includes(words), `${state} ${lang} says ${JSON.stringify(words)}:\n${text}`)
      for (const words of own.not ?? []) assert.ok(!text.includes(words), `${state} ${lang} does not say ${JSON.stringify(words)}`)
      // axe costs most of a second a page: every WCAG A/AA rule on the phone in English, colour contrast
      // again on the desktop in Chinese (the other layout and script; the colours are the same CSS in all four).
      if (width === 'phone' && lang === 'en') assert.deepEqual(await axeFindings(page, true), [], `${state} ${width} ${lang}`)
      if (width === 'desktop' && lang === 'zh-CN') assert.deepEqual(await axeFindings(page, false), [], `${state} ${width} ${lang}`)
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      assert.ok(scroll <= client, `${state}: ${scroll}px wide in ${client}px`)
      await screenshot(page, `gallery-${state}-${width}-${lang}`)
    }
    // The 404 answer itself is reported by Chromium as a failed load; anything else is a problem.
    assert.deepEqual(problems.filter((p) => !p.includes('status of 404')), [], `${width} ${lang}`)
  })))
})

test('a forged form post shows the 403 page in the browser', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const { page } = await openPage(t, browser, PHONE)
  await page.goto(s.url)
  await page.evaluate(() => document.querySelectorAll<HTMLInputElement>('input[name="token"]').forEach((i) => (i.value = 'forged')))
  const [response] = await Promise.all([page.waitForResponse(`**/c/${s.id}/pay`), page.getByRole('button', { name: 'Pay ¥10.00' }).click()])
  assert.equal(response.status(), 403)
  assert.equal(await page.locator('h1').textContent(), 'This form has expired')
  await screenshot(page, 'gallery-forbidden-phone-en')
  assert.equal((await pressButton(ta, s.id, 'pay')).status, 303, 'the genuine page still pays')
})
