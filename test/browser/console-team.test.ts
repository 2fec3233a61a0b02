/**
 * A team in a real Chromium, in English on a desktop and in Chinese on a phone: the owner invites a
 * developer and copies the link, the developer opens it in their own browser, sets a password, signs
 * in and finds live keys closed to them; the owner sees their session, ends it, and removes them.
 * Screenshots go to test-artifacts/console-team-*.png.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { merchantWithLogin } from '../helpers/console.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const WORDS = {
  en: { team: 'Team', invite: 'Invite', developer: 'Developer', join: 'Join', joined: 'You have joined', sessions: 'Sessions', end: 'End', ended: 'The session was ended.', remove: 'Remove' },
  'zh-CN': { team: '团队', invite: '发送邀请', developer: '开发者', join: '加入', joined: '你已加入', sessions: '登录会话', end: '结束', ended: '该会话已结束。', remove: '移除' },
} as const

async function signIn(page: Page, ta: TestApp, email: string, password: string) {
  await page.goto(`${ta.baseUrl}/console/login`)
  await page.locator('input[name="email"]').fill(email)
  await page.locator('input[name="password"]').fill(password)
  await Promise.all([page.waitForURL('**/console/test/payments'), page.locator('form button[type="submit"]').first().click()])
}

for (const [lang, viewport] of [['en', DESKTOP], ['zh-CN', PHONE]] as const) {
  test(`a team in the console (${lang}): invite, join, roles, sessions, removal`, async (t) => {
    const w = WORDS[lang]
    const ta = await startTestApp(t)
    const m = await merchantWithLogin(ta, 'Blue Mugs')
    const owner = await openPage(t, browser, { ...viewport, locale: lang })
    await signIn(owner.page, ta, m.email, m.password)

    await owner.page.getByRole('link', { name: w.team, exact: true }).click()
    await owner.page.locator('#email').fill('dev@example.com')
    await owner.page.locator('#role').selectOption('developer')
    await owner.page.getByRole('button', { name: w.invite }).click()
    const link = (await owner.page.locator('#shown-once-value').textContent())!.trim()
    assert.match(link, /\/console\/invitations\/[\w-]{43}$/)
    await screenshot(owner.page, `console-team-invited-${lang}`)

    const dev = await openPage(t, browser, { ...viewport, locale: lang })
    await dev.page.goto(link)
    await dev.page.getByText('dev@example.com').first().waitFor()
    await dev.page.locator('#password').fill('developer password')
    await Promise.all([dev.page.waitForURL('**/console/login?notice=joined'), dev.page.getByRole('button', { name: w.join }).click()])
    await dev.page.getByText(w.joined).waitFor()
    await signIn(dev.page, ta, 'dev@example.com', 'developer password')
    assert.equal(await dev.page.getByRole('link', { name: w.team, exact: true }).count(), 0, 'a developer is not offered the team page')
    assert.equal((await dev.page.request.get(`${ta.baseUrl}/console/live/keys/x/revoke`, { maxRedirects: 0 })).status(), 403, 'live keys are closed to a developer')

    await owner.page.goto(`${ta.baseUrl}/console/test/members`)
    assert.equal((await owner.page.locator('tr[data-member="dev@example.com"] td').nth(1).textContent())?.trim(), w.developer)
    await owner.page.getByRole('link', { name: w.sessions, exact: true }).click()
    await screenshot(owner.page, `console-team-sessions-${lang}`)
    await owner.page.locator('tr[data-session="dev@example.com"]').getByRole('button', { name: w.end }).click()
    await owner.page.getByText(w.ended).waitFor()
    await dev.page.reload()
    assert.match(dev.page.url(), /\/console\/login/, 'the ended session is signed out')

    await owner.page.goto(`${ta.baseUrl}/console/test/members`)
    owner.page.once('dialog', (d) => d.accept())
    await owner.page.locator('tr[data-member="dev@example.com"]').getByRole('button', { name: w.remove }).click()
    await owner.page.waitForURL('**/members?saved=1')
    assert.equal(await owner.page.locator('tr[data-member="dev@example.com"]').count(), 0)
    await screenshot(owner.page, `console-team-removed-${lang}`)
    assert.deepEqual([...owner.problems, ...dev.problems], [])
  })
}
