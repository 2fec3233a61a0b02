/** The console's second factor (docs/console.md#a-second-factor): enrolment, sign-in with a code, replay, drift, limits, recovery. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { ConsoleBrowser, csrfOf, signedIn } from '../helpers/console.js'
import { memberIdOf, memberWithRole } from '../helpers/members.js'
import { enrol, recoveryCodesOf, secretOf } from '../helpers/second-factor.js'
import { hotp, totpAt } from '../helpers/totp.js'
import { claimStep, factorOf } from '../../src/store/repos/second-factor.js'

test('the test helper computes RFC 6238\'s published SHA-1 vectors', () => {
  const key = Buffer.from('12345678901234567890')
  const vectors: [number, string][] = [[59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'], [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130']]
  for (const [seconds, code] of vectors) assert.equal(hotp(key, Math.floor(seconds / 30), 8), code, String(seconds))
})

/** A new browser of the member past the password, half signed in. */
async function passwordOnly(ta: TestApp, email: string, password: string) {
  const b = new ConsoleBrowser(ta)
  assert.equal((await b.signIn(email, password)).status, 303)
  return b
}

const nextStep = (ta: TestApp) => ta.clock.advance(30_000)

async function sendCode(b: ConsoleBrowser, code: string) {
  const page = await b.get('/console/second-factor')
  return b.post('/console/second-factor', { csrf: csrfOf(page.html), code, next: '/console/test/keys' })
}

test('enrolment shows a QR code, the otpauth URI and the key; a wrong code turns nothing on; the right one shows ten recovery codes once', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const off = await browser.get('/console/test/security')
  assert.match(off.html, /data-second-factor="off"/)
  const page = await browser.submit('/console/test/security', '/console/test/security/enrol')
  assert.match(page.html, /<svg[^>]*>/)
  const secret = secretOf(page.html)!
  assert.match(page.html, new RegExp(`otpauth://totp/[^<]*secret=${secret}`))
  const wrong = await browser.post('/console/test/security/confirm', { csrf: csrfOf(page.html), code: totpAt(secret, ta.clock(), 3) })
  assert.equal(wrong.status, 400)
  assert.equal(secretOf(wrong.html), secret, 'the same enrolment is shown again')
  const done = await browser.post('/console/test/security/confirm', { csrf: csrfOf(page.html), code: totpAt(secret, ta.clock()) })
  assert.equal(done.status, 200)
  assert.equal(new Set(recoveryCodesOf(done.html)).size, 10)
  const after = await browser.get('/console/test/security')
  assert.match(after.html, /data-second-factor="on"/)
  assert.deepEqual(recoveryCodesOf(after.html), [], 'shown once')
  assert.match((await browser.get('/console/test/activity')).html, /data-action="second_factor_enabled"/)
})

test('an enrolment under way is shown only to the session that began it, and only that session confirms it', async (t) => {
  const ta = await startTestApp(t)
  const { m, browser: a } = await signedIn(ta)
  const b = await passwordOnly(ta, m.email, m.password)
  const begun = await a.submit('/console/test/security', '/console/test/security/enrol')
  const secret = secretOf(begun.html)!
  assert.ok(secret)
  assert.equal(secretOf((await a.get('/console/test/security')).html), secret, 'shown again to the session that began it')

  // The member's other session sees no enrolment under way, and a code of that secret confirms nothing there.
  const other = await b.get('/console/test/security')
  assert.match(other.html, /data-second-factor="off"/)
  assert.equal(secretOf(other.html), undefined)
  const refused = await b.post('/console/test/security/confirm', { csrf: csrfOf(other.html), code: totpAt(secret, ta.clock()) })
  assert.equal(refused.status, 400)
  assert.equal(secretOf((await a.get('/console/test/security')).html), secret, 'still under way, not turned on')

  // The session that began it confirms it.
  const done = await a.post('/console/test/security/confirm', { csrf: csrfOf(begun.html), code: totpAt(secret, ta.clock()) })
  assert.equal(done.status, 200)
  assert.equal(new Set(recoveryCodesOf(done.html)).size, 10)
})

test('a confirmation racing an enrolment begun again: a code checked against the first secret does not confirm the second', async (t) => {
  const ta = await startTestApp(t)
  const { browser } = await signedIn(ta)
  const first = await browser.submit('/console/test/security', '/console/test/security/enrol')
  const { rows: [session] } = await ta.database.pool.query('select token_hash, member_id from console_sessions')
  // What the confirmation read and checked its code against…
  const read = (await factorOf(ta.deps.db, session.member_id))!
  // …then the enrolment begun again (another tab of the same session) before its claim.
  const again = await browser.submit('/console/test/security', '/console/test/security/enrol')
  assert.notEqual(secretOf(again.html), secretOf(first.html))
  const step = Math.floor(ta.clock().getTime() / 30_000)
  const confirming = { at: ta.clock(), tokenHash: session.token_hash }
  assert.equal(await claimStep(ta.deps.db, session.member_id, step, { ...confirming, secretEnc: read.secretEnc }), false)
  assert.equal((await factorOf(ta.deps.db, session.member_id))!.confirmedAt, null)
  const now = (await factorOf(ta.deps.db, session.member_id))!
  assert.equal(await claimStep(ta.deps.db, session.member_id, step, { ...confirming, secretEnc: now.secretEnc }), true)
})

