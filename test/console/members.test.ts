/** A merchant's team in the console: invitations, roles, removal, ownership and sessions (docs/console.md#members-and-roles). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { INVITATION_MS } from '../../src/services/members.js'
import { startTestApp, type TestApp } from '../helpers/app.js'
import { ConsoleBrowser, csrfOf, type ConsolePage } from '../helpers/console.js'
import { invite, inviteLinkOf, memberIdOf, memberWithRole, signedInOwner } from '../helpers/members.js'
import { lockWaiters, until } from '../helpers/wait.js'

test('an invitation link works once, before it expires, and its member signs in with the role it names', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedInOwner(ta)
  const link = await invite(owner, 'Dev@Example.com', 'developer')
  assert.match(link, /^http:\/\/[^/]+\/console\/invitations\/[\w-]{43}$/)
  assert.match((await owner.get('/console/test/members')).html, /data-mail="none">Not mailed: its link was shown to copy</, 'no mail server: the Team page says so')
  const path = new URL(link).pathname
  const page = await new ConsoleBrowser(ta).get(path)
  assert.equal(page.status, 200)
  assert.match(page.html, /dev@example\.com/)
  assert.equal((await new ConsoleBrowser(ta).post(path, { password: 'short' })).status, 400)

  const [a, b] = await Promise.all([new ConsoleBrowser(ta).post(path, { password: 'first password' }), new ConsoleBrowser(ta).post(path, { password: 'second password' })])
  assert.deepEqual([a.status, b.status].sort(), [303, 404], 'two racing accepts: one joins')
  const password = a.status === 303 ? 'first password' : 'second password'
  const dev = new ConsoleBrowser(ta)
  assert.equal((await dev.signIn('dev@example.com', password)).status, 303)
  assert.equal((await dev.get('/console/test/keys')).status, 200)
  assert.equal((await dev.submit('/console/test/keys', '/console/live/keys')).status, 403, 'a developer makes no live key')
  assert.equal((await dev.get('/console/test/members')).status, 403)

  assert.match((await owner.get('/console/test/activity')).html, /data-action="member_joined"/)
  const late = await invite(owner, 'late@example.com', 'viewer')
  ta.clock.advance(INVITATION_MS + 1000)
  assert.equal((await new ConsoleBrowser(ta).post(new URL(late).pathname, { password: 'a long password' })).status, 404)
})

test('an owner changes roles and removes a member, whose sessions end at once; the last owner cannot leave', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner, m } = await signedInOwner(ta)
  const viewer = await memberWithRole(ta, owner, 'viewer', 'v@example.com')
  const team = (await owner.get('/console/test/members')).html
  const viewerId = memberIdOf(team, 'v@example.com')
  const ownerId = memberIdOf(team, m.email)

  assert.equal((await viewer.browser.submit('/console/test/payments', '/console/test/settings')).status, 403)
  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${viewerId}/role`, { role: 'admin' })).status, 303)
  assert.equal((await viewer.browser.get('/console/test/activity')).status, 200, 'now an admin')

  const alone = await owner.submit('/console/test/members', `/console/test/members/${ownerId}/remove`)
  assert.equal(alone.status, 409)
  assert.match(alone.html, /at least one owner/)
  const demote = await owner.submit('/console/test/members', `/console/test/members/${ownerId}/role`, { role: 'admin' })
  assert.equal(demote.status, 409)

  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${viewerId}/remove`)).status, 303)
  assert.equal((await viewer.browser.get('/console/test/payments')).status, 303, 'removed: signed out at once')
  assert.equal((await new ConsoleBrowser(ta).signIn('v@example.com', viewer.password)).status, 401)
})

test('ownership moves to another member, and the old owner becomes an admin', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedInOwner(ta)
  const next = await memberWithRole(ta, owner, 'developer', 'next@example.com')
  const id = memberIdOf((await owner.get('/console/test/members')).html, 'next@example.com')
  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${id}/transfer`)).status, 303)
  assert.equal((await owner.get('/console/test/members')).status, 200, 'an admin still reads the team')
  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${id}/role`, { role: 'viewer' })).status, 403)
  const page = (await next.browser.get('/console/test/members')).html
  assert.match(page, /members\/invite/, 'the new owner manages the team')
})

test('a member sees their sessions with device and address and ends one; an owner ends anyone\'s', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner, m } = await signedInOwner(ta)
  const phone = new ConsoleBrowser(ta, { 'user-agent': 'PhoneBrowser/1.0' })
  assert.equal((await phone.signIn(m.email, m.password)).status, 303)
  const support = await memberWithRole(ta, owner, 'support', 's@example.com')

  const mine = await owner.get('/console/test/sessions')
  assert.match(mine.html, /PhoneBrowser\/1\.0/)
  assert.match(mine.html, /127\.0\.0\.1|::1/)
  assert.match(mine.html, /data-session="s@example\.com"/, 'an owner sees everyone\'s')
  const phoneRow = /PhoneBrowser\/1\.0[\s\S]*?name="session" value="(\w+)"/.exec(mine.html)![1]

  const theirs = (await support.browser.get('/console/test/sessions')).html
  assert.doesNotMatch(theirs, /PhoneBrowser/, 'a support member sees only theirs')
  assert.equal((await support.browser.post('/console/test/sessions/end', { csrf: csrfOf(theirs), session: phoneRow })).status, 404)

  assert.equal((await owner.post('/console/test/sessions/end', { csrf: csrfOf(mine.html), session: phoneRow })).status, 303)
  assert.equal((await phone.get('/console/test/payments')).status, 303, 'ended')
  assert.equal((await owner.get('/console/test/payments')).status, 200)
})

test('an invitation\'s and a reset link\'s secret never reach the request log, opened or used', async (t) => {
  const lines: string[] = []
  const ta = await startTestApp(t, {}, { log: (line) => void lines.push(line) })
  const { browser: owner } = await signedInOwner(ta)
  const invitation = new URL(await invite(owner, 'new@example.com', 'viewer')).pathname
  assert.equal((await new ConsoleBrowser(ta).get(invitation)).status, 200)
  assert.equal((await new ConsoleBrowser(ta).post(invitation, { password: 'a long password' })).status, 303)
  const id = memberIdOf((await owner.get('/console/test/members')).html, 'new@example.com')
  const reset = new URL(inviteLinkOf((await owner.submit('/console/test/members', `/console/test/members/${id}/reset`)).html)).pathname
  assert.equal((await new ConsoleBrowser(ta).get(reset)).status, 200)
  assert.equal((await new ConsoleBrowser(ta).post(reset, { password: 'another long password' })).status, 303)

  for (const secret of [invitation, reset].map((p) => p.split('/').pop()!)) {
    assert.ok(!lines.some((l) => l.includes(secret)), 'no line holds the secret')
  }
  const urls = lines.map((l) => JSON.parse(l)).filter((l) => l.req?.url).map((l) => l.req.url as string)
  assert.ok(urls.includes('/console/invitations/…') && urls.includes('/console/reset/…'), 'the requests are still logged, with the route')
})

test('a removed member cannot rejoin through another invitation sent to them before they joined', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner } = await signedInOwner(ta)
  const asAdmin = new URL(await invite(owner, 'x@example.com', 'admin')).pathname
  const asViewer = new URL(await invite(owner, 'x@example.com', 'viewer')).pathname
  assert.equal((await new ConsoleBrowser(ta).post(asViewer, { password: 'x password 1' })).status, 303)
  const team = (await owner.get('/console/test/members')).html
  assert.doesNotMatch(team, /data-invitation="x@example\.com"/, 'joined: no invitation of theirs is left pending')
  assert.equal((await owner.submit('/console/test/members', `/console/test/members/${memberIdOf(team, 'x@example.com')}/remove`)).status, 303)

  assert.equal((await new ConsoleBrowser(ta).get(asAdmin)).status, 404)
  assert.equal((await new ConsoleBrowser(ta).post(asAdmin, { password: 'x password 2' })).status, 404)
  assert.equal((await new ConsoleBrowser(ta).signIn('x@example.com', 'x password 2')).status, 401, 'not back in, as an admin or at all')
})

/** Holds the merchant's members locked while `first`, then `second`, queue for them; then lets them through in that order. */
async function queuedOnTheTeam(ta: TestApp, merchantId: string, first: () => Promise<ConsolePage>, second: () => Promise<ConsolePage>) {
  const holder = await ta.database.pool.connect()
  await holder.query('begin')
  await holder.query('select id from console_members where merchant_id = $1 for update', [merchantId])
  const a = first()
  await until('the first change waiting on the team', 10_000, async () => await lockWaiters(ta.database.pool) === 1)
  const b = second()
  await until('the second change waiting on the team', 10_000, async () => await lockWaiters(ta.database.pool) === 2)
  await holder.query('commit')
  holder.release()
  return Promise.all([a, b])
}

