/**
 * Every hosted page and the console's main screens in each of the four languages (issue #40 §4),
 * at phone and desktop widths in Chromium: the page speaks the language (its heading), no text is
 * cut or spills out of its box or off the page (test/helpers/overflow.ts), and a screenshot is saved
 * to test-artifacts/ (`languages-<screen>-<width>-<lang>.png`) for people to look at.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { LOCALES, type Locale } from '../../src/web/locale.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
import { creemCredentials, wechatCredentials } from '../helpers/credentials.js'
import { getPage } from '../helpers/pages.js'
import { cutOrSpilled } from '../helpers/overflow.js'
import { createSession } from '../helpers/store-queries.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

// Long enough to wrap on a phone in every script.
const MERCHANT = 'ブルーマグ陶器工房 · 藍色杯子陶瓷製品 · Blue Mug Pottery Studio'
const DESCRIPTION = '手作りの青いマグカップ 350 ml・手工上釉藍色陶瓷杯 · Hand-glazed blue ceramic mug, SKU-MUG-BLUE-350'

const WIDTHS: [string, BrowserContextOptions][] = [['phone', PHONE], ['desktop', DESKTOP]]

/** Each hosted screen's heading in each language: proof the page is the language's own, not English. */
const HOSTED_H1: Record<string, Record<Locale, string>> = {
  checkout: { en: `Pay ${MERCHANT}`, 'zh-CN': `向 ${MERCHANT} 付款`, 'zh-HK': `向 ${MERCHANT} 付款`, ja: `${MERCHANT}へのお支払い` },
  'live-choose': { en: `Pay ${MERCHANT}`, 'zh-CN': `向 ${MERCHANT} 付款`, 'zh-HK': `向 ${MERCHANT} 付款`, ja: `${MERCHANT}へのお支払い` },
  paid: { en: 'Payment received', 'zh-CN': '付款成功', 'zh-HK': '付款成功', ja: 'お支払いが完了しました' },
  failed: { en: 'Payment failed', 'zh-CN': '付款失败', 'zh-HK': '付款失敗', ja: 'お支払いができませんでした' },
  canceled: { en: 'Payment canceled', 'zh-CN': '付款已取消', 'zh-HK': '付款已取消', ja: 'お支払いをキャンセルしました' },
  expired: { en: 'This checkout has expired', 'zh-CN': '此付款页面已过期', 'zh-HK': '此付款頁面已失效', ja: 'このお支払いページの有効期限が切れました' },
  receipt: { en: 'Receipt', 'zh-CN': '收据', 'zh-HK': '收據', ja: '領収書' },
  relay: { en: 'Returning to the merchant', 'zh-CN': '正在返回商家', 'zh-HK': '正在返回商戶', ja: 'ショップのページに戻っています' },
  link: { en: `Pay ${MERCHANT}`, 'zh-CN': `向 ${MERCHANT} 付款`, 'zh-HK': `向 ${MERCHANT} 付款`, ja: `${MERCHANT}へのお支払い` },
  'link-inactive': { en: 'This payment link is not active', 'zh-CN': '此付款链接已停用', 'zh-HK': '此付款連結已停用', ja: 'この支払いリンクは無効になっています' },
  'not-found': { en: 'Page not found', 'zh-CN': '页面不存在', 'zh-HK': '找不到頁面', ja: 'ページが見つかりません' },
}