test('after the password a member with a second factor is asked for a code; a code works once; drift of one step is accepted, two refused', async (t) => {
  const ta = await startTestApp(t)
  const { browser, m } = await signedIn(ta)
  const { secret } = await enrol(ta, browser)
  nextStep(ta)

  const b = await passwordOnly(ta, m.email, m.password)
  const held = await b.get('/console/test/keys')
  assert.equal(held.status, 303)
  assert.equal(held.location, '/console/second-factor?next=%2Fconsole%2Ftest%2Fkeys')
  const code = totpAt(secret, ta.clock())
  const ok = await sendCode(b, code)
  assert.equal(ok.status, 303)
  assert.equal(ok.location, '/console/test/keys')
  assert.equal((await b.get('/console/test/keys')).status, 200)

  const again = await passwordOnly(ta, m.email, m.password)
  assert.equal((await sendCode(again, code)).status, 401, 'the same code twice: replay refused')

  ta.clock.advance(10 * 30_000)
  assert.equal((await sendCode(again, totpAt(secret, ta.clock(), -2))).status, 401, 'two steps behind')
  assert.equal((await sendCode(again, totpAt(secret, ta.clock(), -1))).status, 303, 'one step behind')
  ta.clock.advance(10 * 30_000)
  const third = await passwordOnly(ta, m.email, m.password)
  assert.equal((await sendCode(third, totpAt(secret, ta.clock(), 2))).status, 401, 'two steps ahead')
  assert.equal((await sendCode(third, totpAt(secret, ta.clock(), 1))).status, 303, 'one step ahead')
  assert.equal((await sendCode(third, totpAt(secret, ta.clock(), 0))).status, 401, 'a step not later than the last one used')
})

test('two racing uses of one code or one recovery code: exactly one signs in', async (t) => {
  const ta = await startTestApp(t)
  const { browser, m } = await signedIn(ta)
  const { secret, codes } = await enrol(ta, browser)
  nextStep(ta)
  for (const code of [totpAt(secret, ta.clock()), codes[0]]) {
    const [a, b] = await Promise.all([passwordOnly(ta, m.email, m.password), passwordOnly(ta, m.email, m.password)])
    const [pa, pb] = await Promise.all([a.get('/console/second-factor'), b.get('/console/second-factor')])
    const [ra, rb] = await Promise.all([
      a.post('/console/second-factor', { csrf: csrfOf(pa.html), code }),
      b.post('/console/second-factor', { csrf: csrfOf(pb.html), code }),
    ])
    assert.deepEqual([ra.status, rb.status].sort(), [303, 401], code)
  }
  const later = await passwordOnly(ta, m.email, m.password)
  assert.equal((await sendCode(later, codes[0].toUpperCase())).status, 401, 'a used recovery code stays used')
  assert.equal((await sendCode(later, codes[1].replace('-', ' '))).status, 303, 'another one works, however it is typed')
  assert.match((await later.get('/console/test/security')).html, /: 8\./)
})

test('a burst of wrong codes gets no more checks than the member\'s limit; then even the right code waits', async (t) => {
  const ta = await startTestApp(t)
  const { browser, m } = await signedIn(ta)
  const { secret } = await enrol(ta, browser)
  nextStep(ta)
  const b = await passwordOnly(ta, m.email, m.password)
  const csrf = csrfOf((await b.get('/console/second-factor')).html)
  const wrong = String((Number(totpAt(secret, ta.clock())) + 1) % 1_000_000).padStart(6, '0')
  const statuses = await Promise.all(Array.from({ length: 20 }, () => b.post('/console/second-factor', { csrf, code: wrong }).then((r) => r.status)))
  assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join())
  assert.equal(statuses.filter((s) => s === 429).length, 15)
  assert.equal((await b.post('/console/second-factor', { csrf, code: totpAt(secret, ta.clock()) })).status, 429)
  ta.clock.advance(15 * 60_000)
  assert.equal((await sendCode(b, totpAt(secret, ta.clock()))).status, 303, 'the next window')
})

