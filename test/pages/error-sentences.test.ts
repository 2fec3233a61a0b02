/**
 * The customer pages and the console say the same words for the same error (issue #37 §3): one copy
 * of the error pages' sentences, in src/web/errors.ts, in each language.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp } from '../helpers/app.js'
import { signedIn } from '../helpers/console.js'
import { getPage, postForm } from '../helpers/pages.js'
import { createSession } from '../helpers/store-queries.js'

/** An error page's heading and sentence, whichever front drew it. */
function said(html: string) {
  const m = /<h1[^>]*>([^<]+)<\/h1>\s*<p>([^<]+)<\/p>/.exec(html)
  assert.ok(m, html)
  return { title: m[1], body: m[2] }
}

test('a 404, an expired form and a body too large read the same on the customer pages and in the console, in each language', async (t) => {
  const ta = await startTestApp(t)
  const s = await createSession(ta)
  const { browser } = await signedIn(ta)
  const tooLarge = 'x'.repeat(40 * 1024)
  for (const lang of ['en', 'zh-CN']) {
    const cookie = `till_lang=${lang}`
    browser.cookies.set('till_lang', lang)
    const pairs = [
      [await getPage(ta, '/c/nope', { cookie }), await browser.get('/console/test/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA')],
      [await postForm(ta, `/c/${s.id}/pay`, { token: 'forged' }, { cookie }), await browser.post('/console/test/keys', { csrf: 'forged' })],
      [await postForm(ta, `/c/${s.id}/pay`, { token: tooLarge }, { cookie }), await browser.post('/console/test/keys', { csrf: tooLarge })],
    ]
    const seen = new Set<string>()
    for (const [customer, merchant] of pairs) {
      assert.equal(customer.status, merchant.status)
      assert.match(customer.html, new RegExp(`<html lang="${lang}">`))
      assert.match(merchant.html, new RegExp(`<html lang="${lang}">`))
      assert.deepEqual(said(merchant.html), said(customer.html), `${lang} ${customer.status}`)
      seen.add(said(customer.html).title)
    }
    assert.equal(seen.size, 3, 'each error its own heading')
  }
})
