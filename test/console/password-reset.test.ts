/**
 * Password reset for console members (docs/console.md#password-reset): the same answer for a known
 * and an unknown address, limits that hold under a burst, a link used once that expires, every
 * session of the member ended; mailed through a real SMTP server on loopback (aiosmtpd).
 */
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { JOBS, startJobs } from '../../src/jobs/runner.js'
import { MAX_RESETS_PER_ACCOUNT, MAX_RESETS_PER_ADDRESS, RESET_MS } from '../../src/services/password-reset.js'
import { startTestApp } from '../helpers/app.js'
import { ConsoleBrowser, loginTokenOf, signedIn, type ConsolePage } from '../helpers/console.js'
import { inviteLinkOf, memberIdOf, memberWithRole } from '../helpers/members.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'
import { lockWaiters, until } from '../helpers/wait.js'

async function withMail(t: TestContext) {
  const sink = await startSmtpSink(t)
  const ta = await startTestApp(t, { smtpUrl: sink.url, mailFrom: 'console@till.test' })
  // The mail job as an instance runs it: a queued mail wakes it at commit.
  const jobs = startJobs(ta.deps, JOBS.filter((j) => j.name === 'mail'))
  t.after(() => jobs.stop())
  const { m, browser } = await signedIn(ta)
  return { sink, ta, m, owner: browser }
}

/** Asks for a reset as a signed-out browser would: the form first, then the post. */
async function forgot(b: ConsoleBrowser, email: string) {
  const form = await b.get('/console/forgot')
  return b.post('/console/forgot', { token: loginTokenOf(form.html), email })
}

const linkIn = (text: string) => /(http:\/\/\S+\/console\/reset\/[\w-]+)/.exec(text)![1]
const pathOf = (link: string) => new URL(link).pathname
const resetRows = async (ta: { deps: { db: { $client: { query(q: string): Promise<{ rows: { n: number }[] }> } } } }) =>
  (await ta.deps.db.$client.query('select count(*)::int as n from console_password_resets')).rows[0].n

test('a known and an unknown address get the same page and status; only the member is mailed, in their console language', async (t) => {
  const { sink, ta, m } = await withMail(t)
  const b = new ConsoleBrowser(ta)
  const login = await b.get('/console/login')
  assert.match(login.html, /href="\/console\/forgot"/)
  const known = await forgot(b, m.email)
  const unknown = await forgot(b, 'nobody@example.com')
  assert.equal(known.status, 200)
  assert.equal(unknown.status, known.status)
  assert.equal(unknown.html, known.html, 'the very same page')
  assert.match(known.html, /a link to set a new password is on its way/)

  const ja = new ConsoleBrowser(ta)
  ja.cookies.set('till_lang', 'ja')
  assert.equal((await forgot(ja, m.email.toUpperCase())).status, 200)
  const mails = await sink.received(2)
  assert.deepEqual(mails.map((x) => x.rcptTos), [[m.email], [m.email]])
  const subjects = mails.map((x) => x.headers.Subject).sort()
  assert.deepEqual(subjects, ['Reset your password for Shop on Till', '【Shop】Till コンソールのパスワード再設定'])
  const jaMail = mails.find((x) => x.headers.Subject.startsWith('【'))!
  assert.match(jaMail.parts[0].content, /パスワード再設定が申請されました/)
  assert.ok(jaMail.parts[1].content.includes(`href="${linkIn(jaMail.parts[0].content)}"`))
  assert.match((await new ConsoleBrowser(ta).get('/console/test/activity')).location ?? '', /login/)
})

test('the answer does not wait for the link to be written: a known address answers while its tables are locked', async (t) => {
  const { sink, ta, m } = await withMail(t)
  const b = new ConsoleBrowser(ta)
  const token = loginTokenOf((await b.get('/console/forgot')).html)
  // Another connection holds the resets table: writing a link would wait for it.
  const holder = await ta.database.pool.connect()
  await holder.query('begin')
  await holder.query('lock table console_password_resets in access exclusive mode')
  try {
    const res = await b.post('/console/forgot', { token, email: m.email })
    assert.equal(res.status, 200)
    assert.match(res.html, /on its way/)
  } finally {
    await holder.query('rollback')
    holder.release()
  }
  const [mail] = await sink.received(1)
  assert.deepEqual(mail.rcptTos, [m.email], 'the link is made once the lock goes')
})

