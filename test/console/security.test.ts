/**
 * The console's security rules over HTTP: cookie flags, hashed and rotated sessions, the same answer
 * for an unknown email and a wrong password, throttling per account and per address (bursts of
 * parallel guesses included, IPv6 by its /64, change password counted alike), CSRF on every
 * post, another merchant's ids and the other mode's ids answering 404, escaping, expiry, sign-out.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { JOBS } from '../../src/jobs/runner.js'
import { IDLE_MS, MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS } from '../../src/services/console-auth.js'
import { bootstrapDemo } from '../../src/services/merchants.js'
import { startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, csrfOf, loginTokenOf, merchantWithLogin, signedIn } from '../helpers/console.js'

const keyCount = async (ta: Awaited<ReturnType<typeof startTestApp>>, merchantId: string) =>
  Number((await ta.database.pool.query('select count(*) from api_keys where merchant_id = $1', [merchantId])).rows[0].count)

test('signing in sets an HttpOnly, SameSite=Lax session cookie for /console, stored only as its SHA-256', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  const res = await b.signIn(m.email, m.password)
  assert.equal(res.status, 303)
  assert.equal(res.location, '/console/test/payments')
  const set = res.headers.getSetCookie().find((c) => c.startsWith('till_console='))!
  assert.match(set, /; Path=\/console; HttpOnly; SameSite=Lax$/)
  assert.doesNotMatch(set, /Secure/)
  const token = b.cookies.get('till_console')!
  assert.ok(token.length >= 43)
  const rows = (await ta.database.pool.query('select token_hash from console_sessions')).rows
  assert.deepEqual(rows.map((r) => r.token_hash), [createHash('sha256').update(token).digest('hex')])
  const page = await b.get('/console/test/keys')
  assert.equal(page.status, 200)
  const csp = page.headers.get('content-security-policy')!
  assert.match(csp, /script-src 'self'/)
  assert.doesNotMatch(csp, /unsafe-inline/)
  assert.equal(page.headers.get('cache-control'), 'no-store')
})

test('the session cookie is Secure when BASE_URL is https', async (t) => {
  const ta = await startTestApp(t, { baseUrl: 'https://till.example.com' })
  const m = await merchantWithLogin(ta)
  const res = await new ConsoleBrowser(ta).signIn(m.email, m.password)
  assert.equal(res.status, 303)
  assert.match(res.headers.getSetCookie().find((c) => c.startsWith('till_console='))!, /; Secure/)
})

test('each sign-in gets a new token and ends the one the browser had; signing out ends it too', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  await b.signIn(m.email, m.password)
  const first = b.cookies.get('till_console')!
  await b.signIn(m.email, m.password)
  const second = b.cookies.get('till_console')!
  assert.notEqual(first, second)
  const old = new ConsoleBrowser(ta)
  old.cookies.set('till_console', first)
  const refused = await old.get('/console/test/keys')
  assert.equal(refused.status, 303)
  assert.match(refused.location!, /^\/console\/login\?notice=expired&next=/)

  const out = await b.submit('/console/test/keys', '/console/logout')
  assert.equal(out.status, 303)
  assert.equal(out.location, '/console/login?notice=signed-out')
  const after = new ConsoleBrowser(ta)
  after.cookies.set('till_console', second)
  assert.equal((await after.get('/console/test/keys')).status, 303)
})

test('an unknown email and a wrong password get the very same answer', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  const wrong = await b.signIn(m.email, 'not the password')
  const unknown = await b.signIn('nobody@example.com', 'not the password')
  assert.equal(wrong.status, 401)
  assert.equal(unknown.status, 401)
  const body = (html: string) => html.replace(/value="[^"]*@example\.com"/, 'value="EMAIL"')
  assert.equal(body(wrong.html), body(unknown.html))
  assert.match(wrong.html, /The email or password is not correct\./)
  assert.equal(wrong.headers.getSetCookie().length, unknown.headers.getSetCookie().length)
})

test('sign-in is throttled per account (even with the right password after) and answers an unknown email alike', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) assert.equal((await b.signIn(m.email, `wrong ${i}`)).status, 401)
  const blocked = await b.signIn(m.email, m.password)
  assert.equal(blocked.status, 429)
  assert.match(blocked.html, /Too many failed sign-ins/)
  assert.equal(b.cookies.get('till_console'), undefined)

  for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) await b.signIn('ghost@example.com', `wrong ${i}`)
  const ghost = await b.signIn('ghost@example.com', 'wrong again')
  assert.equal(ghost.status, 429)
  assert.equal(ghost.html.replace(/ghost@example\.com/, m.email), blocked.html)

  // Another account from the same address still signs in; the window passing lets this one in again.
  const other = await merchantWithLogin(ta, 'Other')
  assert.equal((await new ConsoleBrowser(ta).signIn(other.email, other.password)).status, 303)
  ta.clock.advance(15 * 60_000)
  assert.equal((await b.signIn(m.email, m.password)).status, 303)
})

test('the email is lower-cased at sign-in: a mixed-case email signs in, and its failures count against the one account', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta, 'Shop', 'owner@shop.example')
  assert.equal((await new ConsoleBrowser(ta).signIn(' Owner@Shop.EXAMPLE ', m.password)).status, 303)
  const b = new ConsoleBrowser(ta)
  for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) assert.equal((await b.signIn(i % 2 ? 'OWNER@shop.example' : 'owner@SHOP.example', `wrong ${i}`)).status, 401)
  assert.equal((await b.signIn('Owner@Shop.Example', m.password)).status, 429)
})

test('sign-in is throttled per address across accounts', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) assert.equal((await b.signIn(`guess${i}@example.com`, 'x')).status, 401)
  assert.equal((await b.signIn(m.email, m.password)).status, 429)
})

/** Sign-in forms fetched first, then all posted at once: a burst, each browser with its own headers. */
async function signInBurst(ta: Awaited<ReturnType<typeof startTestApp>>, email: string, n: number, headersOf: (i: number) => Record<string, string> = () => ({})) {
  const forms = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const b = new ConsoleBrowser(ta, headersOf(i))
    return { b, token: loginTokenOf((await b.get('/console/login')).html) }
  }))
  const answers = await Promise.all(forms.map(({ b, token }, i) => b.post('/console/login', { token, email, password: `wrong ${i}` })))
  return answers.map((a) => a.status).sort()
}