async function hostedPaths(ta: TestApp): Promise<[string, string][]> {
  const helper = (id: string, action: string) => ta.request('POST', `/api/v1/test_helpers/sessions/${id}/${action}`, { key: ta.merchant.testKey })
  const back = { successUrl: 'http://localhost:3000/thanks' }
  const open = await createSession(ta, { amount: 99999999, currency: 'HKD', description: DESCRIPTION })
  const paid = await paidSession(ta, { amount: 1500, currency: 'JPY', description: DESCRIPTION, ...back })
  const partial = await paidSession(ta, { amount: 9999999, currency: 'USD', description: DESCRIPTION })
  await ta.request('POST', '/api/v1/refunds', { key: ta.merchant.testKey, body: { recordId: partial.record.id, amount: 1000 } })
  const failed = await createSession(ta, { amount: 9900, currency: 'CNY', description: DESCRIPTION, ...back })
  await helper(failed.id, 'fail')
  const canceled = await createSession(ta, { amount: 9900, currency: 'CNY', description: DESCRIPTION })
  await helper(canceled.id, 'cancel')
  const expired = await createSession(ta, { amount: 8800, currency: 'HKD', description: DESCRIPTION, ...back })
  await helper(expired.id, 'expire')
  await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  await ta.admin('POST', `/merchants/${ta.merchant.id}/provider_configs`, { provider: 'creem', label: 'main', credentials: creemCredentials() })
  const live = (await ta.request('POST', '/api/v1/checkout', { key: ta.merchant.liveKey, body: { amount: 9900, currency: 'CNY', description: DESCRIPTION } })).body
  const link = async (body: Record<string, unknown>) => (await ta.request('POST', '/api/v1/payment_links', { key: ta.merchant.testKey, body: { currency: 'HKD', description: DESCRIPTION, ...body } })).body.id as string
  const ranged = await link({ minAmount: 100, maxAmount: 99999999 })
  const inactive = await link({ amount: 8800, active: false })
  return [
    ['checkout', `/c/${open.id}`],
    ['live-choose', `/c/${live.id}`],
    ['paid', `/c/${paid.id}`],
    ['failed', `/c/${failed.id}`],
    ['canceled', `/c/${canceled.id}`],
    ['expired', `/c/${expired.id}`],
    ['receipt', `/r/${partial.record.id}`],
    ['relay', `/c/${paid.id}/done`],
    ['link', `/l/${ranged}`],
    ['link-inactive', `/l/${inactive}`],
    ['not-found', '/r/rec_AAAAAAAAAAAAAAAAAAAAAAAA'],
  ]
}

/**
 * The relay answers 303 with a one-link page for clients that do not follow redirects; a browser
 * never shows it, so the page is served in its place to be looked at (with its own stylesheet).
 */
async function showRelay(page: Page, url: string, lang: Locale) {
  const answer = await getPage({ baseUrl: '' }, url, { 'accept-language': lang })
  assert.equal(answer.status, 303)
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: answer.html }))
  await page.goto(url)
  await page.unroute(url)
}

const variants = () => WIDTHS.flatMap(([width, viewport]) => LOCALES.map((lang) => [width, viewport, lang] as const))

test('the hosted pages in every language at both widths: their own words, nothing cut or spilling', { concurrency: 4 }, async (t) => {
  const ta = await startTestApp(t)
  await ta.database.pool.query('update merchants set display_name = $1 where id = $2', [MERCHANT, ta.merchant.id])
  const paths = await hostedPaths(ta)
  await Promise.all(variants().map(([width, viewport, lang]) => t.test(`${width}, ${lang}`, async (t) => {
    const { page, problems } = await openPage(t, browser, { ...viewport, locale: lang, timezoneId: 'Asia/Tokyo' })
    const found: string[] = []
    for (const [screen, path] of paths) {
      if (screen === 'relay') await showRelay(page, ta.baseUrl + path, lang)
      else await page.goto(ta.baseUrl + path)
      assert.equal(await page.locator('html').getAttribute('lang'), lang, screen)
      assert.equal((await page.locator('h1').textContent())?.trim(), HOSTED_H1[screen][lang], `${screen} ${lang}`)
      found.push(...(await cutOrSpilled(page)).map((p) => `${screen}: ${p}`))
      await screenshot(page, `languages-${screen}-${width}-${lang}`)
    }
    assert.deepEqual(found, [], `${width} ${lang}`)
    assert.deepEqual(problems.filter((p) => !/status of 4(04|10)\b/.test(p)), [], `${width} ${lang}`)
  })))
})