test('two owners demoting each other, or leaving, at once: the second is refused, the merchant keeps an owner', async (t) => {
  const ta = await startTestApp(t)
  const { browser: a, m } = await signedInOwner(ta)
  const b = await memberWithRole(ta, a, 'admin', 'b@example.com')
  const team = (await a.get('/console/test/members')).html
  const [aId, bId] = [memberIdOf(team, m.email), memberIdOf(team, 'b@example.com')]
  assert.equal((await a.submit('/console/test/members', `/console/test/members/${bId}/role`, { role: 'owner' })).status, 303)
  const [csrfA, csrfB] = [csrfOf((await a.get('/console/test/members')).html), csrfOf((await b.browser.get('/console/test/members')).html)]

  const answers = await queuedOnTheTeam(ta, m.id,
    () => a.post(`/console/test/members/${bId}/role`, { csrf: csrfA, role: 'viewer' }),
    () => b.browser.post(`/console/test/members/${aId}/remove`, { csrf: csrfB }))
  assert.deepEqual(answers.map((x) => x.status), [303, 403], 'b is no longer an owner when their change gets the team')
  const roles = async () => (await ta.database.pool.query(`select role from console_members where merchant_id = $1 and removed_at is null order by role`, [m.id])).rows.map((r) => r.role)
  assert.deepEqual(await roles(), ['owner', 'viewer'])

  assert.equal((await a.submit('/console/test/members', `/console/test/members/${bId}/role`, { role: 'owner' })).status, 303)
  const [again, againB] = [csrfOf((await a.get('/console/test/members')).html), csrfOf((await b.browser.get('/console/test/members')).html)]
  const leaving = await queuedOnTheTeam(ta, m.id,
    () => a.post(`/console/test/members/${aId}/remove`, { csrf: again }),
    () => b.browser.post(`/console/test/members/${bId}/remove`, { csrf: againB }))
  assert.deepEqual(leaving.map((x) => x.status), [303, 409], 'the last owner cannot leave')
  assert.deepEqual(await roles(), ['owner'])
})

