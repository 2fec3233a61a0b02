/** /docs in a real browser (issue #12 §7): Redoc renders the operations, with nothing fetched from elsewhere and no CSP violation. */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { startTestApp } from '../helpers/app.js'
import { DESKTOP, launchBrowser, openPage, screenshot } from '../helpers/browser.js'

let browser: Browser
before(async () => {
  browser = await launchBrowser()
})
after(() => browser?.close())

test('the API reference at /docs renders every operation from Till\'s own OpenAPI document, offline', async (t) => {
  const ta = await startTestApp(t)
  const { page, problems } = await openPage(t, browser, DESKTOP)
  const elsewhere: string[] = []
  // Offline: any request to another origin is refused and remembered.
  await page.route('**/*', (route) => {
    const url = route.request().url()
    if (url.startsWith(ta.baseUrl) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue()
    elsewhere.push(url)
    return route.abort()
  })
  await page.goto(`${ta.baseUrl}/docs`)
  await page.getByRole('heading', { name: 'Create a payment session' }).first().waitFor({ timeout: 20_000 })
  const spec = await (await fetch(`${ta.baseUrl}/api/v1/openapi.json`)).json()
  const summaries = Object.values(spec.paths as Record<string, Record<string, { summary: string }>>).flatMap((ops) => Object.values(ops).map((o) => o.summary))
  assert.ok(summaries.length >= 18)
  const text = await page.locator('body').innerText()
  for (const summary of summaries) assert.ok(text.includes(summary), `rendered: ${summary}`)
  // The webhook events and each operation's samples in their four languages (tabs beside it).
  for (const summary of Object.values(spec.webhooks as Record<string, { post: { summary: string } }>).map((w) => w.post.summary)) {
    assert.ok(text.includes(summary), `rendered: ${summary}`)
  }
  const checkout = page.locator('[data-section-id="operation/operation/post/api/v1/checkout"], [data-section-id*="checkout"]').first()
  for (const label of ['curl', 'Node', 'Python', 'Go']) assert.ok(await checkout.getByRole('tab', { name: label, exact: true }).count() > 0, `a ${label} sample tab`)
  await screenshot(page, 'docs-reference-desktop')
  assert.deepEqual(elsewhere, [])
  // Redoc's sidebar credit always asks for its logo from Redocly's CDN: the CSP refuses it (the
  // credit then shows without the image). Nothing else may be reported.
  const creditLogo = /^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates the following Content Security Policy directive: "img-src 'self' data:"/
  assert.deepEqual(problems.filter((p) => !creditLogo.test(p)), [], 'no other CSP violation or script error')
})
