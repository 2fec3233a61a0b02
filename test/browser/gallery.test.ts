/**
 * Every page state, at phone and desktop widths, in both languages: each one renders in Chromium
 * with no CSP violation or script error, nothing overflows sideways, and a screenshot is saved
 * to test-artifacts/ (`gallery-<state>-<width>-<lang>.png`) for people to look at.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContextOptions } from 'playwright-core'
import { createMockProvider } from '../../src/providers/mock/index.js'
import { createRegistry } from '../../src/providers/registry.js'
import type { PaymentProvider } from '../../src/providers/types.js'
import { startAttempt } from '../../src/services/payments.js'
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

const VARIANTS: [string, BrowserContextOptions, string][] = [
  ['phone', PHONE, 'en'],
  ['phone', PHONE, 'zh-CN'],
  ['desktop', DESKTOP, 'en'],
  ['desktop', DESKTOP, 'zh-CN'],
]

for (const [width, viewport, lang] of VARIANTS) {
  test(`every page state renders cleanly: ${width}, ${lang}`, async (t) => {
    const ta = await startTestApp(t)
    const { page, problems } = await openPage(t, browser, { ...viewport, locale: lang })
    for (const [state, path] of await states(ta)) {
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
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      assert.ok(scroll <= client, `${state}: ${scroll}px wide in ${client}px`)
      await screenshot(page, `gallery-${state}-${width}-${lang}`)
    }
    // The 404 answer itself is reported by Chromium as a failed load; anything else is a problem.
    assert.deepEqual(problems.filter((p) => !p.includes('status of 404')), [], `${width} ${lang}`)
  })
}

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