const activityCount = async (ta: Awaited<ReturnType<typeof startTestApp>>, merchantId: string, action: string) =>
  Number((await ta.database.pool.query('select count(*) from console_activity where merchant_id = $1 and action = $2', [merchantId, action])).rows[0].count)

const tally = (statuses: number[]) => Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length]))

test('a burst of 40 wrong passwords gets 5 password checks, from one address and from forty', async (t) => {
  const ta = await startTestApp(t, { trustProxy: true })
  const one = await merchantWithLogin(ta, 'One')
  assert.deepEqual(tally(await signInBurst(ta, one.email, 40)), { 401: MAX_FAILURES_PER_ACCOUNT, 429: 40 - MAX_FAILURES_PER_ACCOUNT })
  assert.equal(await activityCount(ta, one.id, 'sign_in_failed'), MAX_FAILURES_PER_ACCOUNT)
  // The refused ones are not counted against the address: another account still signs in from it.
  const other = await merchantWithLogin(ta, 'Other')
  assert.equal((await new ConsoleBrowser(ta).signIn(other.email, other.password)).status, 303)

  const forty = await merchantWithLogin(ta, 'Forty')
  const statuses = await signInBurst(ta, forty.email, 40, (i) => ({ 'x-forwarded-for': `198.51.100.${i + 1}` }))
  assert.deepEqual(tally(statuses), { 401: MAX_FAILURES_PER_ACCOUNT, 429: 40 - MAX_FAILURES_PER_ACCOUNT })
  assert.equal(await activityCount(ta, forty.id, 'sign_in_failed'), MAX_FAILURES_PER_ACCOUNT)
  // The right password is refused too until the window ends; then it signs in.
  assert.equal((await new ConsoleBrowser(ta).signIn(forty.email, forty.password)).status, 429)
  ta.clock.advance(15 * 60_000)
  assert.equal((await new ConsoleBrowser(ta).signIn(forty.email, forty.password)).status, 303)
})

