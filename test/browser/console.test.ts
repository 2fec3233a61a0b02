/**
 * The merchant console in a real Chromium (issue #13): sign in, create a key and use it, revoke it
 * and see 401, add a WeChat Pay configuration against the fake and mark it default, add an endpoint
 * and see a test event delivered, find a paid payment by its metadata and refund part of it, see the
 * refund in the API and the activity log; in English on a desktop and in Chinese on a 375 px phone,
 * with JavaScript off for the refund. Screenshots go to test-artifacts/console-*.png.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { deliverDue } from '../../src/jobs/outbox.js'
import { paidSession, startTestApp, type TestApp } from '../helpers/app.js'
import { clickToNextPage, DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
import { startReceiver } from '../helpers/receiver.js'
import { startFake } from '../helpers/wechat.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

async function signIn(page: Page, ta: TestApp, m: { email: string; password: string }, labels = { email: 'Email', password: 'Password', submit: 'Sign in' }) {
  await page.goto(`${ta.baseUrl}/console`)
  await page.getByLabel(labels.email).fill(m.email)
  await page.getByLabel(labels.password).fill(m.password)
  await Promise.all([page.waitForURL('**/console/test/payments'), page.getByRole('button', { name: labels.submit }).click()])
}

/** A paid test payment of 99.00 with metadata order=A-1042, made through the API. */
async function paidOrder(ta: TestApp, m: { id: string; testKey: string; liveKey: string }) {
  return paidSession({ ...ta, merchant: m }, { amount: 9900, currency: 'CNY', description: 'Blue mug', metadata: { order: 'A-1042' } })
}

test('a merchant runs a day from the console: keys, a WeChat Pay configuration, a webhook test event, a partial refund', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, 'Blue Mugs')
  const paid = await paidOrder(ta, m)
  const { page, problems } = await openPage(t, browser, DESKTOP)

  await page.goto(`${ta.baseUrl}/console/login`)
  await screenshot(page, 'console-login-desktop-en')
  await signIn(page, ta, m)
  await page.locator('.test-banner').waitFor()
  await screenshot(page, 'console-payments-desktop-en')

  // API keys: create, use, revoke, 401.
  await page.getByRole('link', { name: 'API keys' }).click()
  await page.getByRole('button', { name: 'Create key' }).click()
  const key = (await page.locator('#shown-once-value').textContent())!.trim()
  assert.match(key, /^sk_test_\w{32}$/)
  await page.getByRole('button', { name: 'Copy' }).waitFor() // the copy button is shown with the script
  await screenshot(page, 'console-key-created-desktop-en')
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 500, currency: 'CNY' } })).status, 200)
  await clickToNextPage(page, page.getByRole('link', { name: 'API keys' }))
  assert.equal(await page.locator('#shown-once-value').count(), 0, 'shown once only')
  // The row by the key as the table writes it: four random characters alone, matched regardless of
  // case, may also be in the other key's row ("Active", "Revoke", its dates), which has a Revoke link too.
  await page.locator('tr', { hasText: `sk_test_…${key.slice(-4)}` }).getByRole('link', { name: 'Revoke' }).click()
  await page.getByRole('button', { name: 'Revoke this key' }).click()
  await page.getByText(`The key ending in ${key.slice(-4)} was revoked.`).waitFor()
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key, body: { amount: 500, currency: 'CNY' } })).status, 401)

  // Providers (live): a WeChat Pay configuration against the fake, marked default over an older one.
  const { fake } = await startFake(t, { clock: ta.clock })
  const creds = fake.addMerchant() as unknown as Record<string, string>
  assert.equal((await ta.admin('POST', `/merchants/${m.id}/provider_configs`, { provider: 'wechat', label: 'old', credentials: creds, settings: { apiBase: fake.url } })).status, 201)
  await clickToNextPage(page, page.getByRole('link', { name: 'Live' }))
  await clickToNextPage(page, page.getByRole('link', { name: 'Providers' }))
  assert.match(page.url(), /\/console\/live\/providers$/)
  assert.equal(await page.locator('.test-banner').count(), 0, 'no test marker in live mode')
  await page.getByRole('link', { name: 'Add WeChat Pay' }).click()
  await page.getByLabel('Label').fill('main')
  for (const [name, value] of Object.entries(creds)) await page.locator(`#cred-${name}`).fill(value)
  await page.getByLabel('API base address (optional)').fill(fake.url)
  await screenshot(page, 'console-provider-new-desktop-en')
  await page.getByRole('button', { name: 'Save' }).click()
  const row = page.locator('tr', { hasText: 'main' })
  await row.getByRole('button', { name: 'Mark default' }).click()
  await screenshot(page, 'console-providers-desktop-en')
  const configs = (await ta.admin('GET', `/merchants/${m.id}/provider_configs`)).body.data as { label: string; isDefault: boolean }[]
  assert.deepEqual(configs.map((c) => [c.label, c.isDefault]).sort(), [['main', true], ['old', false]])
  const live = await ta.request('POST', '/api/v1/checkout', { key: m.liveKey, body: { amount: 9900, currency: 'CNY', providerHints: { wechat: 'main' } } })
  assert.equal(live.status, 200, JSON.stringify(live.body))

  // Webhooks (test): an endpoint, its secret once, a test event delivered.
  const rx = await startReceiver(t, () => ({ status: 200, body: 'received' }))
  await clickToNextPage(page, page.getByRole('link', { name: 'Test', exact: true }))
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByLabel('Endpoint URL').fill(rx.url)
  await page.getByRole('button', { name: 'Add an endpoint' }).click()
  const secret = (await page.locator('#shown-once-value').textContent())!.trim()
  assert.match(secret, /^whsec_/)
  await page.getByRole('button', { name: 'Send test event' }).click()
  await page.getByText('A test payment.succeeded event was sent.').waitFor()
  await deliverDue(ta.deps)
  assert.equal(rx.requests.length, 1)
  await page.getByRole('link', { name: 'Refresh' }).click()
  await page.locator('.badge', { hasText: 'Delivered' }).waitFor()
  await screenshot(page, 'console-endpoint-desktop-en')

  // Payments: find the paid one by its metadata, refund 25.50 of it.
  await page.getByRole('link', { name: 'Payments' }).click()
  await page.getByLabel('Search').fill('A-1042')
  await clickToNextPage(page, page.getByRole('button', { name: 'Filter' }))
  assert.equal(await page.locator('tr[data-session]').count(), 1)
  await page.locator(`tr[data-session="${paid.id}"]`).getByRole('link', { name: paid.id }).click()
  await page.getByLabel('Amount to refund (CNY)').fill('25.50')
  await page.getByLabel('Reason (optional, at most 80 characters)').fill('chipped handle')
  await screenshot(page, 'console-payment-desktop-en')
  await page.getByRole('button', { name: 'Review refund' }).click()
  // A confirmation first: the amount and what will be left, in yuan.
  assert.equal(await page.locator('h1').textContent(), 'Refund ¥25.50\u00a0CNY?')
  await page.locator('dd', { hasText: '¥73.50\u00a0CNY' }).waitFor()
  await screenshot(page, 'console-refund-confirm-desktop-en')
  await page.getByRole('button', { name: 'Refund ¥25.50\u00a0CNY' }).click()
  await page.getByText(/Refund ref_\w+: ¥25\.50\u00a0CNY, Succeeded\./).waitFor()
  await screenshot(page, 'console-refunded-desktop-en')
  // The refund's id reads on one line at desktop width (the table once squeezed it onto four).
  const idLines = await page.locator('tr[data-refund] td.mono').first().evaluate((td) => {
    const range = document.createRange()
    range.selectNodeContents(td)
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size
  })
  assert.equal(idLines, 1)
  const record = await ta.request('GET', `/api/v1/records/${paid.record.id}`, { key: m.testKey })
  assert.equal(record.body.refundedAmount, 2550)
  assert.equal(record.body.status, 'partially_refunded')
  assert.equal(record.body.refunds[0].reason, 'chipped handle')

  await page.getByRole('link', { name: 'Activity' }).click()
  for (const what of ['Signed in', 'Created a key', 'Revoked a key', 'Added a webhook endpoint', 'Sent a test event', 'Refunded a payment']) {
    await page.locator('td', { hasText: what }).first().waitFor()
  }
  await screenshot(page, 'console-activity-desktop-en')
  assert.deepEqual(problems, [])
})

