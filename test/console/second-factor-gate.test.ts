/** A half-signed-in session on every console route, and step-up before sensitive actions (docs/console.md#step-up). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ROUTE_PERMISSIONS } from '../../src/console/permissions.js'
import { STEP_UP_ROUTES } from '../../src/console/second-factor/gate.js'
import { STEP_UP_MS } from '../../src/services/second-factor.js'
import { startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, csrfOf, signedIn } from '../helpers/console.js'
import { totpAt } from '../helpers/totp.js'
import { enrol } from '../helpers/second-factor.js'

const pathOf = (url: string, mode: string) => url.replace(':mode', mode).replace(/:\w+/g, 'x_unknown')

test('a session past the password but not the second factor is sent to the code page from every route but that page and sign-out', async (t) => {
  const ta = await startTestApp(t)
  const { browser, m } = await signedIn(ta)
  await enrol(ta, browser)
  const half = new ConsoleBrowser(ta)
  assert.equal((await half.signIn(m.email, m.password)).status, 303)
  const csrf = csrfOf((await half.get('/console/second-factor')).html)
  const keys = async () => (await browser.get('/console/test/keys')).html.match(/data-key=/g)?.length
  const open = new Set(['GET /console/second-factor', 'POST /console/second-factor', 'POST /console/logout'])
  const before = await keys()
  const wrong: string[] = []
  let walked = 0
  for (const [route] of Object.entries(ROUTE_PERMISSIONS).filter(([r]) => !open.has(r))) {
    const [method, url] = route.split(' ')
    for (const mode of ['test', 'live']) {
      const path = pathOf(url, mode)
      const res = method === 'GET' ? await half.get(path) : await half.post(path, { csrf, name: 'x', url: 'https://example.com/h', email: 'x@example.com', role: 'viewer' })
      if (res.status !== 303 || !res.location?.startsWith('/console/second-factor')) wrong.push(`${route} (${mode}): ${res.status} ${res.location}`)
      walked++
    }
  }
  assert.deepEqual(wrong, [])
  assert.ok(walked > 100)
  assert.equal(await keys(), before, 'no key was made on the way')
  assert.doesNotMatch((await browser.get('/console/test/activity')).html, /data-action="key_created"/)
})

test('a live key after five minutes asks for the code again, and the same form goes through with it; a test key does not ask', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const { secret } = await enrol(ta, browser)
  assert.equal((await browser.submit('/console/live/keys', '/console/live/keys', {})).status, 201, 'checked just now')

  ta.clock.advance(STEP_UP_MS + 1000)
  assert.equal((await browser.submit('/console/test/keys', '/console/test/keys', {})).status, 201)
  const asked = await browser.submit('/console/live/keys', '/console/live/keys', { note: 'carried' })
  assert.equal(asked.status, 200)
  assert.match(asked.html, /data-step-up/)
  assert.match(asked.html, /name="note" value="carried"/, 'the form\'s fields are carried')
  const liveKeys = async () => (await browser.get('/console/live/keys')).html.match(/data-key=/g)?.length
  const before = await liveKeys()
  const wrongCode = await browser.post('/console/live/keys', { csrf: csrfOf(asked.html), second_factor_code: totpAt(secret, ta.clock(), 5) })
  assert.equal(wrongCode.status, 401)
  assert.equal(await liveKeys(), before, 'a wrong code makes no key')
  const done = await browser.post('/console/live/keys', { csrf: csrfOf(asked.html), second_factor_code: totpAt(secret, ta.clock()) })
  assert.equal(done.status, 201)
  assert.match(done.html, /id="shown-once-value">sk_live_/)
  assert.equal((await browser.submit('/console/live/keys', '/console/live/keys', {})).status, 201, 'checked again just now')
})

test('a member without a second factor is not held by step-up', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  ta.clock.advance(STEP_UP_MS * 3)
  assert.equal((await browser.submit('/console/live/keys', '/console/live/keys', {})).status, 201)
})

test('a form with files is not carried: the step-up asks for the code alone, then sends the member back to the form', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const { secret } = await enrol(ta, browser)
  ta.clock.advance(STEP_UP_MS + 1000)
  const page = await browser.get('/console/live/providers')
  const asked = await browser.post('/console/live/providers/pc_unknown/credentials', { csrf: csrfOf(page.html) }, { multipart: { certificate: new Blob(['-----BEGIN CERTIFICATE-----']) } })
  assert.equal(asked.status, 200)
  assert.match(asked.html, /action="\/console\/second-factor"/)
  assert.match(asked.html, /name="next" value="\/console\/live\/providers\/pc_unknown"/)
  assert.doesNotMatch(asked.html, /BEGIN CERTIFICATE/)
  const done = await browser.post('/console/second-factor', { csrf: csrfOf(asked.html), next: '/console/live/providers/pc_unknown', code: totpAt(secret, ta.clock()) })
  assert.equal(done.status, 303)
  assert.equal(done.location, '/console/live/providers/pc_unknown')
  assert.equal((await browser.post('/console/live/providers/pc_unknown/credentials', { csrf: csrfOf(page.html) }, { multipart: { certificate: new Blob(['x']) } })).status, 404, 'checked just now: the form goes through (to an unknown configuration)')
})

test('every step-up action asks for the code after five minutes, before anything is done', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  await enrol(ta, browser)
  ta.clock.advance(STEP_UP_MS + 1000)
  const csrf = csrfOf((await browser.get('/console/live/payments')).html)
  const before = (await browser.get('/console/live/activity')).html.match(/data-action=/g)?.length
  // Every member change is one of them: a new Team action cannot be added without step-up.
  const memberChanges = Object.entries(ROUTE_PERMISSIONS).filter(([r, p]) => r.startsWith('POST ') && p === 'members').map(([r]) => r)
  assert.deepEqual(memberChanges.filter((r) => !(r in STEP_UP_ROUTES)), [])
  const wrong: string[] = []
  for (const route of Object.keys(STEP_UP_ROUTES)) {
    const path = pathOf(route.split(' ')[1], 'live')
    const res = await browser.post(path, { csrf, role: 'viewer', email: 'x@example.com', url: 'https://example.com/h', required: '1', refundLimits: '{"CNY": 1}' })
    if (res.status !== 200 || !res.html.includes('data-step-up')) wrong.push(`${route}: ${res.status}`)
  }
  assert.deepEqual(wrong, [])
  assert.equal((await browser.get('/console/live/activity')).html.match(/data-action=/g)?.length, before, 'nothing was done')
})