test('a successful sign-in does not count as a failure', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  for (let i = 1; i < MAX_FAILURES_PER_ACCOUNT; i++) assert.equal((await b.signIn(m.email, `wrong ${i}`)).status, 401)
  assert.equal((await b.signIn(m.email, m.password)).status, 303)
  assert.equal((await b.signIn(m.email, 'the last wrong one')).status, 401)
  assert.equal((await b.signIn(m.email, m.password)).status, 429)
})

test('the per-address limit counts an IPv6 client by its /64, and an IPv4-mapped address as its IPv4 address', async (t) => {
  const ta = await startTestApp(t, { trustProxy: true })
  const m = await merchantWithLogin(ta)
  const from = (ip: string) => new ConsoleBrowser(ta, { 'x-forwarded-for': ip })
  // Half the guesses from one address of the /64, half from another: together they reach the limit.
  for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) {
    const ip = i % 2 ? '2001:db8:1:2::1' : `2001:db8:1:2:${(i + 1).toString(16)}::9`
    assert.equal((await from(ip).signIn(`guess${i}@example.com`, 'x')).status, 401)
  }
  assert.equal((await from('2001:0db8:0001:0002:ffff:ffff:ffff:ffff').signIn(m.email, m.password)).status, 429)
  assert.equal((await from('2001:db8:1:3::1').signIn(m.email, m.password)).status, 303, 'the next /64 is another client')

  for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) assert.equal((await from('::ffff:192.0.2.7').signIn(`other${i}@example.com`, 'x')).status, 401)
  assert.equal((await from('192.0.2.7').signIn(m.email, m.password)).status, 429)
  assert.equal((await from('192.0.2.8').signIn(m.email, m.password)).status, 303)
})

test('change password: wrong current passwords count as failed sign-ins of the account, each one logged', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const csrf = csrfOf((await browser.get('/console/test/password')).html)
  const change = (current: string) => browser.post('/console/test/password', { csrf, current, password: 'a new password' })
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => change(`wrong ${i}`)))
  assert.deepEqual(tally(answers.map((a) => a.status)), { 400: MAX_FAILURES_PER_ACCOUNT, 429: 40 - MAX_FAILURES_PER_ACCOUNT })
  assert.match(answers.find((a) => a.status === 429)!.html, /Too many wrong passwords/)
  assert.equal(await activityCount(ta, m.id, 'password_change_failed'), MAX_FAILURES_PER_ACCOUNT)
  // The account's guesses are spent, wherever the password is asked.
  assert.equal((await change(m.password)).status, 429)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, m.password)).status, 429)
  ta.clock.advance(15 * 60_000)
  assert.equal((await change(m.password)).status, 303)
})

test('every post needs the session\'s CSRF token; the sign-in form needs its own', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  const before = await keyCount(ta, m.id)
  assert.equal((await browser.post('/console/test/keys', {})).status, 403)
  assert.equal((await browser.post('/console/test/keys', { csrf: 'x'.repeat(43) })).status, 403)
  assert.equal((await browser.post('/console/test/webhooks', { url: 'http://127.0.0.1:9/x' })).status, 403)
  assert.equal((await browser.post('/console/logout', {})).status, 403)
  assert.equal(await keyCount(ta, m.id), before)
  // Another merchant's token is not this session's.
  const other = await signedIn(ta, { name: 'Other' })
  const theirs = csrfOf((await other.browser.get('/console/test/keys')).html)
  assert.equal((await browser.post('/console/test/keys', { csrf: theirs })).status, 403)
  assert.equal((await browser.submit('/console/test/keys', '/console/test/keys')).status, 201)
  assert.equal(await keyCount(ta, m.id), before + 1)

  // Sign-in: a post without the form of this browser is refused, even with the right password.
  const stranger = new ConsoleBrowser(ta)
  const page = await new ConsoleBrowser(ta).get('/console/login')
  const res = await stranger.post('/console/login', { token: loginTokenOf(page.html), email: m.email, password: m.password })
  assert.equal(res.status, 403)
  assert.equal(stranger.cookies.get('till_console'), undefined)
})