test('a burst of requests for one address makes no more links than the limit', async (t) => {
  const { sink, ta, m } = await withMail(t)
  const forms = await Promise.all(Array.from({ length: 12 }, async () => {
    const b = new ConsoleBrowser(ta)
    return { b, token: loginTokenOf((await b.get('/console/forgot')).html) }
  }))
  const burst = await Promise.all(forms.map(({ b, token }) => b.post('/console/forgot', { token, email: m.email })))
  const statuses = burst.map((r) => r.status)
  assert.equal(statuses.filter((s) => s === 200).length, MAX_RESETS_PER_ACCOUNT, statuses.join(','))
  assert.equal(statuses.filter((s) => s === 429).length, 12 - MAX_RESETS_PER_ACCOUNT)
  await sink.received(MAX_RESETS_PER_ACCOUNT)
  assert.equal(await resetRows(ta), MAX_RESETS_PER_ACCOUNT)
})

test('a burst from one client asking for many addresses is limited per client', async (t) => {
  const { ta } = await withMail(t)
  const one = new ConsoleBrowser(ta)
  const token = loginTokenOf((await one.get('/console/forgot')).html)
  const many = await Promise.all(Array.from({ length: MAX_RESETS_PER_ADDRESS + 5 }, (_, i) => one.post('/console/forgot', { token, email: `someone${i}@example.com` })))
  assert.equal(many.filter((r) => r.status === 429).length, 5)
  assert.match(many.find((r) => r.status === 429)!.html, /Too many requests/)
})

test('the link sets a new password once (two racing uses: one wins), ends every session of the member, and expires', async (t) => {
  const { sink, ta, m } = await withMail(t)
  const laptop = new ConsoleBrowser(ta)
  const phone = new ConsoleBrowser(ta)
  assert.equal((await laptop.signIn(m.email, m.password)).status, 303)
  assert.equal((await phone.signIn(m.email, m.password)).status, 303)
  await forgot(new ConsoleBrowser(ta), m.email)
  const link = linkIn((await sink.received(1))[0].parts[0].content)

  const page = await new ConsoleBrowser(ta).get(pathOf(link))
  assert.equal(page.status, 200)
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer')
  assert.ok(page.html.includes(m.email))
  assert.equal((await new ConsoleBrowser(ta).post(pathOf(link), { password: 'short' })).status, 400, 'the console\'s password rules')

  const [a, b] = await Promise.all([new ConsoleBrowser(ta).post(pathOf(link), { password: 'first new password' }), new ConsoleBrowser(ta).post(pathOf(link), { password: 'second new password' })])
  assert.deepEqual([a.status, b.status].sort(), [303, 404], 'two racing uses: one sets the password')
  const winner = a.status === 303 ? a : b
  assert.equal(winner.location, '/console/login?notice=password-reset')
  const password = a.status === 303 ? 'first new password' : 'second new password'
  assert.equal((await laptop.get('/console/test/payments')).status, 303, 'signed out')
  assert.equal((await phone.get('/console/test/payments')).status, 303, 'signed out')
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, m.password)).status, 401)
  const back = new ConsoleBrowser(ta)
  assert.equal((await back.signIn(m.email, password)).status, 303)
  assert.equal((await new ConsoleBrowser(ta).get(pathOf(link))).status, 404, 'used')
  const activity = (await back.get('/console/test/activity')).html
  assert.match(activity, /data-action="password_reset_requested"/)
  assert.match(activity, /data-action="password_reset"/)

  await forgot(new ConsoleBrowser(ta), m.email)
  const late = linkIn((await sink.received(2))[1].parts[0].content)
  ta.clock.advance(RESET_MS + 1000)
  assert.equal((await new ConsoleBrowser(ta).get(pathOf(late))).status, 404)
  assert.equal((await new ConsoleBrowser(ta).post(pathOf(late), { password: 'too late password' })).status, 404)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, password)).status, 303, 'unchanged')
})

