/**
 * Password reset in a real Chromium: in English on a desktop through the mail (the link read from a
 * real SMTP server on loopback), and in Chinese on a phone on a Till without mail, where the owner
 * makes the link on the Team page. Screenshots go to test-artifacts/console-reset-*.png.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { JOBS, startJobs } from '../../src/jobs/runner.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { ConsoleBrowser, merchantWithLogin } from '../helpers/console.js'
import { memberWithRole } from '../helpers/members.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

async function signIn(page: Page, ta: TestApp, email: string, password: string) {
  await page.goto(`${ta.baseUrl}/console/login`)
  await page.locator('input[name="email"]').fill(email)
  await page.locator('input[name="password"]').fill(password)
  await Promise.all([page.waitForURL('**/console/test/payments'), page.locator('form button[type="submit"]').first().click()])
}

/** On the link's page: the new password, then back on the sign-in page with its notice. */
async function setPassword(page: Page, link: string, password: string, submit: string, done: string) {
  await page.goto(link)
  await page.locator('#password').fill(password)
  await Promise.all([page.waitForURL('**/console/login?notice=password-reset'), page.getByRole('button', { name: submit }).click()])
  await page.getByText(done).waitFor()
}

test('password reset by mail (en, desktop): Forgot password?, the mailed link, a new password, signed in', async (t) => {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: 'console@till.test' })
  const jobs = startJobs(ta.deps, JOBS.filter((j) => j.name === 'mail'))
  t.after(() => jobs.stop())
  const m = await merchantWithLogin(ta, 'Blue Mugs')
  const member = await openPage(t, browser, { ...DESKTOP, locale: 'en' })
  await member.page.goto(`${ta.baseUrl}/console/login`)
  await member.page.getByRole('link', { name: 'Forgot password?' }).click()
  await member.page.locator('#email').fill(m.email)
  await member.page.getByRole('button', { name: 'Email me a link' }).click()
  await member.page.getByText('a link to set a new password is on its way').waitFor()
  await screenshot(member.page, 'console-reset-asked-en')

  const [mail] = await sink.received(1)
  assert.equal(mail.headers.Subject, 'Reset your password for Blue Mugs on Till')
  const link = /(http:\/\/\S+\/console\/reset\/[\w-]+)/.exec(mail.parts[0].content)![1]
  await setPassword(member.page, link, 'a new mug password', 'Set password', 'Your password was reset')
  await signIn(member.page, ta, m.email, 'a new mug password')
  assert.deepEqual(member.problems, [])
})

test('password reset without mail (zh-CN, phone): the owner makes the link on the Team page, the member sets a password', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, 'Blue Mugs')
  const ownerHttp = new ConsoleBrowser(ta)
  await ownerHttp.signIn(m.email, m.password)
  await memberWithRole(ta, ownerHttp, 'support', 'help@example.com')

  const member = await openPage(t, browser, { ...PHONE, locale: 'zh-CN' })
  await member.page.goto(`${ta.baseUrl}/console/login`)
  await member.page.getByRole('link', { name: '忘记密码？' }).click()
  await member.page.getByText('此 Till 不发送邮件').waitFor()

  const owner = await openPage(t, browser, { ...PHONE, locale: 'zh-CN' })
  await signIn(owner.page, ta, m.email, m.password)
  await owner.page.goto(`${ta.baseUrl}/console/test/members`)
  await owner.page.locator('tr[data-member="help@example.com"]').getByRole('button', { name: '重置密码' }).click()
  await owner.page.getByText('help@example.com 的密码重置链接').waitFor()
  const link = (await owner.page.locator('#shown-once-value').textContent())!.trim()
  await screenshot(owner.page, 'console-reset-link-zh-CN')

  await setPassword(member.page, link, '新的客服密码 2026', '设置密码', '密码已重置')
  await signIn(member.page, ta, 'help@example.com', '新的客服密码 2026')
  await owner.page.goto(`${ta.baseUrl}/console/test/activity`)
  await owner.page.locator('[data-action="password_reset"]').first().waitFor()
  assert.deepEqual([...owner.problems, ...member.problems], [])
})