test('the second factor is turned off only with a fresh code; set up again, it holds every other session anew', async (t) => {
  const ta = await startTestApp(t)
  const { browser, m } = await signedIn(ta)
  const { secret } = await enrol(ta, browser)
  nextStep(ta)
  const other = await passwordOnly(ta, m.email, m.password)
  assert.equal((await sendCode(other, totpAt(secret, ta.clock()))).status, 303)
  assert.equal((await browser.submit('/console/test/security', '/console/test/security/disable', { code: totpAt(secret, ta.clock()) })).status, 400, 'a code already used')
  nextStep(ta)
  assert.equal((await browser.submit('/console/test/security', '/console/test/security/disable', { code: totpAt(secret, ta.clock()) })).status, 303)
  assert.match((await browser.get('/console/test/security')).html, /data-second-factor="off"/)
  assert.equal((await (await passwordOnly(ta, m.email, m.password)).get('/console/test/keys')).status, 200, 'the password alone again')
  nextStep(ta)
  await enrol(ta, browser)
  assert.equal((await browser.get('/console/test/keys')).status, 200, 'the session that confirmed it is checked')
  assert.equal((await other.get('/console/test/keys')).status, 303, 'a session that passed the old one passes the new one too')
})

test('an owner requires a second factor: a member without one can only enrol, then goes on; an owner resets a member\'s', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedIn(ta)
  const viewer = await memberWithRole(ta, owner, 'viewer', 'v@example.com')
  await enrol(ta, owner)
  assert.equal((await owner.submit('/console/test/security', '/console/test/security/require', { required: '1' })).status, 303)

  const v = await passwordOnly(ta, viewer.email, viewer.password)
  const sent = await v.get('/console/test/payments')
  assert.equal(sent.status, 303)
  assert.equal(sent.location, '/console/test/security')
  assert.match((await v.get('/console/test/security')).html, /data-second-factor="off"/)
  await enrol(ta, v)
  assert.equal((await v.get('/console/test/payments')).status, 200)
  assert.doesNotMatch((await v.get('/console/test/security')).html, /security\/disable/, 'required: not turned off')

  const team = (await owner.get('/console/test/members')).html
  const id = new RegExp('data-member="v@example\\.com"[\\s\\S]*?/members/(mem_\\w+)/second-factor/reset').exec(team)![1]
  nextStep(ta)
  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${id}/second-factor/reset`)).status, 303)
  const again = await passwordOnly(ta, viewer.email, viewer.password)
  assert.equal((await again.get('/console/test/payments')).location, '/console/test/security', 'reset, and required: enrol again')
})

test('the operator\'s set-password is the way back for an owner who lost both phone and codes: the reset sign-in has no second factor', async (t) => {
  const ta = await startTestApp(t)
  const { browser, m } = await signedIn(ta)
  await enrol(ta, browser)
  const res = await ta.admin('POST', `/merchants/${m.id}/password`, { password: 'a brand new password' })
  assert.equal(res.status, 200)
  const b = await passwordOnly(ta, m.email, 'a brand new password')
  assert.equal((await b.get('/console/test/keys')).status, 200)
  assert.match((await b.get('/console/test/security')).html, /data-second-factor="off"/)
  assert.match((await b.get('/console/test/activity')).html, /data-action="second_factor_reset"/)
})

test('wrong codes from one address are limited across members: a burst past 30 gets no more checks', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedIn(ta)
  const team = []
  for (let i = 0; i < 7; i++) {
    const member = await memberWithRole(ta, owner, 'viewer')
    const { secret } = await enrol(ta, member.browser)
    team.push({ ...member, secret })
  }
  nextStep(ta)
  const halves = await Promise.all(team.map((x) => passwordOnly(ta, x.email, x.password)))
  const forms = await Promise.all(halves.map(async (b) => ({ b, csrf: csrfOf((await b.get('/console/second-factor')).html) })))
  const statuses = await Promise.all(forms.flatMap(({ b, csrf }) => Array.from({ length: 5 }, () => b.post('/console/second-factor', { csrf, code: 'zzzzz-zzzzz' }).then((r) => r.status))))
  assert.equal(statuses.length, 35)
  assert.equal(statuses.filter((s) => s === 401).length, 30, statuses.join())
  assert.equal(statuses.filter((s) => s === 429).length, 5)
})

test('an owner turns off their own second factor only with a fresh code: the Team page\'s reset is for other members', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner, m } = await signedIn(ta)
  await enrol(ta, owner)
  const self = memberIdOf((await owner.get('/console/test/members')).html, m.email)
  const reset = await owner.submit('/console/test/members', `/console/test/members/${self}/second-factor/reset`)
  assert.equal(reset.status, 400)
  assert.match(reset.html, /Your own two-factor sign-in is turned off here/)
  assert.match((await owner.get('/console/test/security')).html, /data-second-factor="on"/, 'still on')
  assert.doesNotMatch((await owner.get('/console/test/activity')).html, /data-action="second_factor_reset"/)
})