test('without SMTP: the page says to ask an owner, who makes a link on the Team page to hand over', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedIn(ta)
  const dev = await memberWithRole(ta, owner, 'developer', 'dev@example.com')
  const asked = await new ConsoleBrowser(ta).get('/console/forgot')
  assert.equal(asked.status, 200)
  assert.match(asked.html, /This Till sends no email/)
  assert.doesNotMatch(asked.html, /<form/)

  const team = (await owner.get('/console/test/members')).html
  const id = memberIdOf(team, 'dev@example.com')
  const made = await owner.submit('/console/test/members', `/console/test/members/${id}/reset`)
  assert.equal(made.status, 200)
  assert.match(made.html, /Password reset link for dev@example\.com/)
  const link = inviteLinkOf(made.html)
  assert.match(link, /\/console\/reset\/[\w-]{43}$/)
  assert.equal((await new ConsoleBrowser(ta).post(pathOf(link), { password: 'a brand new password' })).status, 303)
  assert.equal((await dev.browser.get('/console/test/payments')).status, 303, 'signed out')
  assert.equal((await new ConsoleBrowser(ta).signIn('dev@example.com', 'a brand new password')).status, 303)
  assert.match((await owner.get('/console/test/activity')).html, /data-action="password_reset_link_made"/)
})

test('a reset link made before a new password no longer works: after the member\'s own change, and after the operator\'s set-password', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner, m } = await signedIn(ta)
  const dev = await memberWithRole(ta, owner, 'developer', 'dev@example.com')
  const team = (await owner.get('/console/test/members')).html
  const linkFor = async (id: string) => pathOf(inviteLinkOf((await owner.submit('/console/test/members', `/console/test/members/${id}/reset`)).html))

  const devLink = await linkFor(memberIdOf(team, 'dev@example.com'))
  assert.equal((await dev.browser.submit('/console/test/password', '/console/test/password', { current: dev.password, password: 'the member\'s own new one' })).status, 303)
  assert.equal((await new ConsoleBrowser(ta).get(devLink)).status, 404)
  assert.equal((await new ConsoleBrowser(ta).post(devLink, { password: 'set through the old link' })).status, 404)
  assert.equal((await new ConsoleBrowser(ta).signIn('dev@example.com', 'the member\'s own new one')).status, 303, 'the member\'s own password stands')

  const ownerLink = await linkFor(memberIdOf(team, m.email))
  assert.equal((await ta.admin('POST', `/merchants/${m.id}/password`, { password: 'the operator\'s new one' })).status, 200)
  assert.equal((await new ConsoleBrowser(ta).post(ownerLink, { password: 'set through the old link' })).status, 404)
  assert.equal((await new ConsoleBrowser(ta).signIn(m.email, 'the operator\'s new one')).status, 303)
})

test('a sign-in whose password was checked just before a reset committed does not outlive the reset', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedIn(ta)
  const dev = await memberWithRole(ta, owner, 'developer', 'dev@example.com')
  const id = memberIdOf((await owner.get('/console/test/members')).html, 'dev@example.com')
  const link = pathOf(inviteLinkOf((await owner.submit('/console/test/members', `/console/test/members/${id}/reset`)).html))

  // The sign-in is held at the insert of its session, its password already checked, while the reset goes on.
  const holder = await ta.database.pool.connect()
  const attacker = new ConsoleBrowser(ta)
  let reset: ConsolePage | null = null
  try {
    await holder.query(`create function hold_sign_in() returns trigger language plpgsql as $$ begin perform pg_advisory_xact_lock(4141); return new; end $$;
      create trigger hold_sign_in before insert on console_sessions for each row execute function hold_sign_in()`)
    await holder.query('select pg_advisory_lock(4141)')
    const signingIn = attacker.signIn('dev@example.com', dev.password)
    await until('the sign-in held at its session', 10_000, async () => await lockWaiters(ta.database.pool) === 1)
    const resetting = new ConsoleBrowser(ta).post(link, { password: 'the new password' }).then((r) => (reset = r))
    await until('the reset done, or waiting for the sign-in', 10_000, async () => reset !== null || await lockWaiters(ta.database.pool) === 2)
    await holder.query('select pg_advisory_unlock(4141)')
    await Promise.all([signingIn, resetting])
  } finally {
    // Before the app closes: a sign-in still held would keep it open.
    await holder.query('select pg_advisory_unlock_all()')
    holder.release()
  }

  assert.equal(reset!.status, 303, 'the password is reset')
  assert.equal((await attacker.get('/console/test/payments')).status, 303, 'the old password\'s session is signed out')
  assert.equal((await new ConsoleBrowser(ta).signIn('dev@example.com', 'the new password')).status, 303)
})
