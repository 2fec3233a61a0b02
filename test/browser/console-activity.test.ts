/**
 * The activity log in a real Chromium, in English on a desktop and in Chinese on a phone: the owner
 * filters it by a member, pages keep the filter, and "Export CSV" downloads that member's entries
 * with a byte order mark and the page's language. Screenshots go to test-artifacts/console-activity-*.png.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import type { Browser } from 'playwright-core'
import { startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { ConsoleBrowser } from '../helpers/console.js'
import { memberWithRole } from '../helpers/members.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const WORDS = {
  en: { activity: 'Activity', filter: 'Filter', export: 'Export CSV', keyCreated: 'Created a key' },
  'zh-CN': { activity: '操作记录', filter: '筛选', export: '导出 CSV', keyCreated: '创建密钥' },
} as const

for (const [lang, viewport] of [['en', DESKTOP], ['zh-CN', PHONE]] as const) {
  test(`the activity log (${lang}): filtered by a member, exported as CSV`, async (t) => {
    const w = WORDS[lang]
    const ta = await startTestApp(t)
    const email = 'owner@bluemugs.example'
    const password = 'correct horse battery'
    assert.equal((await ta.admin('POST', `/merchants/${ta.merchant.id}/password`, { password, email })).status, 200)
    const owner = new ConsoleBrowser(ta)
    assert.equal((await owner.signIn(email, password)).status, 303)
    const dev = await memberWithRole(ta, owner, 'developer', 'dev@bluemugs.example')
    assert.equal((await dev.browser.submit('/console/test/keys', '/console/test/keys')).status, 201)
    assert.equal((await owner.submit('/console/test/keys', '/console/test/keys')).status, 201)
    const devId = (await ta.database.pool.query(`select id from console_members where email = 'dev@bluemugs.example'`)).rows[0].id as string

    const { page, problems } = await openPage(t, browser, { ...viewport, locale: lang })
    await page.goto(`${ta.baseUrl}/console/login`)
    await page.locator('input[name="email"]').fill(email)
    await page.locator('input[name="password"]').fill(password)
    await Promise.all([page.waitForURL('**/console/test/payments'), page.locator('form button[type="submit"]').first().click()])
    await page.goto(`${ta.baseUrl}/console/test/activity`)
    await page.getByRole('heading', { name: w.activity }).waitFor()
    assert.ok(await page.locator(`tr[data-member="${devId}"]`).count() > 0 && await page.locator('tr[data-member]:not([data-member="' + devId + '"])').count() > 0)

    await page.locator('#member').selectOption(devId)
    await Promise.all([page.waitForURL(`**/console/test/activity?member=${devId}*`), page.getByRole('button', { name: w.filter }).click()])
    const members = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-member')))
    assert.deepEqual([...new Set(members)], [devId])
    await page.locator('tr[data-action="key_created"]').getByText(w.keyCreated).waitFor()
    await screenshot(page, `console-activity-filtered-${lang}`)

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: w.export }).click()])
    assert.match(download.suggestedFilename(), /^activity-test-\d{4}-\d\d-\d\d\.csv$/)
    const bytes = await readFile((await download.path())!)
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf])
    const records = parse(bytes, { bom: true, columns: true }) as Record<string, string>[]
    assert.deepEqual(records.map((r) => r.action), ['key_created', 'sign_in', 'member_joined'])
    assert.ok(records.every((r) => r.member_id === devId && r.actor === 'dev@bluemugs.example'))
    assert.equal(records[0].what, w.keyCreated)
    assert.deepEqual(problems, [])
  })
}
