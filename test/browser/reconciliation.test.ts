/**
 * The console's Reconciliation page in a real Chromium: a reconciled day with mismatches, opened from
 * the days list, a mismatch acknowledged with a note and the day re-checked, on a desktop in English
 * and on a 375 px phone in Chinese; no Content-Security-Policy report or script error. Screenshots go
 * to test-artifacts/console-reconciliation-*.png.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { DESKTOP, launchBrowser, openPage, PHONE, screenshot } from '../helpers/browser.js'
import { lineOf, reconTill, unknownLine } from '../helpers/reconciliation.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

const DAY = '2026-05-20'

for (const [device, opts, lang] of [['desktop', DESKTOP, 'en'], ['phone', PHONE, 'zh-CN']] as const) {
  test(`reconciliation in the console, ${device}, ${lang}: the day, both sides of a mismatch, acknowledge and re-check`, async (t) => {
    const r = await reconTill(t)
    const ok = await r.payment({ paidAt: `${DAY}T02:00:00Z` })
    const cheaper = await r.payment({ paidAt: `${DAY}T03:00:00Z` })
    const refund = await r.refund(ok, { amount: 500, status: 'failed', at: `${DAY}T04:00:00Z` })
    r.stub.set(DAY, { lines: [lineOf(ok), lineOf(cheaper, { amount: 9800 }), lineOf(refund, { status: 'succeeded' }), unknownLine()] })
    r.ta.clock.set(new Date('2026-05-21T02:30:00.000Z'))
    const [report] = (await r.ta.admin('POST', '/reconciliation/runs', { date: DAY, providerConfigId: r.configId })).body.data
    const email = 'ops@shop.example'
    await r.ta.admin('POST', `/merchants/${r.ta.merchant.id}/password`, { email, password: 'correct horse battery' })

    const { page, problems } = await openPage(t, browser, { ...opts, locale: lang })
    const t9n = lang === 'en'
      ? { email: 'Email', password: 'Password', signIn: 'Sign in', nav: 'Reconciliation', note: 'Note', ack: 'Acknowledge', recheck: 'Re-check', acked: 'Mismatch acknowledged.', rechecked: 'The day was reconciled again.' }
      : { email: '邮箱', password: '密码', signIn: '登录', nav: '对账', note: '备注', ack: '确认', recheck: '重新核对', acked: '差异已确认。', rechecked: '已重新核对该日。' }
    await page.goto(`${r.ta.baseUrl}/console/login?lang=${lang}`)
    await page.getByLabel(t9n.email).fill(email)
    await page.getByLabel(t9n.password, { exact: true }).fill('correct horse battery')
    await Promise.all([page.waitForURL('**/console/test/payments'), page.getByRole('button', { name: t9n.signIn }).click()])

    await page.goto(`${r.ta.baseUrl}/console/live/reconciliation`)
    assert.equal(await page.locator(`[data-report="${report.id}"]`).count(), 1)
    await screenshot(page, `console-reconciliation-days-${device}-${lang}`)
    await page.locator(`[data-report="${report.id}"] a`).first().click()
    await page.waitForURL(`**/reconciliation/${report.id}`)
    assert.equal(await page.locator('[data-item]').count(), 3)
    // The provider's own text is text on the page, never markup.
    await page.locator('[data-category="missing_in_till"] summary').click()
    await page.getByText('<script>alert("x")</script>').waitFor()
    await screenshot(page, `console-reconciliation-day-${device}-${lang}`)

    const item = page.locator('[data-category="amount_differs"]')
    await item.getByLabel(t9n.note).fill('customer paid the rest by card')
    await item.getByRole('button', { name: t9n.ack }).click()
    await page.getByText(t9n.acked).waitFor()
    await page.getByText('customer paid the rest by card').waitFor()
    await page.getByRole('button', { name: t9n.recheck }).click()
    await page.getByText(t9n.rechecked).waitFor()
    await page.getByText('customer paid the rest by card').waitFor() // the acknowledgement outlives the re-check
    await screenshot(page, `console-reconciliation-acknowledged-${device}-${lang}`)
    assert.deepEqual(problems, [])
  })
}