test('在手机上使用中文控制台：登录、密钥、支付与退款，无脚本也能退款', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, '蓝色杯子', 'cups@example.com')
  const paid = await paidOrder(ta, m)
  const { page, problems } = await openPage(t, browser, { ...PHONE, locale: 'zh-CN' })
  await signIn(page, ta, m, { email: '邮箱', password: '密码', submit: '登录' })
  await page.getByText('测试模式', { exact: true }).waitFor()
  await screenshot(page, 'console-payments-phone-zh')
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  assert.ok(width <= 375, `no sideways scrolling (${width}px)`)

  await page.getByRole('link', { name: 'API 密钥' }).click()
  await page.getByRole('button', { name: '创建密钥' }).click()
  assert.match((await page.locator('#shown-once-value').textContent())!, /^sk_test_/)
  await screenshot(page, 'console-keys-phone-zh')

  await clickToNextPage(page, page.getByRole('link', { name: 'Webhook' }).first())
  await screenshot(page, 'console-webhooks-phone-zh')
  await clickToNextPage(page, page.getByRole('link', { name: '支付渠道' }))
  await clickToNextPage(page, page.getByRole('link', { name: '正式', exact: true }))
  await screenshot(page, 'console-providers-phone-zh')
  await clickToNextPage(page, page.getByRole('link', { name: '设置' }))
  await screenshot(page, 'console-settings-phone-zh')
  assert.deepEqual(problems, [])

  // Without JavaScript: the refund form still works, and posts once.
  const noJs = await openPage(t, browser, { ...PHONE, locale: 'zh-CN', javaScriptEnabled: false })
  await signIn(noJs.page, ta, m, { email: '邮箱', password: '密码', submit: '登录' })
  await noJs.page.getByLabel('搜索').fill(paid.record.id)
  await noJs.page.getByRole('button', { name: '筛选' }).click()
  await noJs.page.locator(`tr[data-session="${paid.id}"] a.mono`).click()
  await noJs.page.getByLabel('退款金额（CNY）').fill('10')
  await clickToNextPage(noJs.page, noJs.page.getByRole('button', { name: '核对退款' }))
  assert.equal(await noJs.page.locator('h1').textContent(), '退款 ¥10.00\u00a0CNY？')
  await screenshot(noJs.page, 'console-refund-confirm-phone-zh')
  await noJs.page.getByRole('button', { name: '确认退款 ¥10.00\u00a0CNY' }).click()
  await noJs.page.getByText(/退款 ref_\w+：¥10\.00\u00a0CNY，成功。/).waitFor()
  await screenshot(noJs.page, 'console-refunded-phone-zh')
  assert.equal((await ta.request('GET', `/api/v1/records/${paid.record.id}`, { key: m.testKey })).body.refundedAmount, 1000)
  await noJs.page.getByRole('link', { name: '操作记录' }).click()
  await noJs.page.locator('td', { hasText: '发起退款' }).waitFor()
  await screenshot(noJs.page, 'console-activity-phone-zh')
})