test('another merchant\'s keys, endpoints and configurations are 404, and so are the other mode\'s', async (t) => {
  const ta = await startTestApp(t)
  const a = await signedIn(ta, { name: 'Alpha' })
  const b = await signedIn(ta, { name: 'Beta' })
  const keys = (await ta.admin('GET', `/merchants/${b.m.id}/api_keys`)).body.data
  const bTestKey = keys.find((k: { mode: string }) => k.mode === 'test').id
  const endpoint = await ta.request('POST', '/api/v1/webhook_endpoints', { key: b.m.testKey, body: { url: 'http://127.0.0.1:9/hook' } })
  const config = await ta.admin('POST', `/merchants/${b.m.id}/provider_configs`, { provider: 'creem', label: 'main', credentials: { apiKey: 'creem_test_key_1234', webhookSecret: 'whsec_x' } })
  assert.equal(config.status, 201)

  for (const path of [`/console/test/keys/${bTestKey}/revoke`, `/console/test/webhooks/${endpoint.body.id}`, `/console/live/providers/${config.body.id}`]) {
    assert.equal((await a.browser.get(path)).status, 404, path)
  }
  const csrf = csrfOf((await a.browser.get('/console/test/keys')).html)
  assert.equal((await a.browser.post(`/console/test/keys/${bTestKey}/revoke`, { csrf })).status, 404)
  assert.equal((await a.browser.post(`/console/test/webhooks/${endpoint.body.id}/delete`, { csrf })).status, 404)
  assert.equal((await a.browser.post(`/console/live/providers/${config.body.id}/state`, { csrf, change: 'disable' })).status, 404)
  assert.equal((await ta.request('POST', '/api/v1/checkout', { key: b.m.testKey, body: { amount: 100, currency: 'CNY' } })).status, 200)
  assert.equal((await ta.admin('GET', `/merchants/${b.m.id}/provider_configs`)).body.data[0].enabled, true)

  // Beta's own: the test key is not under live, the test endpoint is not under live.
  assert.equal((await b.browser.get(`/console/live/keys/${bTestKey}/revoke`)).status, 404)
  assert.equal((await b.browser.get(`/console/live/webhooks/${endpoint.body.id}`)).status, 404)
  assert.equal((await b.browser.get(`/console/test/webhooks/${endpoint.body.id}`)).status, 200)
  assert.equal((await b.browser.get('/console/staging/keys')).status, 404)
})

test('merchant-supplied strings are escaped on every page they appear on', async (t) => {
  const ta = await startTestApp(t)
  const evil = '<script>alert(1)</script>"\'&'
  const { m, browser } = await signedIn(ta)
  const saved = await browser.submit('/console/test/settings', '/console/test/settings', { displayName: evil, brandColor: '', supportEmail: '' }, { multipart: {} })
  assert.equal(saved.status, 303)
  const url = 'http://127.0.0.1:9/hook?x="><script>alert(2)</script>'
  const created = await browser.submit('/console/test/webhooks', '/console/test/webhooks', { url, filter: 'all' })
  assert.equal(created.status, 201)
  for (const path of ['/console/test/webhooks', '/console/test/settings', '/console/test/keys']) {
    const page = await browser.get(path)
    assert.doesNotMatch(page.html, /<script>alert/, path)
  }
  assert.match((await browser.get('/console/test/settings')).html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
  assert.match(created.html, /&lt;script&gt;alert\(2\)&lt;\/script&gt;/)
  // And on the customer's checkout page.
  const session = await ta.request('POST', '/api/v1/checkout', { key: m.testKey, body: { amount: 100, currency: 'CNY' } })
  const checkout = await fetch(session.body.url).then((r) => r.text())
  assert.doesNotMatch(checkout, /<script>alert/)
  assert.match(checkout, /&lt;script&gt;alert\(1\)/)
})

test('a session idle too long ends; a password change ends the other sessions', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser } = await signedIn(ta)
  ta.clock.advance(IDLE_MS - 60_000)
  assert.equal((await browser.get('/console/test/keys')).status, 200)
  ta.clock.advance(IDLE_MS - 60_000)
  assert.equal((await browser.get('/console/test/keys')).status, 200, 'a request resets the idle time')
  ta.clock.advance(IDLE_MS + 1)
  const expired = await browser.get('/console/test/keys')
  assert.equal(expired.status, 303)
  assert.match(expired.location!, /notice=expired/)

  const one = new ConsoleBrowser(ta)
  const two = new ConsoleBrowser(ta)
  await one.signIn(m.email, m.password)
  await two.signIn(m.email, m.password)
  const wrong = await one.submit('/console/test/password', '/console/test/password', { current: 'nope', password: 'a new password' })
  assert.equal(wrong.status, 400)
  const changed = await one.submit('/console/test/password', '/console/test/password', { current: m.password, password: 'a new password' })
  assert.equal(changed.status, 303)
  assert.equal((await one.get('/console/test/keys')).status, 200)
  assert.equal((await two.get('/console/test/keys')).status, 303)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, m.password)).status, 401)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, 'a new password')).status, 303)
})