test('an owner removed while their own change waits for the team: the change is refused, not made by someone no longer there', async (t) => {
  const ta = await startTestApp(t)
  const { browser: a, m } = await signedInOwner(ta)
  const b = await memberWithRole(ta, a, 'admin', 'b@example.com')
  await memberWithRole(ta, a, 'viewer', 'v@example.com')
  const team = (await a.get('/console/test/members')).html
  const [bId, vId] = [memberIdOf(team, 'b@example.com'), memberIdOf(team, 'v@example.com')]
  assert.equal((await a.submit('/console/test/members', `/console/test/members/${bId}/role`, { role: 'owner' })).status, 303)
  const [csrfA, csrfB] = [csrfOf((await a.get('/console/test/members')).html), csrfOf((await b.browser.get('/console/test/members')).html)]

  const [removed, promoted] = await queuedOnTheTeam(ta, m.id,
    () => a.post(`/console/test/members/${bId}/remove`, { csrf: csrfA }),
    () => b.browser.post(`/console/test/members/${vId}/role`, { csrf: csrfB, role: 'owner' }))
  assert.equal(removed.status, 303)
  assert.equal(promoted.status, 403)
  const v = await ta.database.pool.query(`select role from console_members where id = $1`, [vId])
  assert.equal(v.rows[0].role, 'viewer', 'not made an owner by a removed member')
})

test('another merchant\'s owner cannot touch this merchant\'s members, invitations or sessions by their ids; a withdrawn link is dead', async (t) => {
  const ta = await startTestApp(t)
  const { browser: owner, m } = await signedInOwner(ta, 'Home')
  const { browser: other } = await signedInOwner(ta, 'Other')
  await memberWithRole(ta, owner, 'viewer', 'v@example.com')
  const link = new URL(await invite(owner, 'later@example.com', 'admin')).pathname
  const team = (await owner.get('/console/test/members')).html
  const vId = memberIdOf(team, 'v@example.com')
  const invitation = /name="invitation" value="(\w+)"/.exec(team)![1]
  const session = /name="session" value="(\w+)"/.exec((await owner.get('/console/test/sessions')).html)![1]

  for (const [action, fields] of [
    [`/members/${vId}/role`, { role: 'owner' }], [`/members/${vId}/remove`, {}], [`/members/${vId}/transfer`, {}], [`/members/${vId}/reset`, {}],
    [`/members/${vId}/second-factor/reset`, {}], ['/sessions/end', { session }],
  ] as const) {
    assert.equal((await other.submit('/console/test/members', `/console/test${action}`, fields)).status, 404, action)
  }
  // An invitation not open at the merchant is withdrawn already, as far as it can tell: nothing to do.
  assert.equal((await other.submit('/console/test/members', '/console/test/members/invitations/withdraw', { invitation })).status, 303)
  assert.equal((await owner.get('/console/test/payments')).status, 200, 'the owner\'s session goes on')
  const roles = await ta.database.pool.query(`select email, role from console_members where merchant_id = $1 and removed_at is null order by email`, [m.id])
  assert.deepEqual(roles.rows.map((r) => `${r.email} ${r.role}`), [`${m.email} owner`, 'v@example.com viewer'])
  assert.equal((await new ConsoleBrowser(ta).get(link)).status, 200, 'the invitation still stands')

  assert.equal((await owner.submit('/console/test/members', '/console/test/members/invitations/withdraw', { invitation })).status, 303)
  assert.equal((await new ConsoleBrowser(ta).post(link, { password: 'a long password' })).status, 404, 'withdrawn')
})
