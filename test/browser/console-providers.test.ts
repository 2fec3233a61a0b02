/**
 * The console creates every configuration the API can, from the provider modules' schema, in
 * Chromium: a WeChat Pay Global configuration (service, settlement currency, merchant category
 * code) first refused with the form's own label and the key box still holding what was pasted
 * (here with literal `\n` escapes, which it accepts); then saved; and Alipay's desktop setting.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { tillCredentials } from '../helpers/alipay-till.js'
import { alipayWithApps } from '../helpers/alipay.js'
import { startTestApp } from '../helpers/app.js'
import { clickToNextPage, DESKTOP, launchBrowser, openPage, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
import { startFake } from '../helpers/wechat.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

test('WeChat Pay Global and Alipay\'s desktop setting from the console; a refused form names the field by its label and keeps the pasted key', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, 'Blue Mugs')
  const { fake } = await startFake(t, { clock: ta.clock })
  const creds = fake.addMerchant({}, { service: 'cross_border', settlementCurrency: 'JPY' })
  const { page, problems } = await openPage(t, browser, DESKTOP)
  await page.goto(`${ta.baseUrl}/console`)
  await page.getByLabel('Email').fill(m.email)
  await page.getByLabel('Password').fill(m.password)
  await Promise.all([page.waitForURL('**/console/test/payments'), page.getByRole('button', { name: 'Sign in' }).click()])

  await page.goto(`${ta.baseUrl}/console/live/providers/new?provider=wechat`)
  assert.equal(await page.locator('h1').textContent(), 'Add a WeChat Pay configuration')
  await page.getByLabel('Label').fill('jpy')
  await page.getByLabel('Merchant number (mchid)').fill(creds.mchId)
  await page.getByLabel('AppID').fill(creds.appId)
  await page.getByLabel('Merchant certificate serial number').fill(creds.merchantSerialNo)
  // The key as a terminal or a JSON file prints it: one line with literal \n escapes.
  const escaped = creds.privateKey.trim().replaceAll('\n', '\\n')
  await page.locator('textarea[name="privateKey"]').fill(escaped)
  await page.getByLabel('APIv3 key').fill(creds.apiV3Key)
  await page.getByLabel('API base address (optional)').fill(fake.url)
  await page.getByLabel('Service').selectOption('cross_border')
  await page.getByLabel('Settlement currency (WeChat Pay Global)').selectOption('JPY')
  // No merchant category code yet: refused, in the form's words, with what was typed still there.
  await clickToNextPage(page, page.getByRole('button', { name: 'Save' }))
  assert.equal(await page.locator('.notice').first().textContent(), 'Merchant category code (WeChat Pay Global): must be the 4-digit merchant category code WeChat Pay assigned')
  assert.equal(await page.locator('textarea[name="privateKey"]').inputValue(), escaped)
  assert.equal(await page.getByLabel('Service').inputValue(), 'cross_border')
  assert.equal(await page.getByLabel('Merchant number (mchid)').inputValue(), creds.mchId)
  await screenshot(page, 'console-provider-refused')

  await page.getByLabel('Merchant category code (WeChat Pay Global)').fill('5999')
  await page.getByLabel('APIv3 key').fill(creds.apiV3Key)
  await Promise.all([page.waitForURL('**/console/live/providers?saved=1'), page.getByRole('button', { name: 'Save' }).click()])
  const listed = async () => (await ta.admin('GET', `/merchants/${m.id}/provider_configs`)).body.data as { provider: string; label: string; settings: object }[]
  assert.deepEqual((await listed()).map((c) => [c.provider, c.label, c.settings]), [['wechat', 'jpy', { apiBase: fake.url, service: 'cross_border', settlementCurrency: 'JPY', merchantCategoryCode: '5999' }]])
  // It takes a JPY session by itself.
  const jpy = await ta.request('POST', '/api/v1/checkout', { key: m.liveKey, body: { amount: 1500, currency: 'JPY' } })
  assert.equal(jpy.status, 200, JSON.stringify(jpy.body))

  // Alipay's desktop setting: its cashier page rather than the QR code.
  const { fake: alipay, apps } = await alipayWithApps(t)
  const app = tillCredentials(apps.publicKey)
  await page.goto(`${ta.baseUrl}/console/live/providers/new?provider=alipay`)
  assert.equal(await page.locator('h1').textContent(), 'Add an Alipay configuration')
  await page.getByLabel('Label').fill('main')
  await page.getByLabel('AppID').fill(app.appId)
  await page.locator('textarea[name="privateKey"]').fill(app.privateKey)
  await page.locator('textarea[name="alipayPublicKey"]').fill(app.alipayPublicKey)
  await page.getByLabel('API base address (optional)').fill(alipay.url)
  await page.getByLabel('On a computer').selectOption('page')
  await Promise.all([page.waitForURL('**/console/live/providers?saved=1'), page.getByRole('button', { name: 'Save' }).click()])
  assert.deepEqual((await listed()).find((c) => c.provider === 'alipay')?.settings, { apiBase: alipay.url, desktop: 'page' })
  // The refused save is a 400 answer, which Chromium logs; nothing else.
  assert.deepEqual(problems.filter((p) => !p.includes('status of 400')), [])
})
