/**
 * The second factor in a real Chromium, in English on a desktop and in Chinese on a phone: an owner
 * sets it up from the QR page (the key read off the page, the code computed by the test's own TOTP),
 * sees the recovery codes; signs in again with a code, and with a recovery code; and creating a live
 * key after five minutes asks for the code, then makes the key. Screenshots go to
 * test-artifacts/console-second-factor-*.png.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { STEP_UP_MS } from '../../src/services/second-factor.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'
import { totpAt } from '../helpers/totp.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const WORDS = {
  en: { security: 'Two-factor', start: 'Set up two-factor sign-in', turnOn: 'Turn on', codes: 'Your recovery codes', enter: 'Enter your code', next: 'Continue', stepUp: 'Confirm it is you', confirm: 'Confirm and continue' },
  'zh-CN': { security: '两步验证', start: '设置两步验证', turnOn: '开启', codes: '你的恢复码', enter: '输入验证码', next: '继续', stepUp: '确认是你本人', confirm: '确认并继续' },
} as const

/** The password step; answers where it led. */
async function password(page: Page, ta: TestApp, email: string, pass: string) {
  await page.goto(`${ta.baseUrl}/console/login`)
  await page.locator('input[name="email"]').fill(email)
  await page.locator('input[name="password"]').fill(pass)
  await Promise.all([page.waitForURL((u) => !u.pathname.endsWith('/login')), page.locator('form button[type="submit"]').first().click()])
  return new URL(page.url()).pathname
}

for (const [lang, viewport] of [['en', DESKTOP], ['zh-CN', PHONE]] as const) {
  test(`two-factor sign-in in the console (${lang}): enrol, a code, a recovery code, step-up before a live key`, async (t) => {
    const w = WORDS[lang]
    const ta = await startTestApp(t)
    const m = await merchantWithLogin(ta, 'Blue Mugs')
    const owner = await openPage(t, browser, { ...viewport, locale: lang })
    assert.equal(await password(owner.page, ta, m.email, m.password), '/console/test/payments')

    await owner.page.getByRole('link', { name: w.security, exact: true }).click()
    await owner.page.getByRole('button', { name: w.start }).click()
    await owner.page.locator('figure.qr svg').waitFor() // the QR code
    const secret = (await owner.page.locator('#totp-secret').textContent())!.trim()
    assert.match((await owner.page.locator('#totp-uri').textContent())!, /^otpauth:\/\/totp\//)
    await screenshot(owner.page, `console-second-factor-qr-${lang}`)
    await owner.page.locator('#code').fill(totpAt(secret, ta.clock()))
    await owner.page.getByRole('button', { name: w.turnOn }).click()
    await owner.page.getByRole('heading', { name: w.codes }).waitFor()
    const codes = (await owner.page.locator('#recovery-codes code').allTextContents()).map((c) => c.trim())
    assert.equal(codes.length, 10)
    await screenshot(owner.page, `console-second-factor-codes-${lang}`)

    ta.clock.advance(30_000)
    const phone = await openPage(t, browser, { ...viewport, locale: lang })
    assert.equal(await password(phone.page, ta, m.email, m.password), '/console/second-factor')
    await phone.page.getByRole('heading', { name: w.enter }).waitFor()
    await screenshot(phone.page, `console-second-factor-challenge-${lang}`)
    await phone.page.locator('#code').fill(totpAt(secret, ta.clock()))
    await Promise.all([phone.page.waitForURL('**/console/test/payments'), phone.page.getByRole('button', { name: w.next }).click()])

    const lost = await openPage(t, browser, { ...viewport, locale: lang })
    assert.equal(await password(lost.page, ta, m.email, m.password), '/console/second-factor')
    await lost.page.locator('#code').fill(codes[3])
    await Promise.all([lost.page.waitForURL('**/console/test/payments'), lost.page.getByRole('button', { name: w.next }).click()])

    ta.clock.advance(STEP_UP_MS + 1000)
    await owner.page.goto(`${ta.baseUrl}/console/live/keys`)
    await owner.page.locator('form[action="/console/live/keys"] button[type="submit"]').click()
    await owner.page.getByRole('heading', { name: w.stepUp }).waitFor()
    await screenshot(owner.page, `console-second-factor-step-up-${lang}`)
    await owner.page.locator('#code').fill(totpAt(secret, ta.clock()))
    await owner.page.getByRole('button', { name: w.confirm }).click()
    assert.match((await owner.page.locator('#shown-once-value').textContent())!, /^sk_live_/)
    assert.deepEqual([...owner.problems, ...phone.problems, ...lost.problems], [])
  })
}