test('the Demo merchant\'s printed console login works at first start', async (t) => {
  const ta = await startTestApp(t)
  await ta.database.pool.query('truncate merchants, api_keys cascade')
  const demo = await bootstrapDemo(ta.deps)
  assert.ok(demo)
  const b = new ConsoleBrowser(ta)
  assert.equal((await b.signIn(demo.email!, demo.password)).status, 303)
  assert.match((await b.get('/console/test/keys')).html, /Demo/)
})

test('a page asked for before signing in is where the sign-in leads; only console paths are followed', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const b = new ConsoleBrowser(ta)
  const first = await b.get('/console/live/webhooks')
  assert.equal(first.location, '/console/login?next=%2Fconsole%2Flive%2Fwebhooks')
  const page = await b.get(first.location ?? '')
  const res = await b.post('/console/login', { token: loginTokenOf(page.html), email: m.email, password: m.password, next: '/console/live/webhooks' })
  assert.equal(res.location, "/console/live/webhooks")
  const evil = await b.get('/console/login?next=//evil.example/console/test')
  const again = await b.post('/console/login', { token: loginTokenOf(evil.html), email: m.email, password: m.password, next: '//evil.example/' })
  assert.equal(again.location, '/console/test/payments')
})

test('the sign-in-failure-purge job drops counters whose window has passed, and only those', async (t) => {
  const ta = await startTestApp(t)
  const m = await merchantWithLogin(ta)
  const count = async () => Number((await ta.database.pool.query('select count(*) from console_sign_in_failures')).rows[0].count)
  await new ConsoleBrowser(ta).signIn(m.email, 'wrong')
  const before = await count()
  assert.ok(before > 0)
  const purge = JOBS.find((j) => j.name === 'sign-in-failure-purge')!.start(ta.deps)
  await purge.run()
  assert.equal(await count(), before)
  ta.clock.advance(2 * THROTTLE_WINDOW_MS)
  await purge.run()
  assert.equal(await count(), 0)
})

test('a console request whose query fails logs the failure, never the query\'s parameters (a new password\'s hash)', async (t) => {
  const lines: string[] = []
  const ta = await startTestApp(t, {}, { log: (line) => void lines.push(line) })
  const { m, browser } = await signedIn(ta)
  // Any database failure will do (a lost connection, a timeout): here a constraint the new hash breaks.
  await ta.database.pool.query(`alter table console_members add constraint no_new_hash check (password_hash is null) not valid`)
  const changed = await browser.submit('/console/test/password', '/console/test/password', { current: m.password, password: 'a new password' })
  assert.equal(changed.status, 500)
  const logged = lines.join('\n')
  assert.match(logged, /console error/)
  assert.match(logged, /23514/, 'the failure is logged by its code')
  assert.doesNotMatch(logged, /scrypt\$/, 'no password hash in the log')
  assert.doesNotMatch(logged, /params:/)
})
