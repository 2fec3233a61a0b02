/** A console member enrolled in the second factor as a person would: the Two-factor page, the key, a code. */
import assert from 'node:assert/strict'
import type { TestApp } from './app.js'
import { csrfOf, type ConsoleBrowser } from './console.js'
import { totpAt } from './totp.js'

export const secretOf = (html: string) => /id="totp-secret">([A-Z2-7]+)</.exec(html)?.[1]
export const recoveryCodesOf = (html: string) => [...html.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map((m) => m[1])

/** Enrols the signed-in browser's member; answers the secret and the recovery codes. */
export async function enrol(ta: TestApp, b: ConsoleBrowser) {
  const page = await b.submit('/console/test/security', '/console/test/security/enrol')
  assert.equal(page.status, 200)
  const secret = secretOf(page.html)!
  assert.ok(secret, 'the key is shown as text')
  const done = await b.post('/console/test/security/confirm', { csrf: csrfOf(page.html), code: totpAt(secret, ta.clock()) })
  assert.equal(done.status, 200)
  const codes = recoveryCodesOf(done.html)
  assert.equal(codes.length, 10)
  return { secret, codes }
}