const CONSOLE_H1: Record<string, Record<Locale, string>> = {
  payments: { en: 'Payments', 'zh-CN': '支付', 'zh-HK': '付款', ja: '決済' },
  keys: { en: 'API keys', 'zh-CN': 'API 密钥', 'zh-HK': 'API 密鑰', ja: 'API キー' },
  webhooks: { en: 'Webhooks', 'zh-CN': 'Webhook', 'zh-HK': 'Webhook', ja: 'Webhook' },
  providers: { en: 'Providers', 'zh-CN': '支付渠道', 'zh-HK': '支付渠道', ja: '決済サービス' },
  settings: { en: 'Settings', 'zh-CN': '设置', 'zh-HK': '設定', ja: '設定' },
  activity: { en: 'Activity', 'zh-CN': '操作记录', 'zh-HK': '操作記錄', ja: '操作履歴' },
  reconciliation: { en: 'Reconciliation', 'zh-CN': '对账', 'zh-HK': '對賬', ja: '照合' },
  password: { en: 'Change password', 'zh-CN': '修改密码', 'zh-HK': '更改密碼', ja: 'パスワードの変更' },
  links: { en: 'Payment links', 'zh-CN': '付款链接', 'zh-HK': '付款連結', ja: '支払いリンク' },
  members: { en: 'Team', 'zh-CN': '团队成员', 'zh-HK': '團隊成員', ja: 'チームメンバー' },
  sessions: { en: 'Console sessions', 'zh-CN': '控制台会话', 'zh-HK': '控制台工作階段', ja: 'コンソールのセッション' },
  security: { en: 'Two-factor sign-in', 'zh-CN': '两步验证登录', 'zh-HK': '雙重驗證登入', ja: '2 段階認証' },
  forgot: { en: 'Reset your password', 'zh-CN': '重置密码', 'zh-HK': '重設密碼', ja: 'パスワードの再設定' },
}

test('the console\'s screens in every language at both widths: their own words, nothing cut or spilling', { concurrency: 4 }, async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, MERCHANT, 'cups@example.com')
  const paid = await paidSession({ ...ta, merchant: m }, { amount: 1500, currency: 'JPY', description: DESCRIPTION, metadata: { order: 'A-1042-BLUE-MUG-350-GLAZED', customer: '山田太郎 · 陳大文' } })
  await ta.request('POST', '/api/v1/refunds', { key: m.testKey, body: { recordId: paid.record.id, amount: 100, reason: '取っ手にひび · 杯柄有裂紋' } })
  await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'wechat', label: 'main', credentials: wechatCredentials() })
  await Promise.all(variants().map(([width, viewport, lang]) => t.test(`${width}, ${lang}`, async (t) => {
    const { page, problems } = await openPage(t, browser, { ...viewport, locale: lang, timezoneId: 'Asia/Tokyo' })
    const found: string[] = []
    const check = async (screen: string, h1?: string) => {
      assert.equal(await page.locator('html').getAttribute('lang'), lang, screen)
      if (h1) assert.equal((await page.locator('h1').first().textContent())?.trim(), h1, `${screen} ${lang}`)
      found.push(...(await cutOrSpilled(page)).map((p) => `${screen}: ${p}`))
      await screenshot(page, `languages-console-${screen}-${width}-${lang}`)
    }
    await page.goto(`${ta.baseUrl}/console/forgot`)
    await check('forgot', CONSOLE_H1.forgot[lang])
    await page.goto(`${ta.baseUrl}/console/login`)
    await check('login')
    await page.locator('input[name="email"]').fill(m.email)
    await page.locator('input[name="password"]').fill(m.password)
    await Promise.all([page.waitForURL('**/console/test/payments'), page.locator('form button[type="submit"]').first().click()])
    for (const [screen, path] of [
      ['payments', '/console/test/payments'], ['keys', '/console/test/keys'], ['webhooks', '/console/test/webhooks'], ['providers', '/console/live/providers'],
      ['settings', '/console/test/settings'], ['activity', '/console/test/activity'], ['reconciliation', '/console/live/reconciliation'], ['password', '/console/test/password'],
      ['links', '/console/test/links'], ['members', '/console/test/members'], ['sessions', '/console/test/sessions'], ['security', '/console/test/security'],
    ] as const) {
      await page.goto(ta.baseUrl + path)
      await check(screen, CONSOLE_H1[screen][lang])
    }
    await page.goto(`${ta.baseUrl}/console/test/payments/${paid.id}`)
    await check('payment')
    await page.locator('input[name="amount"]').fill('250')
    await Promise.all([page.waitForURL('**/refund'), page.locator('form[action$="/refund"] button[type="submit"]').click()])
    await check('refund-confirm')
    assert.deepEqual(found, [], `${width} ${lang}`)
    assert.deepEqual(problems, [], `${width} ${lang}`)
  })))
})
